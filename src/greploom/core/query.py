"""A query, read once: everything the later steps take from its text, as one value.

The text of a query says several things: the tokens BM25 searches for (and
the FTS5 expression that searches them), the places it points at
(``adapters.py:412``, a traceback's frames), the definitions it names
(``Session.send``), whether it reads as a symbol or as a question, the words
the ranking signals compare with names and paths, and the terms a big hit is
focused on. :func:`read_query` reads all of them at once into a
:class:`Query`; the shell gathers candidates for that value (searches, looks
up the names and places), and the core ranks, focuses and packs with it.
Nothing downstream reads the text again.

Each field is what its reading function gives for the text alone:
``query_tokens`` and ``fts_match_expression`` (greploom.core.lexical),
``query_locations`` (greploom.core.locations), :func:`named_symbols`,
:func:`query_kind` and :func:`signal_words` (here), ``query_terms``
(greploom.core.focus); the text is tokenized once for all of them.

Laws (tests/properties/test_query.py): reading is deterministic and total
(any text, empty, huge, non-ASCII or with NULs, reads without raising); the
kind is a symbol exactly when the text looks like one; the match expression
is the empty phrase exactly when there are no tokens; the places, symbols,
tokens and terms are those the reading functions give.
"""

from __future__ import annotations

import enum
import re

import attrs

from greploom.core.focus import focus_terms
from greploom.core.lexical import STOPWORDS, identifier_tokens, match_expression, search_tokens
from greploom.core.locations import Location, query_locations

_SYMBOLISH = re.compile(r"^[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*(?:\(\))?$")


class QueryKind(str, enum.Enum):
    """How a query reads: a symbol to look up, or a question in words."""

    SYMBOL = "symbol"
    NATURAL = "natural"


def query_kind(text: str) -> QueryKind:
    """Symbol-like: one token that looks like an identifier, dotted path or call."""
    stripped = text.strip()
    if _SYMBOLISH.match(stripped) and (
        "_" in stripped
        or "." in stripped
        or "(" in stripped
        or any(c.isupper() for c in stripped[1:])
        or len(stripped.split()) == 1
    ):
        return QueryKind.SYMBOL
    return QueryKind.NATURAL


def _identifier_like(word: str) -> bool:
    return bool(re.search(r"[_.:#(]|[a-z][A-Z]", word))


def named_symbols(query: str) -> tuple[str, ...]:
    """The symbols a query names, as written but dotted (``Session.send``), in query order.

    In a symbol query any word counts; in a question only words written like
    identifiers (``parse_url``, ``Session.send``, ``getValue``): "session" in
    "where are redirects followed for a session" names no definition.
    """
    return _named_symbols(query, query_kind(query))


def _named_symbols(query: str, kind: QueryKind) -> tuple[str, ...]:
    # Sentence punctuation is not part of a name: "... and command." names nothing.
    words = [w.strip(".:#") for w in re.findall(r"[\w$.:#()]+", query)]
    if kind is QueryKind.NATURAL:
        words = [w for w in words if _identifier_like(w)]
    dotted = (w.rstrip("()").replace("::", ".").replace("#", ".") for w in words)
    return tuple(dict.fromkeys(d for d in dotted if d))


def signal_words(text: str) -> frozenset[str]:
    """The words the ranking signals compare with names and paths: tokens, stopwords left out."""
    return frozenset(t for t in identifier_tokens(text) if t not in STOPWORDS)


@attrs.frozen
class Query:
    """What a query's text says, read once (:func:`read_query`).

    ``text``: as given (the embedder reads it whole); ``tokens``: for BM25,
    distinct, stopwords dropped unless nothing else is left; ``match``: the
    FTS5 expression searching them; ``places``: the ``path:line`` places and
    files it points at, innermost frame first; ``symbols``: the definitions
    it names, in query order; ``kind``: symbol or question; ``words``: what
    the ranking signals compare with names and paths; ``terms``: the stems a
    big hit is focused on.
    """

    text: str
    tokens: tuple[str, ...]
    match: str
    places: tuple[Location, ...]
    symbols: tuple[str, ...]
    kind: QueryKind
    words: frozenset[str]
    terms: frozenset[str]


def read_query(text: str) -> Query:
    """Read a query's text once, for every later step. Total: any text reads."""
    kind = query_kind(text)
    # One tokenization for the tokens, the signal words and the focus terms (each
    # of these is a set or keeps first occurrences, so repeats change none of them).
    distinct = tuple(dict.fromkeys(identifier_tokens(text)))
    tokens = search_tokens(distinct)
    return Query(
        text=text,
        tokens=tokens,
        match=match_expression(tokens),
        places=query_locations(text),
        symbols=_named_symbols(text, kind),
        kind=kind,
        words=frozenset(t for t in distinct if t not in STOPWORDS),
        terms=focus_terms(distinct),
    )


def as_query(query: str | Query) -> Query:
    """A query value: text is read (once, here, at the entry of a public function)."""
    return read_query(query) if isinstance(query, str) else query
