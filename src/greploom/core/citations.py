"""Citations in an answer: finding ``[file:line]`` marks, and checking them against the context sent.

``greploom ask`` asks a chat model to cite a place for every claim. This
module reads those places back out of the answer and says, for each, whether
it points into the context the model was given. It cannot tell whether a
claim is true; it tells a reader which citations point at code the model was
never shown (a guessed file, a line number from memory), which is where an
answer is most likely made up.

The grammar (what "well-formed" means below)::

    citation := "[" item { ("," | ";") item } "]"
    item     := path ":" line [ "-" line ]      "-" or an en dash; spaces around items and it allowed
    path     := one or more characters, none of them white space, "[", "]", ":", ",", ";" or "`"
    line     := 1 to 9 digits

An item may be wrapped in backticks (`` [`shop/net.py:8`] ``), and a leading
``./`` of a path is dropped, as models write both. A bracket holding other
text (``[see shop/net.py:8]``, ``[1]``, a markdown link's text) is no
citation; in a bracket of several items, the items that are well-formed
count. ``[file:line]`` is the span of one line: its ``end_line`` is its
``line``.

A citation is valid when every line it names lies in a span that was sent
for its file (spans of one file are taken together, so a range across two
adjacent definitions is valid); otherwise it is flagged: a file not sent,
lines outside every span of the file, or a reversed range (``[a.py:9-3]``).

Laws (tests/properties/test_citations.py):

1. A citation built from any sent span, or from any range inside one, is
   never flagged.
2. A citation to a file not among the sent spans, or a reversed range, is
   always flagged.
3. A citation reaching past the last line sent of its file is flagged.
4. Verdicts do not depend on the order of the spans, nor on repeated spans.
5. Sending more spans never flags a citation that was valid (monotone).
6. Extraction finds every well-formed citation inserted into arbitrary
   text; in text without other ``[`` it finds exactly them, in order, each
   once; in text without ``[`` it finds nothing.
7. A citation's text reads back as that citation (``str`` and extraction
   are inverse).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

# One bracket's inside: no nested brackets, no line break, and a bound on its length
# (a citation of several items is a few hundred characters; the bound keeps a
# pathological answer linear).
_BRACKET = re.compile(r"\[([^\[\]\n]{1,2000})\]")
_ITEM = re.compile(r"(?P<file>[^\s\[\]:,;`]+):(?P<line>\d{1,9})(?:\s*[-\u2013]\s*(?P<end>\d{1,9}))?")
_SEPARATORS = re.compile(r"[,;]")


@attrs.frozen
class Span:
    """Lines ``line`` to ``end_line`` (inclusive) of a file, as a block sent to the model states them."""

    file: str
    line: int
    end_line: int

    @classmethod
    def of(cls, file: str, line: int, end_line: int | None = None) -> Span:
        """The span of a block: one line when its end is unknown or before its start."""
        return cls(file, line, max(line, end_line if end_line is not None else line))


@attrs.frozen
class Citation:
    """One cited place: a file and a line range (one line when ``end_line == line``)."""

    file: str
    line: int
    end_line: int

    def __str__(self) -> str:
        """The citation as a model writes it: ``[file:line]`` or ``[file:line-end]``."""
        if self.end_line == self.line:
            return f"[{self.file}:{self.line}]"
        return f"[{self.file}:{self.line}-{self.end_line}]"


@attrs.frozen
class CheckedCitation:
    """A citation and its verdict: ``valid`` when every line it names was in the context sent."""

    citation: Citation
    valid: bool


def _item(raw: str) -> Citation | None:
    """One bracket item as a citation, or None when it is not well-formed."""
    match = _ITEM.fullmatch(raw.strip().strip("`").strip())
    if match is None:
        return None
    path = match["file"]
    while path.startswith("./"):
        path = path[2:]
    if not path:
        return None
    line = int(match["line"])
    end = int(match["end"]) if match["end"] is not None else line
    return Citation(path, line, end)


def extract_citations(text: str) -> tuple[Citation, ...]:
    """Every well-formed citation in ``text``, each once, in the order first written."""
    seen: dict[Citation, None] = {}
    for bracket in _BRACKET.finditer(text):
        for raw in _SEPARATORS.split(bracket.group(1)):
            citation = _item(raw)
            if citation is not None:
                seen.setdefault(citation, None)
    return tuple(seen)


def _covered(spans: Iterable[Span]) -> list[tuple[int, int]]:
    """The lines the spans of one file cover, as sorted disjoint ranges (touching ones merged)."""
    merged: list[tuple[int, int]] = []
    for span in sorted(spans, key=lambda s: (s.line, s.end_line)):
        if merged and span.line <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], span.end_line))
        else:
            merged.append((span.line, span.end_line))
    return merged


def check_citations(citations: Sequence[Citation], spans: Iterable[Span]) -> tuple[CheckedCitation, ...]:
    """Each citation with its verdict against the spans sent (see the module docstring)."""
    by_file: dict[str, list[Span]] = {}
    for span in spans:
        by_file.setdefault(span.file, []).append(span)
    covered = {file: _covered(group) for file, group in by_file.items()}
    checked = []
    for citation in citations:
        ranges = covered.get(citation.file, [])
        valid = citation.line <= citation.end_line and any(
            start <= citation.line and citation.end_line <= end for start, end in ranges
        )
        checked.append(CheckedCitation(citation, valid))
    return tuple(checked)


def flagged(checked: Iterable[CheckedCitation]) -> tuple[Citation, ...]:
    """The citations that point outside the context sent, in order."""
    return tuple(c.citation for c in checked if not c.valid)
