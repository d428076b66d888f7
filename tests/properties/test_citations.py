"""Laws of citation extraction and checking (greploom.core.citations).

1. A citation built from any sent span, or from any range inside one, is
   never flagged: an answer that cites what it was shown is never accused.
2. A citation to a file not among the sent spans, or a reversed range, is
   always flagged.
3. A citation reaching past the last line sent of its file is flagged.
4. Verdicts do not depend on the order of the spans, nor on repeated spans.
5. Sending more spans never flags a citation that was valid.
6. Extraction finds every well-formed citation inserted into arbitrary
   text outside code; in text without ``[`` besides them it finds exactly
   them, in order, each once; in text without ``[`` it finds nothing; inside
   a fenced code block or an inline code span (one that is not itself a
   citation) it finds nothing, and a "path" with neither ``/`` nor ``.``
   (``x[i:3]``) is no citation.
7. ``str`` of a citation extracts back to that citation, and so do the other
   forms models write it in (``:line:col``, ``:L8``, ``#L8``, ``: 8``, ``8-``).
8. A citation of an absolute path ending, on a ``/`` boundary, with a sent
   file's path has that file's verdict; one ending with it past no ``/``
   boundary is flagged.
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
    st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,5}[./][A-Za-z0-9_./-]{0,6}", fullmatch=True),
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


# Prose: no backtick or tilde, so no code span or fence (those hide what they hold, law 6).
prose = st.text(st.characters(exclude_characters="`~"), max_size=20)
plain = st.text(st.characters(exclude_characters="[`~"), max_size=20)


@given(st.lists(st.tuples(prose, written), max_size=6), prose)
def test_every_inserted_citation_is_found(
    parts: list[tuple[str, tuple[list[Citation], str]]], tail: str
) -> None:
    """Whatever prose surrounds a citation (stray brackets, line breaks), the check must see it."""
    text = "".join(filler + mark for filler, (_, mark) in parts) + tail
    found = set(extract_citations(text))
    assert {c for _, (cited, _) in parts for c in cited} <= found


@given(st.lists(st.tuples(plain, written), max_size=6), plain)
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


# A fence and the one that closes it: as long as the opener or longer, the same character.
fences = st.sampled_from([("```", "```"), ("~~~~", "~~~~~"), ("```python", "````"), ("  ```", "```  ")])


@given(st.lists(written, min_size=1, max_size=3), plain, plain, fences)
def test_code_is_not_read_for_citations(
    marks: list[tuple[list[Citation], str]], before: str, after: str, fence: tuple[str, str]
) -> None:
    """Code (`items[start:10]`, a slice in a fenced block) is no citation of the context, however it reads."""
    text = " ".join(mark for _, mark in marks)
    opening, closing = fence
    span = f"{before} ``x = {text} + y`` {after}"
    block = f"{before}\n{opening}\n{text}\n{after}\n{closing}\n"
    unclosed = f"{before}\n{opening}\n{after}{text}"
    assert extract_citations(span) == () and extract_citations(block) == ()
    assert extract_citations(unclosed) == ()
    assert extract_citations(f"{block}{span}{text}") == extract_citations(text)


@given(any_citations)
def test_a_code_span_that_is_a_citation_is_read(citation: Citation) -> None:
    """Models wrap citations in backticks, inside the brackets or around them."""
    item = str(citation)[1:-1]
    assert extract_citations(f"see [`{item}`] and `{citation}`") == (citation,)


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True), st.integers(0, 10**9 - 1))
def test_a_name_without_slash_or_dot_is_no_path(name: str, line: int) -> None:
    """`x[i:3]`, `[start:10]`: slices and mappings, not files."""
    assert extract_citations(f"x[{name}:{line}] and [{name}:{line}-{line + 1}]") == ()


@given(any_citations, st.integers(1, 999), st.integers(1, 999))
def test_the_forms_models_write_read_as_the_citation(citation: Citation, col: int, end_col: int) -> None:
    """line:col, GitHub's L8 and #L8, a space after the colon, a dangling dash: the same place."""
    file, line, end = citation.file, citation.line, citation.end_line
    one = Citation(file, line, line)
    for form in (
        f"{file}:{line}:{col}",
        f"{file}:L{line}",
        f"{file}#L{line}",
        f"{file}: {line}",
        f"{file}:{line}-",
    ):
        assert extract_citations(f"[{form}]") == (one,), form
    for form in (f"{file}#L{line}-L{end}", f"{file}:{line}:{col}-{end}:{end_col}", f"{file}:L{line}-{end}"):
        assert extract_citations(f"[{form}]") == (Citation(file, line, end),), form


absolute_prefixes = st.from_regex(r"(/[a-z0-9_.-]{1,6}){0,3}", fullmatch=True)


@given(
    span_lists,
    st.lists(citations, min_size=1, max_size=6),
    absolute_prefixes,
    st.from_regex(r"[a-z]{1,3}", fullmatch=True),
)
def test_an_absolute_path_ending_with_a_sent_file_has_its_verdict(
    sent: list[Span], cited: list[Citation], prefix: str, glued: str
) -> None:
    """Models write the absolute path they guess at; it names the sent file it ends with, and no other."""
    relative = [c for c in cited if not c.file.startswith("/")]
    absolute = [Citation(f"{prefix}/{c.file}", c.line, c.end_line) for c in relative]
    assert verdicts(absolute, sent) == verdicts(relative, sent)
    unbounded = [Citation(f"{prefix}/{glued}{c.file}", c.line, c.end_line) for c in relative]
    assert not any(verdicts(unbounded, sent))
