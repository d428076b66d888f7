"""A file no parser reads, cut into sections: the unit an answer can show of it.

A Ruby or PHP file (no grammar here) is indexed as a module holding its text;
a long one is also cut into sections, so a hit shows the part that matched,
not the first screen of the file. Cuts fall on blank lines (paragraphs are
kept whole up to ``SECTION_LINES``); a section is named by its first line,
which moves with its code, not by its line numbers, which every edit above
it would change.

Laws (tests/properties/test_sections.py): sections are in order, never
overlap, never start on a blank line and cover every non-blank line; none
is longer than ``SECTION_LINES``; a file of at most ``SECTION_LINES`` lines
has none (its module is enough).
"""

from __future__ import annotations

import attrs

SECTION_LINES = 80
TITLE_CHARS = 80


@attrs.frozen
class Section:
    """Lines ``first`` to ``last`` (1-based, inclusive), named by the first of them."""

    first: int
    last: int
    title: str


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start: int | None = None
    for row, line in enumerate(lines, 1):
        if line.strip():
            if start is None:
                start = row
        elif start is not None:
            out.append((start, row - 1))
            start = None
    if start is not None:
        out.append((start, len(lines)))
    return out


def _title(line: str) -> str:
    flat = " ".join(line.split())
    return flat[:TITLE_CHARS]


def sections(text: str, max_lines: int = SECTION_LINES) -> tuple[Section, ...]:
    """The sections of a file, or none when it is short enough to be shown whole."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return ()
    pieces: list[tuple[int, int]] = []
    for start, last in _paragraphs(lines):
        first = start
        while last - first + 1 > max_lines:  # a paragraph longer than a section is cut
            pieces.append((first, first + max_lines - 1))
            first += max_lines
        pieces.append((first, last))
    merged: list[tuple[int, int]] = []
    for first, last in pieces:
        if merged and last - merged[-1][0] + 1 <= max_lines:
            merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    return tuple(Section(first, last, _title(lines[first - 1])) for first, last in merged)
