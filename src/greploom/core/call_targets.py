"""What a name stands for while a call is resolved, and the one definition among namesakes.

For :mod:`greploom.core.calls`: a name or dotted prefix in a scope means a
definition (:class:`Def`), a module of the code base (:class:`Module`), a
parameter or variable (:class:`Value`), an instance of a class or of an
object functions are defined on (:class:`Instance`), something from outside
the code base (:data:`OUTSIDE`), a name nothing binds (:data:`UNBOUND`), or
nothing the code decides (None).

:func:`pick` chooses among same-named definitions of one scope: ``@overload``
stubs, property setters and ``.pyi`` stubs beside the source do not count, and
a TypeScript interface gives way to the function of its name; any other tie
is ambiguous, so that a call links to at most one definition (law 1 of
tests/properties/test_calls.py).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from greploom.core.call_memo import MAX_DEPTH
from greploom.core.cpg import CpgNode, NodeKind
from greploom.core.summary import is_python

__all__ = [
    "MAX_DEPTH", "OUTSIDE", "UNBOUND", "Def", "Instance", "Module", "Outside", "Target", "Value", "pick",
]  # fmt: skip
_SKIPPED_DECORATIONS = ("overload", ".setter", ".deleter")  # not what a call runs


@attrs.frozen
class Def:
    node_id: str  # a function or class node


@attrs.frozen
class Module:
    path: str  # dotted module path
    modules: tuple[str, ...]  # module node ids of its files (none for a namespace package)


@attrs.frozen
class Value:
    scope: str  # the definition whose parameter or variable it is
    name: str


@attrs.frozen
class Instance:
    cls: str | None  # a class node, or
    owner: str | None  # the qualname of an object that functions are defined on


@attrs.frozen
class Outside:
    """Something from outside the code base (a library, a builtin), or a name nothing binds."""

    bound: bool = True


OUTSIDE = Outside()
UNBOUND = Outside(bound=False)
Target = Def | Module | Value | Instance | Outside | None


def decorated_away(node: CpgNode) -> bool:
    """Whether a definition's decorators make it something no call runs (an overload, a setter)."""
    decorators = node.attr("decorators")
    if not isinstance(decorators, tuple):
        return False
    return any(isinstance(d, str) and d.endswith(_SKIPPED_DECORATIONS) for d in decorators)


def pick(node: Callable[[str], CpgNode | None], ids: list[str]) -> Target:
    """The one definition among same-named candidates, or None when several remain.

    ``node`` finds a candidate's node (greploom.core.call_index.ScopeIndex.node,
    which notes that it was read)."""
    if not ids:
        return None
    found = {i: n for i in dict.fromkeys(ids) if (n := node(i)) is not None}
    real = [i for i in ids if i in found and not decorated_away(found[i])]
    real = real or [i for i in ids if i in found]
    source = [i for i in real if not found[i].file.endswith(".pyi")]
    real = source or real
    nodes = [found[i] for i in real]
    if any(n.kind is NodeKind.CLASS for n in nodes) and not any(is_python(n.file) for n in nodes):
        # A TypeScript interface and a function of one name: only the function runs.
        real = [n.id for n in nodes if n.kind is NodeKind.FUNCTION] or real
    unique = list(dict.fromkeys(real))
    return Def(unique[0]) if len(unique) == 1 else None
