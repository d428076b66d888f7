"""Which definitions a symbol names: by name or qualified name, in smart case.

A symbol (``Session.send``, ``flask``, ``Engine``) names a definition by its
name, its qualified name or a dotted suffix of it. Smart case, as in ripgrep
or vim: a symbol all in lower case matches in any case; one with a capital
matches its case only. Used by the ranking's definition boost
(greploom.core.ranking) and the store's name lookup (greploom.shell.store_rows).

Laws (tests/properties/test_ranking.py, law 7): a definition is named by its
name and by its qualified name (or a dotted suffix of it), as written or all
in lower case; a symbol with a capital names only definitions in that case;
the lookup keeps exactly the named definitions, whole qualified names first,
shallower ones next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def matches_symbol(symbol: str, name: str, qualname: str) -> bool:
    """Whether a definition is the one ``symbol`` names: its name, its qualname or a dotted suffix.

    Smart case, as in ripgrep or vim: a symbol written all in lower case
    matches in any case (``flask`` names class Flask); one with a capital
    matches its case only (``Engine`` names class Engine, not module engine).
    """
    qual = _as_written_for(symbol, qualname)
    return symbol in (_as_written_for(symbol, name), qual) or qual.endswith("." + symbol)


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
