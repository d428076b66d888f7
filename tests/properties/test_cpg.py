"""The graph view over a CPG.

Laws:

1. ``enclosing(n, *kinds)`` is the first node of one of ``kinds`` along
   ``ancestors(n)``, whatever the shape of the scopes (cycles, self-scopes,
   missing ids, repeated ids) and whatever was asked before it: the walk
   remembers answers, and remembering must never change one (metamorphic
   over the order of questions).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgData, CpgGraph, CpgNode, NodeKind
from tests.properties.strategies import scope_graphs

_KINDS = (NodeKind.MODULE, NodeKind.FUNCTION, NodeKind.BRANCH)
# Every non-empty set of the kinds drawn nodes have: each gets its own memory.
_KIND_SETS = tuple(
    frozenset(k for i, k in enumerate(_KINDS) if mask >> i & 1) for mask in range(1, 1 << len(_KINDS))
)


def _walked(graph: CpgGraph, node: CpgNode, kinds: frozenset[NodeKind]) -> CpgNode | None:
    return next((a for a in graph.ancestors(node) if a.kind in kinds), None)


@given(scope_graphs, st.data())
def test_enclosing_is_the_first_ancestor_of_a_kind(data: CpgData, draw: st.DataObject) -> None:
    """Keys, parent classes and imports hang on this answer: remembering must not bend it."""
    graph = CpgGraph(data)
    for kinds in _KIND_SETS:
        for node in draw.draw(st.permutations(data.nodes)):
            assert graph.enclosing(node, *kinds) == _walked(graph, node, kinds)
