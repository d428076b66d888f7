"""Which definitions a symbol names: by name or qualified name, in smart case.

A symbol (``Session.send``, ``flask``, ``Engine``) names a definition by its
name, its qualified name or a dotted suffix of it. Smart case, as in ripgrep
or vim: a symbol all in lower case matches in any case; one with a capital
matches its case only. Used by the ranking's definition boost
(greploom.core.ranking) and the store's name lookup (greploom.shell.store_rows).

A question in words names a module-level name by its words instead
(:func:`worded`): "the status code for closing a websocket on a policy
violation" says two of ``WS_1008_POLICY_VIOLATION``'s, "config keys that were
renamed between v1 and v2" three of ``V2_RENAMED_KEYS``'s.

Laws (tests/properties/test_ranking.py, law 7): a definition is named by its
name and by its qualified name (or a dotted suffix of it), as written or all
in lower case; a symbol with a capital names only definitions in that case;
the lookup keeps exactly the named definitions, whole qualified names first,
shallower ones next. tests/properties/test_naming.py: a name is worded only by
WORDED_MIN of its words or more; saying more of its words never ranks it
lower; the order of the rows does not matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from greploom.core.focus import stem
from greploom.core.lexical import STOPWORDS, identifier_parts

# Words of a module-level name a question must say for it to name that name: one shared
# word ("cache", "version") matches half a code base's constants.
WORDED_MIN = 2
WORDED_SHARE = 0.5  # ... and at least this share of them


def matches_symbol(symbol: str, name: str, qualname: str) -> bool:
    """Whether a definition is the one ``symbol`` names: its name, its qualname or a dotted suffix.

    Smart case, as in ripgrep or vim: a symbol written all in lower case
    matches in any case (``flask`` names class Flask); one with a capital
    matches its case only (``Engine`` names class Engine, not module engine).
    """
    qual = _as_written_for(symbol, qualname)
    return symbol in (_as_written_for(symbol, name), qual) or qual.endswith("." + symbol)


def spelled(symbol: str, name: str, qualname: str) -> bool:
    """Whether a definition is named by ``symbol`` exactly as written, case and all: ``flow``
    spells function ``flow``, and names ``FLOW`` and ``Flow`` only by smart case."""
    return symbol in (name, qualname) or qualname.endswith("." + symbol)


def folds_case(symbol: str) -> bool:
    """Whether a symbol matches in any case: it has no capital (smart case)."""
    return not any(c.isupper() for c in symbol)


def _as_written_for(symbol: str, text: str) -> str:
    """``text`` in the case ``symbol`` compares in: lower case when the symbol folds case
    (a symbol that folds case is already all lower case)."""
    return text.lower() if folds_case(symbol) else text


def order_named(symbols: Sequence[str], rows: Iterable[tuple[str, str, str]]) -> tuple[str, ...]:
    """The keys of the ``(key, name, qualname)`` rows some symbol names, best first.

    A whole qualified name before a name or dotted suffix, then shallower
    definitions (the class before a method of the same name), then by key.
    """
    # matches_symbol for every symbol, with each row's case folded once (the lookup of a
    # legacy candidate's namesakes runs it on every row of eight names).
    forms = [(s, folds_case(s), "." + s) for s in symbols]
    named = []
    for key, name, qualname in rows:
        lower_name, lower_qual = name.lower(), qualname.lower()
        matched = whole = False
        for symbol, fold, suffix in forms:
            as_name, as_qual = (lower_name, lower_qual) if fold else (name, qualname)
            whole = whole or symbol == as_qual
            matched = matched or whole or symbol == as_name or as_qual.endswith(suffix)
        if matched:
            named.append((not whole, qualname.count("."), key))
    return tuple(key for *_, key in sorted(named))


def name_stems(name: str) -> frozenset[str]:
    """The stems (greploom.core.focus.stem) of a name's words: ``V2_RENAMED_KEYS`` -> v2, rena, keys."""
    return frozenset(stem(p) for p in identifier_parts(name) if p not in STOPWORDS and len(p) >= 2)


def said_stems(words: frozenset[str]) -> frozenset[str]:
    """The stems of a question's words a name's words are compared with (short words left out,
    unless they hold a digit: ``v2``)."""
    return frozenset(stem(w) for w in words if len(w) >= 3 or any(c.isdigit() for c in w))


def _says(said: frozenset[str], parts: frozenset[str]) -> int:
    """How many of a name's word stems ``parts`` are said, when enough are to name it (else 0)."""
    shared = len(parts & said)
    return shared if shared >= WORDED_MIN and shared >= WORDED_SHARE * len(parts) else 0


def says_name(words: frozenset[str], name: str) -> bool:
    """Whether a question's ``words`` say ``name`` by its words, as :func:`worded` reads them."""
    return _says(said_stems(words), name_stems(name)) > 0


def worded(words: frozenset[str], rows: Iterable[tuple[str, str, int]]) -> tuple[tuple[str, int], ...]:
    """``(key, line)`` of the module-level names (``(key, name, line)`` rows) a question's
    ``words`` say at least :data:`WORDED_MIN` words of: most words said first, then the
    larger share of the name said, then by key and line; each module once, at its best."""
    said = said_stems(words)
    scored = []
    for key, name, line in rows:
        parts = name_stems(name)
        shared = _says(said, parts)
        if shared:
            scored.append((-shared, -shared / len(parts), key, line))
    best: dict[str, int] = {}
    for *_, key, line in sorted(scored):
        best.setdefault(key, line)
    return tuple(best.items())
