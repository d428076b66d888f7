"""Citations in an answer: finding ``[file:line]`` marks, and checking them against the context sent.

``greploom ask`` asks a chat model to cite a place for every claim. This
module reads those places back out of the answer and says, for each, whether
it points into the context the model was given. It cannot tell whether a
claim is true; it tells a reader which citations point at code the model was
never shown (a guessed file, a line number from memory), which is where an
answer is most likely made up.

The grammar (what "well-formed" means below)::

    citation := "[" item { ("," | ";") item } "]"
    item     := path place [ "-" [ end ] ]   "-" or an en dash; spaces around items and it allowed
    place    := ":" [ spaces ] [ "L" ] line [ ":" column ]  |  "#L" line [ ":" column ]
    end      := [ "L" ] line [ ":" column ]
    path     := one or more characters, none of them white space, "[", "]", ":", ",", ";", "#"
                or "`", and at least one of them "/" or "." (``[i:3]`` is code, not a citation)
    line     := 1 to 9 digits;  column := 1 to 9 digits (read, and ignored)

So ``[a.py:8]``, ``[a.py:8:3]`` (line and column), ``[a.py:L8]``,
``[a.py#L8-L10]``, ``[a.py: 8]`` and ``[a.py:8-]`` (line 8) all cite. An
item may be wrapped in backticks (`` [`shop/net.py:8`] ``), and a leading
``./`` of a path is dropped, as models write both. A bracket holding other
text (``[see shop/net.py:8]``, ``[1]``, a markdown link's text) is no
citation; in a bracket of several items, the items that are well-formed
count. ``[file:line]`` is the span of one line: its ``end_line`` is its
``line``.

Code is not prose: brackets inside fenced code blocks (```` ``` ```` or
``~~~``) and inline code spans (`` `items[start:10]` ``) are not read, save a
code span that is itself one item or one citation (`` [`a.py:3`] ``,
`` `[a.py:3]` ``), which models write for citations.

A citation is valid when every line it names lies in a span that was sent
for its file (spans of one file are taken together, so a range across two
adjacent definitions is valid); otherwise it is flagged: a file not sent,
lines outside every span of the file, or a reversed range (``[a.py:9-3]``).
A citation of an absolute path stands for every sent file its path ends
with, on ``/`` boundaries (``/home/me/shop/net.py`` for ``shop/net.py``,
never for ``p/net.py``): it is valid when one of them holds its lines.

Laws (tests/properties/test_citations.py):

1. A citation built from any sent span, or from any range inside one, is
   never flagged.
2. A citation to a file not among the sent spans, or a reversed range, is
   always flagged.
3. A citation reaching past the last line sent of its file is flagged.
4. Verdicts do not depend on the order of the spans, nor on repeated spans.
5. Sending more spans never flags a citation that was valid (monotone).
6. Extraction finds every well-formed citation inserted into arbitrary
   text outside code; in text without other ``[`` it finds exactly them, in
   order, each once; in text without ``[`` it finds nothing; inside a code
   block or a code span (other than one that is a citation) it finds nothing.
7. A citation's text reads back as that citation (``str`` and extraction
   are inverse).
8. A citation of an absolute path ending, on a ``/`` boundary, with a sent
   file's path has the verdict of that file's citation; a path that ends
   with it only past a ``/`` boundary does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

# One bracket's inside: no nested brackets, no line break, and a bound on its length
# (a citation of several items is a few hundred characters; the bound keeps a
# pathological answer linear).
_BRACKET = re.compile(r"\[([^\[\]\n]{1,2000})\]")
_ITEM = re.compile(
    r"(?P<file>[^\s\[\]:,;`#]+)(?::\s*L?|#L)(?P<line>\d{1,9})(?::\d{1,9})?"
    r"(?:\s*[-\u2013]\s*(?:L?(?P<end>\d{1,9})(?::\d{1,9})?)?)?"
)
_SEPARATORS = re.compile(r"[,;]")
# A fence line opens (or closes) a fenced code block: up to three spaces, then three or
# more backticks or tildes (CommonMark).
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_TICKS = re.compile(r"`+")


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
    if "/" not in path and "." not in path:
        return None
    line = int(match["line"])
    end = int(match["end"]) if match["end"] is not None else line
    return Citation(path, line, end)


def _is_citation(code: str) -> bool:
    """Whether a code span's text is one citation item, or one whole citation, and nothing else."""
    inner = code.strip()
    if _item(inner) is not None:
        return True
    bracket = _BRACKET.fullmatch(inner)
    return bracket is not None and all(_item(raw) is not None for raw in _SEPARATORS.split(bracket[1]))


