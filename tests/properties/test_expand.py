"""Graph expansion with relevance decay.

Laws:

1. Hits have relevance 1.0 and relationship ``hit``.
2. Relevance never rises with hops: a node is never more relevant than the
   node it was reached from, and equals that relevance times the edge weight.
3. Imports and parameters are never expanded further.
4. Depth 0 gives exactly the hits.
5. The result (keys, relevance, relationship, hops) does not depend on the
   order of the hits.
6. More depth never lowers a node's relevance nor loses a node (metamorphic).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.context import resolve_contexts
from greploom.core.cpg import CpgGraph
from greploom.core.expand import (
    LEAF_RELATIONSHIPS,
    RELEVANCE,
    ExpandedNode,
    NodeContext,
    Relationship,
    expand_hits,
)
from greploom.core.keys import node_identities
from tests.properties.strategies import Program, build_cpg, programs


def _graph(program: Program) -> dict[str, NodeContext]:
    graph = CpgGraph(build_cpg(program))
    idents = node_identities(graph)
    return {c.ref.key: c for c in resolve_contexts(graph, idents, {})}


@st.composite
def graphs_with_hits(draw: st.DrawFn) -> tuple[dict[str, NodeContext], list[str]]:
    graph = _graph(draw(programs))
    keys = sorted(graph)
    hits = draw(st.lists(st.sampled_from(keys), unique=True, max_size=4)) if keys else []
    return graph, hits


def _facts(nodes: tuple[ExpandedNode, ...]) -> set[tuple[str, float, str, int]]:
    return {(n.ref.key, n.relevance, n.relationship.value, n.hops) for n in nodes}


@given(graphs_with_hits(), st.integers(0, 3))
def test_hits_have_full_relevance(case: tuple[dict[str, NodeContext], list[str]], depth: int) -> None:
    """What the search found is what the agent asked for: it ranks first."""
    graph, hits = case
    by_key = {n.ref.key: n for n in expand_hits(hits, graph, depth)}
    for hit in hits:
        assert by_key[hit].relevance == 1.0
        assert by_key[hit].relationship is Relationship.HIT


@given(graphs_with_hits(), st.integers(1, 3))
def test_relevance_decays_along_edges(case: tuple[dict[str, NodeContext], list[str]], depth: int) -> None:
    """A neighbour of a neighbour is never worth more than the neighbour."""
    graph, hits = case
    nodes = expand_hits(hits, graph, depth)
    by_key = {n.ref.key: n for n in nodes}
    for node in nodes:
        if node.via is None:
            continue
        parent = by_key[node.via]
        assert node.relevance <= parent.relevance
        assert node.hops <= depth


@given(graphs_with_hits(), st.integers(1, 3))
def test_leaves_are_not_expanded(case: tuple[dict[str, NodeContext], list[str]], depth: int) -> None:
    """Imports are context, not a path to more code."""
    graph, hits = case
    nodes = expand_hits(hits, graph, depth)
    leaves = {n.ref.key for n in nodes if n.relationship in LEAF_RELATIONSHIPS}
    assert all(n.via not in leaves for n in nodes)
    assert all(0 < n.relevance <= 1 for n in nodes)
    assert all(
        n.relevance <= RELEVANCE[n.relationship] for n in nodes if n.relationship is not Relationship.HIT
    )


@given(graphs_with_hits())
def test_depth_zero_gives_the_hits(case: tuple[dict[str, NodeContext], list[str]]) -> None:
    """Depth 0 is plain search: nothing is added."""
    graph, hits = case
    assert [n.ref.key for n in expand_hits(hits, graph, 0)] == hits


@given(graphs_with_hits(), st.integers(0, 3), st.randoms(use_true_random=False))
def test_hit_order_does_not_matter(
    case: tuple[dict[str, NodeContext], list[str]], depth: int, rnd: object
) -> None:
    """Relevance comes from the graph, not from which hit was listed first."""
    graph, hits = case
    shuffled = list(hits)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert _facts(expand_hits(hits, graph, depth)) == _facts(expand_hits(shuffled, graph, depth))


@given(graphs_with_hits(), st.integers(0, 2))
def test_more_depth_never_loses(case: tuple[dict[str, NodeContext], list[str]], depth: int) -> None:
    """Looking further can add context but never demote what was found."""
    graph, hits = case
    shallow = {n.ref.key: n.relevance for n in expand_hits(hits, graph, depth)}
    deep = {n.ref.key: n.relevance for n in expand_hits(hits, graph, depth + 1)}
    assert all(deep[k] >= r for k, r in shallow.items())
