"""The JSON envelope packed to the budget (greploom.core.envelope).

Laws (any token counter: one per character, and a chunky one that is not
additive across joins, as cl100k is not):

1. In every form it is sent in (indented for the CLI, compact for MCP,
   ``json.dumps`` defaults), the whole envelope fits the budget.
2. Its ``tokens_used`` states its own count in the dearest form.
3. Results keep the nodes' order, each node at most once, and count as the
   metadata says (results, dropped); a parameter or import reached from
   another node is no result of its own (its owner's signature and
   structure name it).
4. ``source`` is sent only for a result shown whole with its source (detail
   full, not cut), and then it is the node's source.
5. Structure lists hold at most STRUCTURE_CAP neighbours (none for a
   reference, nor for a far hit shown briefly, from the third hit on in the
   default answer, unless it is shown as its summary, which names its
   calls); a capped list carries its total.
6. No results only when there is nothing to show: given nodes that are
   results, an envelope holds at least one, else the budget is refused (None).
7. With room for everything, nothing is dropped or shortened.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.envelope import FORMS, envelope_tokens, pack_envelope
from greploom.core.expand import ExpandedNode, NodeRef, Relationship, StructuralContext
from greploom.core.focus import FocusQuery
from greploom.core.render import BRIEF_FROM, LEAF_KINDS, Detail, SourceMode, render_block
from greploom.core.render_json import STRUCTURE_CAP

refs = st.builds(
    NodeRef,
    key=st.uuids().map(lambda u: f"function:a.py:{u}"),
    name=st.just("g"),
    kind=st.just("function"),
    file=st.just("a.py"),
    line=st.integers(1, 99),
)
structures = st.builds(
    StructuralContext,
    callers=st.lists(refs, max_size=8).map(tuple),
    callees=st.lists(refs, max_size=8).map(tuple),
    parent_class=st.one_of(st.none(), refs),
)
nodes = st.builds(
    ExpandedNode,
    ref=st.builds(
        NodeRef,
        key=st.uuids().map(str),
        name=st.just("f"),
        kind=st.sampled_from(("function", "class", "parameter")),
        file=st.sampled_from(("a.py", "b.ts")),
        line=st.integers(1, 99),
    ),
    relevance=st.floats(0.01, 1.0),
    relationship=st.sampled_from(Relationship),
    hops=st.integers(0, 2),
    via=st.none(),
    qualname=st.just("m.f"),
    summary=st.text(alphabet="ab é\n", max_size=30),
    source=st.one_of(st.none(), st.text(alphabet="x`\n —ü", max_size=200)),
    end_line=st.none(),
    node_id=st.just("function:a.py:1:0:1"),
    structure=structures,
)
node_lists = st.lists(nodes, max_size=6, unique_by=lambda n: n.ref.key).map(
    lambda ns: sorted(ns, key=lambda n: n.relationship is not Relationship.HIT)
)
METADATA = {"query": "cart total", "search_mode": "hybrid", "unknown_nodes": []}


def results_of(items: list[ExpandedNode]) -> list[ExpandedNode]:
    """The nodes an answer shows as results: all but the parameters and imports reached from others."""
    return [n for n in items if n.relationship is Relationship.HIT or n.ref.kind not in LEAF_KINDS]


def chunky(text: str) -> int:
    return len(re.findall(r"\w+|[^\w\s]|\s+", text))


counters = st.sampled_from((len, chunky))


@given(node_lists, st.integers(1, 4000), st.booleans(), st.booleans(), counters)
def test_the_envelope_fits_in_every_form(
    items: list[ExpandedNode],
    budget: int,
    include_source: bool,
    cut_hits: bool,
    count: Callable[[str], int],
) -> None:
    """Laws 1-6: what is sent fits, states its cost, and sends only what is shown."""
    packed = pack_envelope(METADATA, items, budget, count, include_source=include_source, cut_hits=cut_hits)
    if packed is None:  # refused for the budget, not for the nodes: more budget answers
        assert pack_envelope(METADATA, items, 10**7, count, include_source=include_source) is not None
        return
    envelope = packed.envelope
    for _, form in FORMS:
        assert count(form(envelope)) <= budget
    meta = envelope["metadata"]
    assert envelope_tokens(envelope, count) <= meta["tokens_used"] == packed.tokens <= budget
    assert meta["budget"] == budget and meta["query"] == "cart total"
    results = envelope["results"]
    shown = results_of(items)
    order = [n.ref.key for n in shown]
    positions = [order.index(r["key"]) for r in results]
    assert positions == sorted(set(positions))
    assert meta["results"] == len(results) and meta["dropped"] == len(shown) - len(results)
    assert results or not shown
    by_key = {n.ref.key: n for n in items}
    for result in results:
        node = by_key[result["key"]]
        whole = result["detail"] == Detail.FULL.value and not result["cut"]
        if result["source"] is not None:
            assert whole and include_source and result["source"] == node.source
        elif whole and include_source:
            assert not node.source
        structure = result["structural_context"]
        cap = 0 if result["detail"] == Detail.REFERENCE.value else STRUCTURE_CAP
        for name in ("callers", "callees"):
            full = getattr(node.structure, name)
            assert len(structure[name]) == min(len(full), cap)
            assert structure.get(f"{name}_total") == (len(full) if len(full) > cap else None)


def _as_hit(node: ExpandedNode, lines: int) -> ExpandedNode:
    """A node of ``nodes`` as a function hit with ``lines`` of code that answer "cart total"."""
    return attrs.evolve(
        node,
        ref=attrs.evolve(node.ref, name="total", kind="function"),
        relationship=Relationship.HIT,
        qualname="m.total",
        summary="def total(cart)\ncalls: g",
        source="def total(cart):\n" + "    cart.total += 1\n" * lines,
    )


hits = st.lists(
    st.builds(_as_hit, nodes, st.integers(1, 80)), min_size=1, max_size=6, unique_by=lambda n: n.ref.key
)


@given(hits, st.integers(600, 20000), counters)
def test_a_far_hit_sends_the_counts_of_its_neighbours_only(
    items: list[ExpandedNode], budget: int, count: Callable[[str], int]
) -> None:
    """Law 5, the default answer: from the third hit on a hit's text names no neighbour (its
    definition line and the lines that answer), so its lists are empty and say their totals."""
    focus = FocusQuery.of("cart total")
    packed = pack_envelope(METADATA, items, budget, count, include_source=SourceMode.HITS, focus_on=focus)
    if packed is None:
        return
    rank = {n.ref.key: i for i, n in enumerate(items)}
    by_key = {n.ref.key: n for n in items}
    for result in packed.envelope["results"]:
        node, structure = by_key[result["key"]], result["structural_context"]
        far = rank[result["key"]] >= BRIEF_FROM and result["detail"] != Detail.SUMMARY.value
        cap = 0 if far or result["detail"] == Detail.REFERENCE.value else STRUCTURE_CAP
        for name in ("callers", "callees"):
            full = getattr(node.structure, name)
            assert len(structure[name]) == min(len(full), cap)
            assert structure.get(f"{name}_total") == (len(full) if len(full) > cap else None)


@given(node_lists, st.booleans(), counters)
def test_room_for_everything_drops_nothing(
    items: list[ExpandedNode], include_source: bool, count: Callable[[str], int]
) -> None:
    """Law 7: the budget, not the packer, is what leaves things out."""
    packed = pack_envelope(METADATA, items, 10**7, count, include_source=include_source)
    assert packed is not None
    meta = packed.envelope["metadata"]
    assert meta["dropped"] == 0 and meta["shortened"] == 0 and meta["truncated"] is False
    for result, node in zip(packed.envelope["results"], results_of(items), strict=True):
        assert result["text"] == render_block(node, include_source)
        if include_source and node.source:
            assert result["source"] == node.source
