"""Identifier-aware tokens for BM25, and query text turned into a safe FTS5 expression.

Code is searched by names people split in their heads: ``apply_discount`` is
also ``apply`` and ``discount``; ``HTTPServerError`` is also ``http``,
``server`` and ``error``; ``shop.pricing`` is also ``shop`` and ``pricing``.
:func:`identifier_tokens` emits, for every word of a text, the whole word
lower-cased and then its dotted, snake_case and camelCase parts. Documents and
queries go through the same function, and the FTS5 table stems both sides
with its porter tokenizer, so a query for any part finds the whole.

Query text is data, never syntax: :func:`fts_match_expression` quotes every
token as an FTS5 string (doubling any quote) and joins them with ``OR``, so
operators, quotes, parentheses and column filters in the text mean nothing.

Laws (tests/properties/test_lexical.py): every part of an identifier is
among its tokens; tokens are lower-case and non-empty; a query for a part
finds the document holding the identifier; the expression for any string is
accepted by a real FTS5 table.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Sequence

# A word: letters, digits and underscores, optionally joined by dots (a.b.c).
_WORD = re.compile(r"[^\W\d][\w]*(?:\.[^\W\d][\w]*)*|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
MAX_QUERY_TOKENS = 64  # keeps pathological queries (a pasted file) cheap for FTS5
# Segments remembered by _segment_parts. Names repeat across a code base, and a
# qualified name repeats every segment of its parent's: a definition nested 1,000
# deep splits its 1,000 enclosing names again. Bounded, so memory stays flat.
SEGMENT_CACHE = 1 << 16

# Words that carry no signal in questions agents ask ("where is the ... done").
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    )
)


def word_pieces(text: str) -> tuple[str, ...]:
    """The camelCase/snake_case/dotted pieces of a text, lower-cased, in order (no wholes)."""
    return tuple(p.lower() for p in _CAMEL.findall(text))


@functools.lru_cache(maxsize=SEGMENT_CACHE)
def _segment_parts(dotted: str) -> tuple[str, ...]:
    """The snake and camel pieces of one dot-free segment, lower-cased (a pure function)."""
    parts: list[str] = []
    for snake in dotted.split("_"):
        if not snake:
            continue
        if snake != dotted:
            parts.append(snake.lower())
        pieces = _CAMEL.findall(snake)
        if len(pieces) > 1:
            parts.extend(p.lower() for p in pieces)
    return tuple(parts)


def identifier_parts(word: str) -> tuple[str, ...]:
    """The parts of one identifier, lower-cased: dotted, then snake, then camel pieces."""
    parts: list[str] = []
    dotted_word = "." in word
    for dotted in word.split("."):
        if not dotted:
            continue
        if dotted_word:
            parts.append(dotted.lower())
        parts.extend(_segment_parts(dotted))
    return tuple(parts)


def _iter_tokens(text: str) -> Iterator[str]:
    """The tokens of :func:`identifier_tokens`, one at a time, so a caller may stop early."""
    for match in _WORD.finditer(text):
        word = match.group(0)
        whole = word.lower()
        yield whole
        if "." in word:  # no part of a dotted word holds a dot, so none equals the whole
            yield from identifier_parts(word)
        else:
            yield from (p for p in identifier_parts(word) if p != whole)


def identifier_tokens(text: str) -> tuple[str, ...]:
    """Tokens of a text for BM25: each word whole, then its parts (order kept, repeats kept)."""
    return tuple(_iter_tokens(text))


# Keywords and names every body has: indexing them would only add noise.
CODE_STOPWORDS = frozenset(
    (
        "self",
        "cls",
        "def",
        "return",
        "if",
        "else",
        "elif",
        "for",
        "while",
        "in",
        "is",
        "not",
        "and",
        "or",
        "none",
        "true",
        "false",
        "import",
        "from",
        "as",
        "class",
        "try",
        "except",
        "finally",
        "raise",
        "with",
        "pass",
        "lambda",
        "yield",
        "await",
        "async",
        "const",
        "let",
        "var",
        "function",
        "this",
        "new",
        "null",
        "undefined",
        "typeof",
        "of",
        "the",
        "a",
        "to",
    )
)
MAX_CODE_TOKENS = 2000  # per node: enough for a long function, bounded for generated code


def code_tokens(source: str) -> tuple[str, ...]:
    """Tokens of a body for BM25: identifier-aware, keywords dropped, bounded.

    Tokenizing stops at the bound: an enclosing definition's source holds every
    nested one, so reading all of it would cost each nesting level again.
    """
    kept = (t for t in _iter_tokens(source) if t not in CODE_STOPWORDS and len(t) > 1)
    return tuple(itertools.islice(kept, MAX_CODE_TOKENS))


def query_tokens(text: str) -> tuple[str, ...]:
    """Distinct tokens of a query, stopwords dropped unless nothing else is left."""
    return search_tokens(tuple(dict.fromkeys(identifier_tokens(text))))


def search_tokens(distinct: Sequence[str]) -> tuple[str, ...]:
    """The tokens searched for, of a query's distinct tokens (in order): stopwords dropped
    unless nothing else is left, at most ``MAX_QUERY_TOKENS``."""
    meaningful = tuple(t for t in distinct if t not in STOPWORDS)
    return (meaningful or tuple(distinct))[:MAX_QUERY_TOKENS]


def fts_quote(token: str) -> str:
    """One FTS5 string literal: double quotes around, inner quotes doubled."""
    return '"' + token.replace('"', '""') + '"'


def fts_match_expression(text: str) -> str:
    """An FTS5 MATCH expression for any query text: its tokens, quoted, OR-ed.

    Text with no tokens gives ``""``, an empty phrase that FTS5 accepts and
    that matches nothing.
    """
    return match_expression(query_tokens(text))


def match_expression(tokens: Sequence[str]) -> str:
    """The FTS5 MATCH expression searching any of ``tokens`` (``""``, matching nothing, for none)."""
    if not tokens:
        return '""'
    return " OR ".join(fts_quote(t) for t in tokens)
