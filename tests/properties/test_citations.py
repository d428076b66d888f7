"""Laws of citation extraction and checking (greploom.core.citations).

1. A citation built from any sent span, or from any range inside one, is
   never flagged: an answer that cites what it was shown is never accused.
2. A citation to a file not among the sent spans, or a reversed range, is
   always flagged.
3. A citation reaching past the last line sent of its file is flagged.
4. Verdicts do not depend on the order of the spans, nor on repeated spans.
5. Sending more spans never flags a citation that was valid.
6. Extraction finds every well-formed citation inserted into arbitrary
   text; in text without ``[`` besides them it finds exactly them, in order,
   each once; in text without ``[`` it finds nothing.
7. ``str`` of a citation extracts back to that citation.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.citations import Citation, Span, check_citations, extract_citations, flagged

SENT_FILES = ("pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "lib/x.js")
OTHER_FILES = ("pkg/d.py", "other/a.py", "a.py", "pkg/a.pyi")  # never among the spans

span_lists = st.lists(
    st.tuples(st.sampled_from(SENT_FILES), st.integers(1, 400), st.integers(0, 60)).map(
        lambda t: Span.of(t[0], t[1], t[1] + t[2])
    ),
    min_size=1,
    max_size=12,
)
citations = st.tuples(
    st.sampled_from(SENT_FILES + OTHER_FILES), st.integers(1, 10**6), st.integers(-3, 80)
).map(lambda t: Citation(t[0], t[1], t[1] + t[2] if t[2] >= 0 else t[1]))
any_citations = st.tuples(
    st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,12}", fullmatch=True),
    st.integers(0, 10**9 - 1),
    st.integers(0, 10**9 - 1),
    st.booleans(),
).map(lambda t: Citation(t[0], t[1], t[2] if t[3] else t[1]))


def verdicts(cited: list[Citation], sent: list[Span]) -> list[bool]:
    return [c.valid for c in check_citations(cited, sent)]


@given(span_lists, st.data())
def test_citing_a_sent_span_is_never_flagged(sent: list[Span], data: st.DataObject) -> None:
    """The check must never accuse an answer of citing what it was in fact shown."""
    span = data.draw(st.sampled_from(sent))
    first = data.draw(st.integers(span.line, span.end_line))
    last = data.draw(st.integers(first, span.end_line))
    cited = [Citation(span.file, span.line, span.end_line), Citation(span.file, first, last)]
    assert verdicts(cited, sent) == [True, True]


@given(span_lists, citations, st.sampled_from(OTHER_FILES))
def test_a_file_not_sent_or_a_reversed_range_is_always_flagged(
    sent: list[Span], citation: Citation, other: str
) -> None:
    """A file the model never saw cannot ground a claim, however plausible its name."""
    elsewhere = Citation(other, citation.line, citation.end_line)
    reversed_ = Citation(sent[0].file, sent[0].end_line + 1, sent[0].line)
    assert verdicts([elsewhere, reversed_], sent) == [False, False]
    assert flagged(check_citations([elsewhere], sent)) == (elsewhere,)


@given(span_lists, st.data())
def test_reaching_past_the_last_line_sent_is_flagged(sent: list[Span], data: st.DataObject) -> None:
    """A line number past everything shown of a file is one the model made up."""
    file = data.draw(st.sampled_from(sorted({s.file for s in sent})))
    last = max(s.end_line for s in sent if s.file == file)
    end = last + data.draw(st.integers(1, 50))
    line = data.draw(st.integers(1, end))
    assert verdicts([Citation(file, line, end)], sent) == [False]


@given(span_lists, st.lists(citations, max_size=8), st.data())
def test_verdicts_ignore_span_order_and_repeats(
    sent: list[Span], cited: list[Citation], data: st.DataObject
) -> None:
    """The blocks' order is the ranking's business; it must not change what counts as grounded."""
    shuffled = data.draw(st.permutations(list(sent) + list(sent[: len(sent) // 2])))
    assert verdicts(cited, shuffled) == verdicts(cited, sent)


@given(span_lists, span_lists, st.lists(citations, max_size=8))
def test_more_context_never_flags_a_valid_citation(
    sent: list[Span], more: list[Span], cited: list[Citation]
) -> None:
    """A bigger budget sends more blocks; an answer valid with fewer must stay valid with more."""
    before = verdicts(cited, sent)
    after = verdicts(cited, sent + more)
    assert all(a for b, a in zip(before, after, strict=True) if b)


def _decorated(citation: Citation, style: int) -> str:
    """One bracket item as models write it: bare, in backticks, with ./, spaced, with an en dash."""
    dash = {3: " - ", 4: "\u2013"}.get(style, "-")
    lines = (
        f"{citation.line}"
        if citation.end_line == citation.line
        else f"{citation.line}{dash}{citation.end_line}"
    )
    text = f"{citation.file}:{lines}"
    if style == 1:
        return f"`{text}`"
    if style == 2:
        return f"./{text}"
    if style == 3:
        return f" {text} "
    return text


written = st.lists(st.tuples(any_citations, st.integers(0, 4)), min_size=1, max_size=3).flatmap(
    lambda items: st.lists(
        st.sampled_from([",", ";", ", ", " ; "]), min_size=len(items), max_size=len(items)
    ).map(
        lambda seps: (
            [c for c, _ in items],
            "["
            + "".join(("" if i == 0 else seps[i]) + _decorated(c, s) for i, (c, s) in enumerate(items))
            + "]",
        )
    )
)


@given(st.lists(st.tuples(st.text(max_size=20), written), max_size=6), st.text(max_size=20))
def test_every_inserted_citation_is_found(
    parts: list[tuple[str, tuple[list[Citation], str]]], tail: str
) -> None:
    """Whatever surrounds a citation (prose, code, stray brackets), the check must see it."""
    text = "".join(filler + mark for filler, (_, mark) in parts) + tail
    found = set(extract_citations(text))
    assert {c for _, (cited, _) in parts for c in cited} <= found


@given(
    st.lists(st.tuples(st.text(st.characters(exclude_characters="["), max_size=20), written), max_size=6),
    st.text(st.characters(exclude_characters="["), max_size=20),
)
def test_in_plain_text_exactly_the_inserted_citations_are_found(
    parts: list[tuple[str, tuple[list[Citation], str]]], tail: str
) -> None:
    """Nothing is invented: without other brackets the citations found are those written, once each."""
    text = "".join(filler + mark for filler, (_, mark) in parts) + tail
    inserted = [c for _, (cited, _) in parts for c in cited]
    assert extract_citations(text) == tuple(dict.fromkeys(inserted))
    assert extract_citations(text.replace("[", "")) == ()


@given(st.text(st.characters(exclude_characters="[")))
def test_text_without_brackets_cites_nothing(text: str) -> None:
    """A file:line mentioned in passing, outside brackets, is not a citation to check."""
    assert extract_citations(text) == ()
    assert extract_citations(text + " pkg/a.py:3 and (pkg/b.py:4-9)") == ()


@given(any_citations)
def test_a_citation_reads_back_as_itself(citation: Citation) -> None:
    """The JSON's citations and the answer's text name the same places."""
    assert extract_citations(str(citation)) == (citation,)
