"""Focus: the lines of a big definition that answer the query, the rest named, not sent.

A hit is a whole definition, so a hit on a 600-line class or a module would
spend the budget the next hit needed, or be shown as a summary with no code
at all. A focused rendering keeps what answers the query:

- the definition's head (its first line, a signature continued over a few
  lines, the first line of its docstring);
- every line a place in the query points at (``adapters.py:412``), first;
- then the lines holding the most query terms, each with a little context
  around it, best first, while they fit;
- and marks each elided run with one line naming what it holds:
  ``... lines 120-188 (send, close)`` (the members defined there), so the
  reader knows what exists and can ask for it by key.

Terms match a line's identifier parts by their first four letters, so
``retries`` finds ``retry`` and ``enforced`` finds ``enforce``.

Laws (tests/properties/test_focus.py): the focused text, markers aside, is
an in-order subsequence of the definition's lines; it always holds the first
line; it never costs more than its budget (None when not even the head and
one marker fit); a line a place points at is kept whenever the head, that
line and their markers fit; when the head and every line holding a term fit
together, all of them are kept; a definition that fits whole is returned
whole; a line the answer already ``shown`` elsewhere (a method shown as a
hit of its own above its class) is never kept, its run named by its marker.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from greploom.core.budget import TokenCounter
from greploom.core.lexical import STOPWORDS, identifier_tokens

if TYPE_CHECKING:  # greploom.core.query reads a query's terms with focus_terms, here
    from greploom.core.query import Query

CONTEXT_LINES = 2  # shown around a matching line
HEAD_LINES = 4  # at most this many lines of a signature continued over lines
_STEM = 4  # a term matches the words that share its first letters


def stem(word: str) -> str:
    """The part of a word terms are matched by: its first four letters (shorter words whole)."""
    return word[:_STEM]


def query_terms(text: str) -> frozenset[str]:
    """The stems of a query's words and identifier parts, stopwords left out."""
    return focus_terms(identifier_tokens(text))


def focus_terms(tokens: Iterable[str]) -> frozenset[str]:
    """The stems of a query's tokens (:func:`identifier_tokens`), stopwords and short words left out."""
    return frozenset(stem(t) for t in tokens if t not in STOPWORDS and len(t) >= 3)


@attrs.frozen
class FocusQuery:
    """What a query says to focus on: its terms' stems, and the file lines its places
    point at inside each definition (``(key, line)`` pairs, resolved by the shell)."""

    terms: frozenset[str] = frozenset()
    places: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def of(cls, query: str | Query, places: Iterable[tuple[str, int]] = ()) -> FocusQuery:
        """The focus of a query (as read by greploom.core.query, or its text) and the places
        the shell found for it."""
        terms = query_terms(query) if isinstance(query, str) else query.terms
        return cls(terms, frozenset(places))

    def lines_in(self, key: str) -> frozenset[int]:
        """The file lines the query's places point at inside the definition ``key``."""
        return frozenset(line for k, line in self.places if k == key)


@attrs.frozen
class Member:
    """A definition inside the one being focused, by its first line in the file."""

    line: int
    name: str


def _head(lines: Sequence[str]) -> int:
    """How many lines the head takes: the signature up to its end, and a docstring's first line."""
    end = 0
    for i, line in enumerate(lines[:HEAD_LINES]):
        end = i
        stripped = line.rstrip()
        if stripped.endswith((":", "{", "=>", ";")) or stripped.endswith(") {"):
            break
    else:
        end = 0  # no end of signature in sight: the first line alone
    if end + 1 < len(lines) and lines[end + 1].lstrip().startswith(
        ('"""', "'''", '"', "'", "/**", "//", "#")
    ):
        end += 1
    return end + 1


def _line_terms(line: str, terms: frozenset[str]) -> int:
    return len({stem(t) for t in identifier_tokens(line)} & terms)


