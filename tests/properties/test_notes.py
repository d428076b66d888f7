"""Natural-language evidence in code: comments, prose strings, identifier words.

Laws:

1. The notes of any source never exceed the bound (joined as embedded).
2. Each note's words occur in the source, in order: notes are found, never made up.
3. Source holding no comment and no string literal gives no notes.
4. A comment or string that reads as prose, alone in a body, is its note; a
   ``#`` inside a string is not a comment.
5. An ASCII identifier's words are lower-case and, joined, spell its letters
   and digits in order.
6. The words a body uses are at most ``BODY_WORDS``, each once, each from an
   identifier of its code: never from a comment or a string (the notes carry
   those), never one of the known words.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.notes import BODY_WORDS, body_notes, body_words, identifier_words

prose_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
prose = st.lists(prose_word, min_size=2, max_size=12).map(" ".join)
code_line = st.sampled_from(
    ["x = 1", "return value", "for item in items:", "if a > b:", "call(a, b)", "pass", "y = x * 2"]
)


@st.composite
def python_sources(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["code", "comment", "string", "raw"]))
        if kind == "code":
            lines.append(draw(code_line))
        elif kind == "comment":
            lines.append(f"# {draw(prose)}")
        elif kind == "string":
            lines.append(f'raise ValueError("{draw(prose)}")')
        else:
            lines.append(draw(st.text(max_size=40)).replace("\n", " "))
    return "\n".join(lines)


@given(python_sources(), st.booleans(), st.integers(0, 400))
def test_notes_never_exceed_the_bound(source: str, python: bool, limit: int) -> None:
    """The embedded text stays within the model's reach however chatty the code."""
    assert len("; ".join(body_notes(source, python=python, limit=limit))) <= limit


@given(python_sources(), st.booleans())
def test_notes_are_found_in_the_source(source: str, python: bool) -> None:
    """A note is text the code holds, whitespace folded; nothing is invented."""
    folded = " ".join(source.split())
    for note in body_notes(source, python=python):
        pattern = r"\s*".join(re.escape(word) for word in note.split())
        assert re.search(pattern, folded), note


@given(st.lists(code_line, max_size=10).map("\n".join), st.booleans())
def test_code_alone_gives_no_notes(source: str, python: bool) -> None:
    """Statements are not prose: without comments or strings there is nothing to say."""
    assert body_notes(source, python=python) == ()


@given(prose)
def test_a_prose_comment_or_string_is_its_note(text: str) -> None:
    """What a body says in words is what gets embedded, in Python and in C-like code."""
    assert body_notes(f"x = 1  # {text}\n", python=True) == (text,)
    assert body_notes(f"x = 1; // {text}\n", python=False) == (text,)
    assert body_notes(f'fail("{text}")\n', python=True) == (text,)
    assert body_notes(f"fail('{text}'); /* {text} */\n", python=False) == (text,)
    assert body_notes(f'x = "a # {text}"\n', python=True) == (f"a # {text}",)


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}(\.[A-Za-z_][A-Za-z0-9_]{0,20}){0,3}", fullmatch=True))
def test_identifier_words_spell_the_name(qualname: str) -> None:
    """``HTTPAdapter.send`` reads as http adapter send: nothing added, nothing lost."""
    words = identifier_words(qualname)
    assert all(w and w == w.lower() for w in words)
    assert "".join(words) == "".join(c for c in qualname if c.isalnum()).lower()


@given(python_sources(), st.sets(prose_word, max_size=3))
def test_body_words_come_from_code_only(source: str, known: set[str]) -> None:
    """Law 6."""
    words = body_words(source, python=True, known=frozenset(known))
    assert len(words) <= BODY_WORDS and len(set(words)) == len(words)
    assert not set(words) & known
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    code = re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", " ", code)  # strings never span lines here
    assert all(re.search(rf"(?i){w}", code) for w in words)


def test_body_words_leave_out_what_every_body_uses() -> None:
    """Keywords, builtins and the definition's own words are not evidence; identifiers' parts are."""
    source = 'export const $ZodOptional = core.$constructor("$ZodOptional", (inst, def) => {\n'
    source += "  if (payload.value === undefined) return payload;\n"
    source += "  return def.innerType._zod.run(payload, ctx);\n});"
    words = body_words(source, python=False, known=frozenset({"zod", "optional"}))
    assert words == ("core", "constructor", "inst", "payload", "inner", "run", "ctx")
