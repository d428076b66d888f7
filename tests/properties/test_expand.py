"""Graph expansion with relevance decay.

Laws:

1. Hits have relevance 1.0 and relationship ``hit``.
2. Relevance never rises with hops: a node is never more relevant than the
   node it was reached from, and equals that relevance times the edge weight.
3. Imports, parameters and a code node's docs (``documented_by``) are never
   expanded further.
4. Depth 0 gives exactly the hits.
5. The result (keys, relevance, relationship, hops) does not depend on the
   order of the hits.
6. More depth never lowers a node's relevance nor loses a node (metamorphic).
7. With ``reach``, only the first ``reach`` hits are expanded, the others
   stand alone: every hit is there, as a hit; nothing else is but what the
   first ones reach (never through a later hit, so never more relevant than
   when they are all the hits); with every hit within reach, as without it;
   a hit the graph lacks takes no place within reach.

The graphs are programs' (tests.properties.strategies) with doc sections
linked to their code both ways (``mentions``, ``documented_by``), so the
laws hold for those edges too.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.context import resolve_contexts
from greploom.core.cpg import CpgGraph
from greploom.core.expand import (
    LEAF_RELATIONSHIPS,
    RELEVANCE,
    ExpandedNode,
    NodeContext,
    NodeRef,
    Relationship,
    StructuralContext,
    expand_hits,
)
from greploom.core.keys import node_identities
from tests.properties.strategies import Program, build_cpg, programs


def _graph(program: Program) -> dict[str, NodeContext]:
    graph = CpgGraph(build_cpg(program))
    idents = node_identities(graph)
    return {c.ref.key: c for c in resolve_contexts(graph, idents, {})}


def _with_docs(draw: st.DrawFn, graph: dict[str, NodeContext]) -> dict[str, NodeContext]:
    """Doc sections naming some of the code (``mentions``), each named code ``documented_by`` them:
    the links greploom.core.mentions makes, as the other edges, under the same laws."""
    code = sorted(graph)
    if not code:
        return graph
    out = dict(graph)
    back: dict[str, list[NodeRef]] = {}
    for i in range(draw(st.integers(0, 3))):
        key = f"doc:README.md:README > S{i}"
        ref = NodeRef(key, f"README > S{i}", "doc", "README.md", 1 + 10 * i)
        named = draw(st.lists(st.sampled_from(code), unique=True, max_size=3))
        mentions = tuple(graph[k].ref for k in named)
        out[key] = NodeContext(ref, ref.name, "a doc section", structure=StructuralContext(mentions=mentions))
        for k in named:
            back.setdefault(k, []).append(ref)
    for k, refs in back.items():
        ctx = out[k]
        out[k] = attrs.evolve(ctx, structure=attrs.evolve(ctx.structure, documented_by=tuple(refs)))
    return out


@st.composite
def graphs_with_hits(draw: st.DrawFn) -> tuple[dict[str, NodeContext], list[str]]:
    graph = _with_docs(draw, _graph(draw(programs)))
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


@given(graphs_with_hits(), st.integers(0, 3), st.integers(0, 6))
def test_reach_expands_the_first_hits_only(
    case: tuple[dict[str, NodeContext], list[str]], depth: int, reach: int
) -> None:
    """A search shows its later hits alone: their neighbours are not the answer's."""
    graph, hits = case
    nodes = expand_hits(hits, graph, depth, reach=reach)
    first = {n.ref.key: n for n in expand_hits(hits[:reach], graph, depth)}
    assert [n.ref.key for n in nodes if n.relationship is Relationship.HIT] == [
        n.ref.key for n in expand_hits(hits, graph, 0)
    ]
    others = {n.ref.key: n for n in nodes if n.relationship is not Relationship.HIT}
    assert set(others) <= set(first) - set(hits)
    assert all(n.relevance <= first[k].relevance for k, n in others.items())
    assert all(n.via in first for n in others.values())
    if reach == 0:
        assert not others
    if reach >= len(hits):
        assert _facts(nodes) == _facts(expand_hits(hits, graph, depth))
    # a hit the graph lacks takes no place within reach
    assert _facts(expand_hits(["missing:key", *hits], graph, depth, reach=reach)) == _facts(nodes)