def _marker(lines: Sequence[str], start: int, stop: int, first_line: int, members: Sequence[Member]) -> str:
    """The line standing for lines ``start``..``stop - 1`` (0-based) of the definition."""
    indent = next((len(s) - len(s.lstrip()) for s in lines[start:stop] if s.strip()), 0)
    a, b = first_line + start, first_line + stop - 1
    inside = list(dict.fromkeys(m.name for m in members if a <= m.line <= b))  # overloads once
    names = ""
    if inside:
        shown = ", ".join(inside[:6])
        names = f" ({shown}{f', +{len(inside) - 6} more' if len(inside) > 6 else ''})"
    span = f"line {a}" if a == b else f"lines {a}-{b}"
    return f"{' ' * indent}... {span}{names}"


def render_kept(
    lines: Sequence[str], kept: Iterable[int], first_line: int, members: Sequence[Member] = ()
) -> str:
    """The kept lines in order, each elided run replaced by its marker."""
    keep = sorted(set(kept))
    out: list[str] = []
    previous = -1
    for i in keep:
        if i > previous + 1:
            out.append(_marker(lines, previous + 1, i, first_line, members))
        out.append(lines[i])
        previous = i
    if previous < len(lines) - 1:
        out.append(_marker(lines, previous + 1, len(lines), first_line, members))
    return "\n".join(out)


def focus(
    source: str,
    first_line: int,
    *,
    terms: frozenset[str],
    places: frozenset[int],
    budget: int,
    count: TokenCounter,
    members: Sequence[Member] = (),
    shown: frozenset[int] = frozenset(),
) -> str | None:
    """The focused rendering of ``source`` (whose first line is ``first_line`` of its file)
    in at most ``budget`` tokens, or None when not even its head fits.

    ``shown``: file lines the answer shows elsewhere; they are left out, so a
    definition holding some is focused even when it would fit whole."""
    lines = source.split("\n")
    hidden = {i for i in range(len(lines)) if first_line + i in shown}
    if not hidden and count(source) <= budget:
        return source
    if 0 in hidden:
        return None  # the definition itself is shown elsewhere
    head = set(range(_head(lines))) - hidden

    def cost(kept: set[int]) -> int:
        return count(render_kept(lines, kept, first_line, members))

    rest = set(range(len(lines))) - hidden
    if hidden and cost(rest) <= budget:
        return render_kept(lines, rest, first_line, members)  # whole, what is shown elsewhere aside
    if cost(head) > budget:
        head = {0}
        if cost(head) > budget:
            return None
    kept = set(head)
    # Places first (in line order), then the lines with the most terms, earlier first.
    placed = [i for i in range(len(lines)) if first_line + i in places and i not in hidden]
    scored = sorted(
        (
            (n, i)
            for i in range(len(lines))
            if i not in head and i not in hidden and (n := _line_terms(lines[i], terms)) > 0
        ),
        key=lambda p: (-p[0], p[1]),
    )
    for i in placed:
        if cost(kept | {i}) <= budget:
            kept.add(i)
    matched: list[int] = []
    for _n, i in scored:  # every matching line first, best first ...
        if i not in kept and cost(kept | {i}) <= budget:
            kept.add(i)
            matched.append(i)
    for i in placed + matched:  # ... then the lines around them, nearest first
        window = range(max(0, i - CONTEXT_LINES), min(len(lines), i + CONTEXT_LINES + 1))
        for j in sorted(window, key=lambda j: abs(j - i)):
            if j not in kept and j not in hidden and cost(kept | {j}) <= budget:
                kept.add(j)
    if kept == head:  # nothing matched: the definition's start, as much as fits
        for i in range(len(lines)):
            if i not in kept and i not in hidden:
                if cost(kept | {i}) > budget:
                    break
                kept.add(i)
    # A one-line gap costs about what its marker does: show the line where it fits.
    for i in range(len(lines)):
        alone = (
            i not in kept
            and i not in hidden
            and (i == 0 or i - 1 in kept)
            and (i == len(lines) - 1 or i + 1 in kept)
        )
        if alone and cost(kept | {i}) <= budget:
            kept.add(i)
    return render_kept(lines, kept, first_line, members)
