"""Deprecated code as the code marks it (greploom.core.deprecation).

Laws:

1. A definition with none of the marks is never deprecated, whatever its
   doc and body say in passing ("the deprecated flag", a warning of another
   category, a deprecation warning inside a branch).
2. Each mark alone makes it so: a ``deprecated`` decorator (any module's),
   a ``@deprecated`` doc tag, a ``.. deprecated::`` directive, an unindented
   ``Deprecated:`` paragraph, Java's ``@Deprecated`` or Rust's
   ``#[deprecated]`` among a declaration's modifiers, and a Python body
   opening with a deprecation warning.
3. The note is one line, ``deprecated`` or ``deprecated: <reason>``, at most
   NOTE_CHARS of reason, and :func:`note_of` reads it back from a summary.
4. The successors a note names are names written as code (in backticks, or
   after "use" written like an identifier), never the definition's own; a
   successor's ranks (and backend scores) only ever improve from those of what
   it replaces, and no other candidate's change.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.deprecation import (
    NOTE_CHARS,
    PREFIX,
    Scores,
    deprecation,
    inherited_ranks,
    inherited_scores,
    note_of,
    successor_names,
)

words = st.sampled_from(("parse", "the", "value", "returns", "flag", "old", "deprecated", "warn", "x"))
prose = st.lists(words, max_size=12).map(" ".join)
body_lines = st.lists(
    st.sampled_from(("x = 1", "return x", "y = x + 1", "warnings.warn('slow', UserWarning)")), max_size=5
)


def python_def(docstring: str, body: list[str], first: str | None = None) -> str:
    lines = ["def f(x):", f'    """{docstring}"""']
    if first is not None:
        lines.append(f"    {first}")
    lines.extend(f"    {line}" for line in body or ["pass"])
    return "\n".join(lines)


@given(prose, body_lines, st.sampled_from(("property", "staticmethod", "functools.cache", "app.route('/')")))
def test_unmarked_code_is_not_deprecated(doc: str, body: list[str], decorator: str) -> None:
    """Law 1."""
    assume_doc = f"Return {doc}."  # prose that mentions the word never opens a paragraph with it
    source = python_def(assume_doc, [*body, "if x:", "    warnings.warn('x', DeprecationWarning)"])
    assert deprecation([decorator], assume_doc, source, python=True) is None
    assert deprecation([], assume_doc, "function f(x) { return x; }", python=False) is None


@given(prose, body_lines)
def test_each_mark_alone_deprecates(reason: str, body: list[str]) -> None:
    """Law 2 and law 3."""
    plain = python_def("Do it.", body)
    marks = [
        deprecation(["deprecated"], None, plain, python=True),
        deprecation([f"typing_extensions.deprecated('{reason}')"], None, plain, python=True),
        deprecation(["warnings.deprecated"], None, plain, python=True),
        deprecation([], f"Do it.\n\n.. deprecated:: 2.0\n   {reason}", plain, python=True),
        deprecation([], f"Do it.\n\nDeprecated: {reason}", None, python=False),
        deprecation([], f"Do it.\n * @deprecated {reason}", None, python=False),
        deprecation([], None, "@Deprecated\npublic void f() { run(); }", python=False),
        deprecation([], None, '#[deprecated(note = "x")]\npub fn f() { }', python=False),
        deprecation(
            [],
            None,
            python_def("Do it.", body, f"warnings.warn('{reason}', DeprecationWarning)"),
            python=True,
        ),
        deprecation(
            [], None, python_def("Do it.", body, "warn('old', category=MyDeprecatedSince2)"), python=True
        ),
    ]
    for note in marks:
        assert note is not None and "\n" not in note
        longest = len(PREFIX) + 2 + NOTE_CHARS
        assert note == PREFIX or (note.startswith(PREFIX + ": ") and len(note) <= longest)
        assert note_of(f"def f(x)\nDo it.\n{note}\ncalls: g") == note


def test_an_argument_s_deprecation_is_not_the_definition_s() -> None:
    """Law 1: an indented "Deprecated:" in an argument's description deprecates the argument,
    and so does a Sphinx directive whose body speaks of one (attrs' ``evolve``)."""
    doc = "Send it.\n\nArgs:\n    timeout: how long.\n        Deprecated: use timeouts."
    assert deprecation([], doc, None, python=True) is None
    evolve = "Create a new instance.\n\n.. deprecated:: 23.1.0\n   Passing *inst* as a keyword is deprecated."
    assert deprecation([], evolve, None, python=True) is None


def test_a_directive_says_its_body() -> None:
    """Law 3: a ``.. deprecated::`` directive's note is its version and its body (attrs' ``assoc``)."""
    doc = "Copy with changes.\n\n.. deprecated:: 17.1.0\n   Use `attrs.evolve` instead if you can.\n\nMore."
    note = deprecation([], doc, None, python=True)
    assert note == "deprecated: 17.1.0 Use `attrs.evolve` instead if you can."
    assert successor_names(note, "assoc") == ("evolve",)
    assert note_of("def send(timeout)\nSend it.\ncalls: deprecated_helper") is None


def test_a_note_names_its_successors() -> None:
    """Law 4: as pydantic, attrs and JSDoc write them."""
    pydantic = "deprecated: The `dict` method is deprecated; use `model_dump` instead."
    assert successor_names(pydantic, "dict") == ("model_dump",)
    attrs_note = "deprecated: Use attrs.validators.set_disabled() instead"
    assert successor_names(attrs_note, "f") == ("set_disabled",)
    assert successor_names("deprecated: use parse_v2", "parse") == ("parse_v2",)
    assert successor_names("deprecated: use the new API instead", "f") == ()
    assert successor_names("deprecated: `dict` is old", "dict") == ()


ranks = st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))


@given(st.dictionaries(st.sampled_from("abcdef"), ranks, min_size=1), st.data())
def test_successors_only_gain(pool: dict[str, tuple[int, int, int]], data: st.DataObject) -> None:
    """Law 4."""
    keys = sorted(pool)
    replaced = data.draw(st.dictionaries(st.sampled_from(keys), st.lists(st.sampled_from([*keys, "zz"]))))
    out = inherited_ranks(pool, replaced)
    assert set(out) == set(pool)
    successors = {s for old, news in replaced.items() for s in news if s != old}
    for key, (lex, vec, sym) in out.items():
        was = pool[key]
        if key not in successors:
            assert (lex, vec, sym) == was
        for now, before in zip((lex, vec, sym), was, strict=True):
            assert before == 0 or 0 < now <= before


scores = st.tuples(st.none() | st.floats(0.0, 1.0), st.none() | st.floats(0.0, 1.0))


@given(st.dictionaries(st.sampled_from("abcdef"), scores, min_size=1), st.data())
def test_successors_scores_only_gain(pool: dict[str, Scores], data: st.DataObject) -> None:
    """Law 4, for the scores a question fuses."""
    keys = sorted(pool)
    replaced = data.draw(st.dictionaries(st.sampled_from(keys), st.lists(st.sampled_from([*keys, "zz"]))))
    out = inherited_scores(pool, replaced)
    assert set(out) == set(pool)
    successors = {s for old, news in replaced.items() for s in news if s != old}
    for key, now in out.items():
        was = pool[key]
        if key not in successors:
            assert now == was
        for after, before in zip(now, was, strict=True):
            assert after == before if before is None else (after is not None and after >= before)
