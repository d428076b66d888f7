"""Natural-language evidence inside code: comments, prose string literals, identifier words.

Much code has no docstring. What still says, in words, what it does is in
its comments (``# retry with exponential backoff``), its messages
(``raise InvalidURL("URL too long")``) and its names (``CookieConflict`` is
"cookie conflict"). An embedding model trained on prose reads those better
than the identifiers around them, so the text a definition is embedded with
carries them (see :mod:`greploom.core.summary`); readers never see them, and
BM25 already indexes the whole body.

:func:`body_notes` scans source text with one regular expression per
language family, which knows strings from comments (so a ``#`` inside a
string is not a comment), keeps comments and string literals that read as
prose (two or more words), drops tool pragmas (``noqa``, ``type: ignore``,
``eslint-disable``...), de-duplicates, and stops at a character bound.

Laws (tests/properties/test_notes.py): notes never exceed the bound; each
note's words are found in the source, in order; a text holding no comment
or string gives no notes; an identifier's words are lower-case and spell
its letters and digits in order.
"""

from __future__ import annotations

import re

from greploom.core.lexical import word_pieces

NOTES_CHARS = 300  # bound on the notes embedded per definition (the model reads 256 word pieces)
# Only the start of a body is scanned: the notes come from its first few hundred
# characters of prose anyway, and an unclosed ``/*`` repeated through a huge
# hand-made source would otherwise cost time quadratic in its length.
SCAN_CHARS = 10_000

_PY_SCAN = re.compile(
    r"""(?P<str>[rRbBuUfF]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))"""
    r"""|(?P<comment>\#[^\n]*)"""
)
_C_SCAN = re.compile(
    r"""(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)"""
    r"""|(?P<comment>//[^\n]*|/\*[\s\S]*?\*/)"""
)
_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")
_PRAGMA = re.compile(
    r"^\s*(noqa|type:|pragma|pylint:|fmt:|mypy:|isort:|eslint|prettier|ts-|istanbul|jshint|@ts-|c8 )",
    re.IGNORECASE,
)
_WORDISH = re.compile(r"[A-Za-z]{2,}")


def _clean(text: str) -> str:
    return " ".join(text.split())


def _unquote(literal: str) -> str:
    body = _PREFIX.sub("", literal, count=1)
    for quote in ('"""', "'''", '"', "'", "`"):
        if body.startswith(quote) and body.endswith(quote) and len(body) >= 2 * len(quote):
            return body[len(quote) : -len(quote)]
    return body


def _comment_text(comment: str) -> str:
    if comment.startswith("/*"):
        inner = comment[2:-2] if comment.endswith("*/") else comment[2:]
        return " ".join(line.strip().lstrip("*").strip() for line in inner.splitlines())
    return comment.lstrip("#/").strip()


def _prose(text: str) -> bool:
    return len(_WORDISH.findall(text)) >= 2 and not _PRAGMA.match(text)


def body_notes(source: str, *, python: bool, limit: int = NOTES_CHARS) -> tuple[str, ...]:
    """Comments and prose string literals of ``source``, in order, within ``limit`` characters.

    Repeats are said once. The note that reaches the bound is cut at a word
    boundary and ends the notes.
    """
    scanner = _PY_SCAN if python else _C_SCAN
    notes: list[str] = []
    seen: set[str] = set()
    used = 0
    for match in scanner.finditer(source[:SCAN_CHARS]):
        raw = match.group("str")
        text = _clean(_unquote(raw) if raw is not None else _comment_text(match.group("comment")))
        if not text or text in seen or not _prose(text):
            continue
        seen.add(text)
        room = limit - used - (2 if notes else 0)
        if len(text) > room:
            cut = text[: room + 1].rsplit(" ", 1)[0] if room > 0 else ""
            if _prose(cut):
                notes.append(cut)
            break
        notes.append(text)
        used += len(text) + (2 if len(notes) > 1 else 0)
    return tuple(notes)


def identifier_words(qualname: str) -> tuple[str, ...]:
    """The words of a qualified name: ``Session.resolve_redirects`` -> session, resolve, redirects."""
    return word_pieces(qualname)


BODY_WORDS = 24  # words of the identifiers a body uses, embedded for undocumented code
# Names every body of these languages uses: they say nothing about this one.
_COMMON_WORDS = frozenset(
    (
        "str",
        "int",
        "bool",
        "float",
        "bytes",
        "list",
        "dict",
        "set",
        "tuple",
        "object",
        "none",
        "true",
        "false",
        "null",
        "undefined",
        "this",
        "self",
        "cls",
        "len",
        "range",
        "print",
        "type",
        "isinstance",
        "super",
        "init",
        "new",
        "var",
        "let",
        "const",
        "function",
        "return",
        "async",
        "await",
        "void",
        "string",
        "number",
        "boolean",
        "any",
        "unknown",
        "never",
        "array",
        "map",
        "promise",
        "error",
        "console",
        "log",
        "value",
        "args",
        "kwargs",
        "export",
        "import",
        "from",
        "def",
        "class",
        "else",
        "elif",
        "while",
        "for",
        "try",
        "catch",
        "finally",
        "throw",
        "raise",
        "with",
        "yield",
        "pass",
        "break",
        "continue",
        "switch",
        "case",
        "default",
        "static",
        "public",
        "private",
        "protected",
        "extends",
        "implements",
        "interface",
        "enum",
        "struct",
        "impl",
        "pub",
        "mut",
        "use",
        "mod",
        "func",
        "package",
        "defer",
        "select",
        "chan",
        "lambda",
        "global",
        "nonlocal",
        "assert",
        "del",
        "not",
        "and",
        "typeof",
        "instanceof",
        "delete",
    )
)
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def body_words(source: str, *, python: bool, known: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The words of the identifiers a body uses, in order of first use: each identifier's
    parts (``def.innerType._zod.run`` gives inner, type, zod, run), without its comments
    and strings (the notes carry those), without ``known`` words (the definition's name
    and signature) and without names every body uses (``str``, ``this``, ``return``)."""
    scanner = _PY_SCAN if python else _C_SCAN
    code = scanner.sub(" ", source[:SCAN_CHARS])
    out: dict[str, None] = {}
    for identifier in _IDENTIFIER.findall(code):
        for word in word_pieces(identifier):
            if len(word) < 3 or not word.isalpha() or word in known or word in _COMMON_WORDS or word in out:
                continue
            out[word] = None
            if len(out) >= BODY_WORDS:
                return tuple(out)
    return tuple(out)
