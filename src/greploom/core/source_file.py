"""A file's text split into lines once, for every definition read from it.

The recovered spans (greploom.core.spans), the doc comments
(greploom.core.doc_comments) and the outlines merged into a CPG
(greploom.core.supplement) read a file's text by line and by offset; the
split is made once per file.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class SourceFile:
    """A file's text with its lines and their offsets, split once for all its definitions."""

    text: str
    lines: tuple[str, ...]
    starts: tuple[int, ...]  # offset of each line's first character

    @classmethod
    def of(cls, text: str | SourceFile) -> SourceFile:
        """The file for a text (a SourceFile is returned as it is)."""
        if isinstance(text, SourceFile):
            return text
        lines = tuple(text.split("\n"))
        starts, offset = [], 0
        for row in lines:
            starts.append(offset)
            offset += len(row) + 1
        return cls(text, lines, tuple(starts))


def line_offset(file: str | SourceFile, line: int, column: int = 0) -> int | None:
    """The offset of a 1-based line and a 0-based UTF-8 byte column, or None past the end."""
    src = SourceFile.of(file)
    if not 1 <= line <= len(src.lines):
        return None
    prefix = src.lines[line - 1].encode("utf-8")[: max(column, 0)].decode("utf-8", errors="ignore")
    return src.starts[line - 1] + len(prefix)
