"""Which definition a name names: ``--node shop.net.send_order``, ``--node Cart.total``.

An agent reads qualified names in every block header (``shop.net.send_order``)
and writes shorter ones (``net.send_order``, ``Cart.total``); both should
find the definition, and only when they name one:

- a qualified name matched exactly wins over longer names it ends;
- otherwise every definition whose qualified name ends with ``.`` + the
  name (a dotted suffix: whole components, never part of one) is named;
- matching is case-sensitive, as the code is.

The caller answers one match, and for several lists their keys
(:func:`candidates_line`) instead of guessing.

Laws (tests/properties/test_names.py): every match equals the name or ends
with ``.`` + it; an exact match, when there is one, is all that is named; a
name is never matched inside a component; the answer does not depend on the
order of the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_LISTED = 10  # candidates a one-line error lists before "+N more"


def is_dotted_suffix(name: str, qualname: str) -> bool:
    """Whether ``qualname`` is ``name`` or ends with ``.`` + ``name``."""
    return bool(name) and (qualname == name or qualname.endswith("." + name))


def named(name: str, candidates: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The keys of the ``(key, qualname)`` candidates that ``name`` names, sorted."""
    pairs = sorted({(key, qual) for key, qual in candidates if is_dotted_suffix(name, qual)})
    exact = tuple(key for key, qual in pairs if qual == name)
    return exact or tuple(key for key, _ in pairs)


def candidates_line(keys: tuple[str, ...], limit: int = MAX_LISTED) -> str:
    """``a, b, c`` for at most ``limit`` keys, then ``+N more``."""
    shown = ", ".join(keys[:limit])
    return shown + (f" +{len(keys) - limit} more" if len(keys) > limit else "")