def _without_fences(text: str) -> str:
    """``text`` with its fenced code blocks blanked (an unclosed one runs to the end, as in CommonMark)."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        mark = _FENCE.match(line)
        if fence is None:
            # A backtick fence's info string holds no backtick: ``` `a` ``` on one line is a code span.
            if mark is None or (mark[1][0] == "`" and "`" in line[mark.end() :]):
                kept.append(line)
                continue
            fence = mark[1]
        elif (
            mark is not None
            and mark[1][0] == fence[0]
            and len(mark[1]) >= len(fence)
            and not line[mark.end() :].strip()
        ):
            fence = None
        kept.append("")
    return "\n".join(kept)


def _without_code_spans(paragraph: str) -> str:
    """A paragraph less its inline code spans, save those that are a citation.

    A span opens at a run of backticks and closes at the next run of the same
    length; a run with no such closer is literal text (CommonMark).
    """
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(paragraph)]
    closer: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        width = runs[i][1] - runs[i][0]
        closer[i] = last.get(width)
        last[width] = i
    parts: list[str] = []
    done = 0
    i = 0
    while i < len(runs):
        j = closer[i]
        if j is None:
            i += 1
            continue
        code = paragraph[runs[i][1] : runs[j][0]]
        parts.append(paragraph[done : runs[i][0]])
        parts.append(paragraph[runs[i][0] : runs[j][1]] if _is_citation(code) else " ")
        done = runs[j][1]
        i = j + 1
    parts.append(paragraph[done:])
    return "".join(parts)


def prose(text: str) -> str:
    """``text`` with its code (fenced blocks, inline spans) blanked, save code spans that are citations."""
    text = _without_fences(text)
    if "`" not in text:
        return text
    pieces = _PARAGRAPH_BREAK.split(text)
    breaks = _PARAGRAPH_BREAK.findall(text)
    out = [_without_code_spans(pieces[0])]
    for gap, piece in zip(breaks, pieces[1:], strict=True):
        out += [gap, _without_code_spans(piece)]
    return "".join(out)


def extract_citations(text: str) -> tuple[Citation, ...]:
    """Every well-formed citation in the prose of ``text``, each once, in the order first written."""
    seen: dict[Citation, None] = {}
    for bracket in _BRACKET.finditer(prose(text)):
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
        valid = citation.line <= citation.end_line and any(
            start <= citation.line and citation.end_line <= end
            for file in _candidates(citation.file)
            for start, end in covered.get(file, ())
        )
        checked.append(CheckedCitation(citation, valid))
    return tuple(checked)


def _candidates(path: str) -> Iterable[str]:
    """The sent paths a cited path may stand for: itself, and for an absolute path each of its
    suffixes that starts after a ``/`` (``/a/b.py``: ``a/b.py``, ``b.py``)."""
    yield path
    if path.startswith("/"):
        for i, char in enumerate(path):
            if char == "/" and i + 1 < len(path):
                yield path[i + 1 :]


def flagged(checked: Iterable[CheckedCitation]) -> tuple[Citation, ...]:
    """The citations that point outside the context sent, in order."""
    return tuple(c.citation for c in checked if not c.valid)
