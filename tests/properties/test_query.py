"""A query, read once.

Laws:

1. Reading is deterministic and total: any text (empty, huge, non-ASCII,
   with NULs, pasted tracebacks) reads without raising, to the same value
   every time.
2. The kind is a symbol exactly when the text looks like one, as
   ``query_kind`` said before the query was read once.
3. The match expression is the empty phrase exactly when there are no
   tokens; tokens and expression are those ``query_tokens`` and
   ``fts_match_expression`` give.
4. The places are those ``query_locations`` gives, the symbols those
   ``named_symbols`` gave; the ranking words and the focus terms are those
   the ranking and focus read from the text before.
5. Reading is all the text is for: ranking, scoring and focusing a read
   query is the same as doing it with the text.

The oracles below are the reading functions as they were before the query
was read once (kept verbatim, so a change to what a query says fails here).
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from greploom.core.focus import FocusQuery, query_terms, stem
from greploom.core.lexical import (
    MAX_QUERY_TOKENS,
    STOPWORDS,
    fts_match_expression,
    identifier_tokens,
    query_tokens,
)
from greploom.core.locations import query_locations
from greploom.core.query import Query, QueryKind, read_query
from greploom.core.ranking import Candidate, named_symbols, query_kind, rank_candidates, score_candidate

# --- the readers before the query was read once (oracles) ---------------------------------

_OLD_SYMBOLISH = re.compile(r"^[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*(?:\(\))?$")


def old_query_kind(text: str) -> QueryKind:
    stripped = text.strip()
    if _OLD_SYMBOLISH.match(stripped) and (
        "_" in stripped
        or "." in stripped
        or "(" in stripped
        or any(c.isupper() for c in stripped[1:])
        or len(stripped.split()) == 1
    ):
        return QueryKind.SYMBOL
    return QueryKind.NATURAL


def old_named_symbols(query: str) -> tuple[str, ...]:
    words = [w.strip(".:#") for w in re.findall(r"[\w$.:#()]+", query)]
    if old_query_kind(query) is QueryKind.NATURAL:
        words = [w for w in words if re.search(r"[_.:#(]|[a-z][A-Z]", w)]
    dotted = (w.rstrip("()").replace("::", ".").replace("#", ".") for w in words)
    return tuple(dict.fromkeys(d for d in dotted if d))


def old_query_tokens(text: str) -> tuple[str, ...]:
    tokens = tuple(dict.fromkeys(identifier_tokens(text)))
    meaningful = tuple(t for t in tokens if t not in STOPWORDS)
    return (meaningful or tokens)[:MAX_QUERY_TOKENS]


def old_match_expression(text: str) -> str:
    tokens = old_query_tokens(text)
    if not tokens:
        return '""'
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def old_words(text: str) -> frozenset[str]:
    return frozenset(t for t in identifier_tokens(text) if t not in STOPWORDS)


def old_query_terms(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in identifier_tokens(text) if t not in STOPWORDS and len(t) >= 3)


# --- what agents type ---------------------------------------------------------------------

segment = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,8}", fullmatch=True)
symbolish = st.tuples(
    st.lists(segment, min_size=1, max_size=4),
    st.sampled_from((".", "::", "#", ":")),
    st.sampled_from(("", "()", ".", "?", " ")),
    st.sampled_from(("", " ", "  \n")),
).map(lambda t: t[3] + t[1].join(t[0]) + t[2] + t[3])
place = st.one_of(
    st.tuples(
        st.sampled_from(("adapters.py", "src/app.py", "/venv/lib/requests/sessions.py", "lib\\cmd.js")),
        st.integers(-1, 5000),
        st.sampled_from(("", ":9", ":")),
        st.sampled_from(("", "(", "`", '"')),
        st.sampled_from(("", ")", ".", "?", ",")),
    ).map(lambda t: f"{t[3]}{t[0]}:{t[1]}{t[2]}{t[4]}"),
    st.tuples(st.sampled_from(("/a/b/c.py", "x.py", "pkg/m.py")), st.integers(0, 999), segment).map(
        lambda t: f'File "{t[0]}", line {t[1]}, in {t[2]}'
    ),
    st.sampled_from(("sessions.py", "e.g.", "...", "Session.send", "a/", "./x")),
)
word = st.one_of(
    st.sampled_from(sorted(STOPWORDS)),
    st.sampled_from(("retry", "backoff", "computed", "getValue", "HTTPServerError", "parse_url", "send()")),
    segment,
    symbolish,
    place,
    st.text(max_size=6),
)
queries = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
    symbolish,
    place,
    st.lists(word, max_size=12).flatmap(
        lambda ws: st.sampled_from((" ", "\n", ", ")).map(lambda s: s.join(ws))
    ),
)
PASTED = "\n".join(
    f'  File "/venv/lib/pkg/m{i}.py", line {i + 1}, in f_{i}\n    x = Obj{i}.call_{i}(ä, "\x00")  # 割引 ûñï'
    for i in range(3000)
)
HUGE = ("where is the retry backoff computed? parse_url Session.send a.py:12 \x00 ünïcødé 割引 " * 3000)[
    :200_000
]
SPECIAL = (
    "",
    " ",
    "\x00",
    "\x00\x00 a\x00b",
    "\u200b",
    "🙂",
    "\ud7ff",
    PASTED,
    HUGE,
    '"',
    "()",
    "::",
    "$",
    "a" * 10_000,
)


# --- laws ---------------------------------------------------------------------------------


@given(queries)
@example("")
@example("\x00")
@example(PASTED)
@example(HUGE)
def test_reading_is_deterministic_and_total(text: str) -> None:
    """Any text reads, and reads to the same value; the text is kept as given."""
    read = read_query(text)
    assert isinstance(read, Query)
    assert read == read_query(text)
    assert read.text == text


def test_special_texts_read() -> None:
    """Empty, NULs, zero-width spaces, emoji, a pasted traceback of 3,000 frames, 200,000 characters."""
    for text in SPECIAL:
        read = read_query(text)
        assert read == read_query(text)
        assert len(read.tokens) <= MAX_QUERY_TOKENS


@given(queries)
@example("Session.send")
@example("how does Session.send work")
@example("  parse_url()  ")
@example("Foo::bar#baz")
@example("retry")
def test_the_kind_is_a_symbol_exactly_when_it_was(text: str) -> None:
    """The kind is a symbol exactly when the text looks like one, as ``query_kind`` said."""
    read = read_query(text)
    assert read.kind is old_query_kind(text) is query_kind(text)
    assert (read.kind is QueryKind.SYMBOL) == (old_query_kind(text) is QueryKind.SYMBOL)


@given(queries)
@example("")
@example("the and of")
@example("\x00 ... ???")
def test_the_expression_is_empty_exactly_when_there_are_no_tokens(text: str) -> None:
    """No tokens, the empty phrase (it matches nothing); tokens, their quoted OR."""
    read = read_query(text)
    assert (read.match == '""') == (not read.tokens)
    assert read.tokens == query_tokens(text) == old_query_tokens(text)
    assert read.match == fts_match_expression(text) == old_match_expression(text)


@given(queries)
@example('Traceback:\n  File "/a/b/shop/cart.py", line 30, in total\nValueError')
@example("see (cart.py:41:12)? and net.py")
@example("how does Session.send call parse_url()")
def test_places_symbols_words_and_terms_are_those_read_before(text: str) -> None:
    """Each field is what its reader gave for the text alone."""
    read = read_query(text)
    assert read.places == query_locations(text)
    assert read.symbols == named_symbols(text) == old_named_symbols(text)
    assert read.words == old_words(text)
    assert read.terms == query_terms(text) == old_query_terms(text)


names = st.sampled_from(("send", "parse_url", "Session", "get_adapter", "retry", "backoff_delay"))
files = st.sampled_from(("pkg/sessions.py", "pkg/utils.py", "tests/test_utils.py", "pkg/types.d.ts"))
candidates = st.builds(
    lambda key, name, parent, file, ranks, kind: Candidate(
        f"k{key}", name, f"{parent}.{name}", file, ranks[0], ranks[1], ranks[2], ranks[3], kind
    ),
    st.integers(0, 40),
    names,
    st.sampled_from(("pkg", "pkg.Session", "pkg.utils")),
    files,
    st.tuples(*(st.integers(0, 12) for _ in range(4))),
    st.sampled_from(("function", "class", "interface", "type")),
)


@given(st.one_of(queries, names, st.sampled_from(("Session.send", "where is the retry type declared"))))
def test_reading_is_all_the_text_is_for(text: str) -> None:
    """Ranking, scoring and focusing a read query is the same as doing it with its text."""
    pool = [Candidate("k1", "send", "pkg.Session.send", "pkg/sessions.py", 1, 2, 1, 0, "function")]
    read = read_query(text)
    assert rank_candidates(read, pool) == rank_candidates(text, pool)
    assert score_candidate(read, pool[0]) == score_candidate(text, pool[0])
    places = (("k1", 3), ("k2", 9))
    assert FocusQuery.of(read, places) == FocusQuery.of(text, places)


@given(
    st.sampled_from(("Session.send", "retry backoff", "send", "types of send", "tests/test_utils.py:3")),
    st.lists(candidates, max_size=12),
)
def test_a_read_query_ranks_any_pool_as_its_text(text: str, pool: list[Candidate]) -> None:
    """The same order and the same scores, whatever the pool."""
    assert rank_candidates(read_query(text), pool) == rank_candidates(text, pool)
