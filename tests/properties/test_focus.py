"""Focus inside big definitions (greploom.core.focus).

Laws:

1. The focused text, markers aside, is an in-order subsequence of the
   definition's lines, and it holds the first line.
2. It never costs more than its budget; None only when not even the first
   line and one marker fit.
3. A line a place points at is kept whenever the head, that line and their
   markers fit.
4. When the head and every line holding a query term fit together, all of
   them are kept.
5. A definition that fits whole is returned whole.
6. Each marker names the file lines it stands for, and the members defined there,
   each once (a method's overloads are one name).
7. A line the answer shows elsewhere (``shown``: a method shown whole as a hit
   above its class) is never kept, even when the definition would fit whole;
   when the rest fits, all of the rest is kept.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.focus import Member, focus, query_terms, render_kept

WORDS = ("retry", "backoff", "send", "close", "value", "parse", "items", "total")


def count(text: str) -> int:
    """A stand-in for the tokenizer: one token per word-ish run, one per line break."""
    return len(re.findall(r"\w+|[^\w\s]", text)) + text.count("\n")


@st.composite
def definitions(draw: st.DrawFn) -> list[str]:
    body = draw(
        st.lists(
            st.tuples(st.integers(0, 3), st.lists(st.sampled_from((*WORDS, "x", "=", "(", ")")), max_size=6)),
            min_size=1,
            max_size=60,
        )
    )
    return ["def handler(request):", *("    " * (1 + depth) + " ".join(words) for depth, words in body)]


MARKER = re.compile(r"^\s*\.\.\. lines? (\d+)(?:-(\d+))?")


def _kept_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if not MARKER.match(line)]


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(line == other for other in it) for line in part)


@given(definitions(), st.sampled_from(WORDS), st.integers(5, 200), st.integers(1, 500))
def test_focus_is_an_in_order_part_within_budget(
    lines: list[str], word: str, budget: int, first: int
) -> None:
    """Laws 1, 2 and 5."""
    source = "\n".join(lines)
    out = focus(source, first, terms=query_terms(word), places=frozenset(), budget=budget, count=count)
    if count(source) <= budget:
        assert out == source
        return
    if out is None:
        assert count(render_kept(lines, {0}, first)) > budget
        return
    assert count(out) <= budget
    kept = _kept_lines(out)
    assert kept[0] == lines[0]
    assert _is_subsequence(kept, lines)


@given(definitions(), st.integers(0, 59), st.integers(20, 200))
def test_a_place_is_kept_when_it_fits(lines: list[str], offset: int, budget: int) -> None:
    """Law 3."""
    offset %= len(lines)  # a line of the definition (drawn first, so no input is thrown away)
    source = "\n".join(lines)
    place = 100 + offset
    out = focus(source, 100, terms=frozenset(), places=frozenset({place}), budget=budget, count=count)
    # The generated head is the first line alone: it ends with ":" and no docstring follows.
    if count(render_kept(lines, {0, offset}, 100)) <= budget:
        assert out is not None and lines[offset] in _kept_lines(out)


@given(definitions(), st.sampled_from(WORDS), st.integers(20, 300))
def test_all_term_lines_are_kept_when_they_fit(lines: list[str], word: str, budget: int) -> None:
    """Law 4."""
    source = "\n".join(lines)
    terms = query_terms(word)
    matching = {i for i, line in enumerate(lines) if word in line.split()}
    out = focus(source, 1, terms=terms, places=frozenset(), budget=budget, count=count)
    if count(render_kept(lines, {0} | matching, 1)) <= budget and count(source) > budget:
        assert out is not None
        kept = _kept_lines(out)
        assert all(lines[i] in kept for i in matching)


@given(definitions(), st.sampled_from(WORDS), st.integers(0, 59), st.integers(0, 20), st.integers(5, 400))
def test_lines_shown_elsewhere_are_left_out(
    lines: list[str], word: str, start: int, length: int, budget: int
) -> None:
    """Law 7."""
    lines = [f"{line}  # {i}" for i, line in enumerate(lines)]  # each line told apart
    start = 1 + start % len(lines) if len(lines) > 1 else 1
    shown = frozenset(range(100 + start, 100 + start + length + 1))
    source, terms = "\n".join(lines), query_terms(word)
    out = focus(source, 100, terms=terms, places=frozenset(), budget=budget, count=count, shown=shown)
    rest = {i for i in range(len(lines)) if 100 + i not in shown}
    if out is None:
        assert count(render_kept(lines, {0}, 100)) > budget
        return
    kept = _kept_lines(out)
    assert count(out) <= budget and kept[0] == lines[0] and _is_subsequence(kept, lines)
    assert not any(lines[i] in kept for i in range(len(lines)) if 100 + i in shown)
    if count(render_kept(lines, rest, 100)) <= budget:
        assert kept == [lines[i] for i in sorted(rest)]


def test_markers_name_their_lines_and_members() -> None:
    """Law 6: elided runs say which file lines they stand for and what is defined there."""
    lines = ["class Store:", "    def get(self):", "        return 1", "    def put(self, v):"]
    lines.append("        self.v = v")
    out = render_kept(lines, {0, 3, 4}, 10, [Member(11, "get"), Member(13, "put")])
    expected = ["class Store:", "    ... lines 11-12 (get)", "    def put(self, v):", "        self.v = v"]
    assert out.split("\n") == expected
    overloaded = render_kept(lines, {0}, 10, [Member(11, "get"), Member(12, "get"), Member(13, "put")])
    assert overloaded.split("\n")[1] == "    ... lines 11-14 (get, put)"


def test_terms_match_by_their_first_letters() -> None:
    """``retries`` finds ``retry``; stopwords find nothing."""
    assert query_terms("how are retries enforced") == frozenset({"retr", "enfo"})
