"""Identifier-aware tokens and safe FTS5 expressions.

Laws:

1. Every part of an identifier (dotted, snake_case, camelCase) is among its
   tokens, and so is the whole identifier, lower-cased.
2. Tokens are non-empty and lower-case.
3. A query for any part finds, in a real FTS5 table, the document that holds
   the identifier (metamorphic: splitting a name never hides it).
4. The expression built from any string (quotes, operators, unicode, empty)
   is accepted by a real FTS5 table.
"""

from __future__ import annotations

import apsw
import pytest
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.lexical import fts_match_expression, identifier_parts, identifier_tokens
from greploom.shell.schema import FTS_TOKENIZER

word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
snake = st.lists(word, min_size=1, max_size=3).map("_".join)
camel = st.lists(word, min_size=1, max_size=3).map(lambda ws: ws[0] + "".join(w.title() for w in ws[1:]))
identifiers = st.lists(st.one_of(snake, camel), min_size=1, max_size=3).map(".".join)


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(f'CREATE VIRTUAL TABLE t USING fts5(body, tokenize="{FTS_TOKENIZER}")')
    return conn


@given(identifiers)
def test_every_part_is_a_token(name: str) -> None:
    """Whoever remembers a piece of a name must be able to search by it."""
    tokens = set(identifier_tokens(name))
    assert name.lower() in tokens
    for dotted in name.split("."):
        assert dotted.lower() in tokens
        for part in dotted.split("_"):
            assert part.lower() in tokens
    assert set(identifier_parts(name)) <= tokens


@given(st.text(max_size=60))
def test_tokens_are_lowercase_and_nonempty(text: str) -> None:
    """Case never decides a match, and empty tokens would be noise."""
    for token in identifier_tokens(text):
        assert token and token == token.lower()


@given(identifiers, st.data())
def test_a_part_finds_the_whole(fts: apsw.Connection, name: str, data: st.DataObject) -> None:
    """A query for ``discount`` finds ``apply_discount`` through the real index."""
    with fts:
        fts.execute("DELETE FROM t")
        fts.execute("INSERT INTO t(rowid, body) VALUES (1, ?)", (" ".join(identifier_tokens(name)),))
    part = data.draw(st.sampled_from((name, *identifier_parts(name))))
    rows = list(fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (fts_match_expression(part),)))
    assert rows == [(1,)]


@given(
    st.one_of(
        st.text(),
        st.sampled_from(['"', '"a" OR b', "NOT AND", "a*", "col:x", "(x", "NEAR(a b)", ""]),
    )
)
def test_any_text_is_a_valid_expression(fts: apsw.Connection, text: str) -> None:
    """Query text is data: nothing a user types can be an FTS5 syntax error."""
    list(fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (fts_match_expression(text),)))
