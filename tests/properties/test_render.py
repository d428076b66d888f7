"""Rendering blocks and the JSON envelope.

Laws:

1. A source block's fence is longer than any backtick run in the source, so
   source text can never close it early; the block's fences are balanced.
2. The header names relationship, kind, name, file and line, and ends with
   the stable key (so a one-line reference carries it too).
3. The JSON envelope has one result per packed block, in packing order, with
   every documented field; it sends a node's source only for a block shown
   whole with it, and caps structural-context lists, counting the rest.
4. In a search context a hit is never cut: shown whole when it fits, else
   without its source, else as its one-line header (a reference); nodes
   asked for by name are cut instead. A graph neighbour is never cut either.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.budget import fence_state
from greploom.core.expand import ExpandedNode, NodeRef, Relationship, StructuralContext
from greploom.core.render import (
    STRUCTURE_CAP,
    Detail,
    assemble_context,
    render_block,
    render_json,
    structure_json,
)

RESULT_FIELDS = {
    "node_id",
    "key",
    "name",
    "qualname",
    "kind",
    "file",
    "line",
    "end_line",
    "relationship",
    "relevance",
    "via",
    "tokens",
    "cut",
    "stale",
    "detail",
    "text",
    "source",
    "structural_context",
}

nodes = st.builds(
    ExpandedNode,
    ref=st.builds(
        NodeRef,
        key=st.uuids().map(str),
        name=st.just("f"),
        kind=st.just("function"),
        file=st.sampled_from(("a.py", "b.ts", "c")),
        line=st.integers(1, 99),
    ),
    relevance=st.floats(0.01, 1.0),
    relationship=st.sampled_from(Relationship),
    hops=st.integers(0, 2),
    via=st.none(),
    qualname=st.just("m.f"),
    summary=st.text(alphabet="ab `\n", max_size=20),
    source=st.one_of(st.none(), st.text(alphabet="x`\n ", max_size=60)),
    end_line=st.none(),
    node_id=st.just("function:a.py:1:0:1"),
    structure=st.just(StructuralContext()),
)


@given(nodes)
def test_fence_outlasts_any_backtick_run(node: ExpandedNode) -> None:
    """Source with its own fences cannot break out of the block."""
    text = render_block(node, include_source=True)
    if node.source:
        lines = text.split("\n")
        defined = max(i for i, line in enumerate(lines) if line.startswith("Defined at "))
        fence = re.match(r"^(`+)", lines[defined + 1])
        longest = max((len(m) for m in re.findall(r"`+", node.source)), default=0)
        assert fence is not None and len(fence.group(1)) > longest
        assert text.endswith(fence.group(1))


@given(nodes)
def test_header_names_the_node(node: ExpandedNode) -> None:
    """The first line tells the agent what and where, before any detail, and what to follow up with."""
    header = render_block(node).split("\n", 1)[0]
    ref = node.ref
    where = f"## {node.relationship.value}: {ref.kind} {node.qualname} ({ref.file}:{ref.line})"
    assert header == f"{where} key: {ref.key}"
    assert render_block(node, detail=Detail.REFERENCE) == header


@given(st.lists(nodes, max_size=5, unique_by=lambda n: n.ref.key), st.integers(1, 2000), st.booleans())
def test_json_envelope(items: list[ExpandedNode], budget: int, include_source: bool) -> None:
    """The JSON shape is a contract: every packed block, every field, in order."""
    packing = assemble_context(items, budget, len, include_source)
    envelope = render_json({"budget": budget}, packing, items, include_source)
    assert set(envelope) == {"metadata", "results"}
    assert [r["key"] for r in envelope["results"]] == [p.block.key for p in packing.blocks]
    for result, packed in zip(envelope["results"], packing.blocks, strict=True):
        assert set(result) == RESULT_FIELDS
        assert include_source or result["source"] is None
        whole = packed.label == Detail.FULL.value and not packed.cut
        assert result["source"] is None or whole
    for packed in packing.blocks:
        if packed.cut:
            assert fence_state(packed.text.split("\n")) is None


@given(st.lists(nodes, max_size=6, unique_by=lambda n: n.ref.key), st.integers(1, 400), st.booleans())
def test_long_hits_become_references(items: list[ExpandedNode], budget: int, cut_hits: bool) -> None:
    """One long hit must not spend the budget the hits after it need."""
    packing = assemble_context(items, budget, len, include_source=True, cut_hits=cut_hits)
    by_key = {n.ref.key: n for n in items}
    for packed in packing.blocks:
        node = by_key[packed.block.key]
        whole = render_block(node, include_source=True, via_name=None)
        if packed.label == Detail.REFERENCE.value:
            assert node.relationship is Relationship.HIT and not cut_hits
            assert packed.text == whole.split("\n", 1)[0]
        if packed.label == Detail.SUMMARY.value and node.source:
            assert packed.text == render_block(node, include_source=False, via_name=None)
        if packed.cut:
            assert node.relationship is Relationship.HIT and cut_hits


refs = st.builds(
    NodeRef,
    key=st.uuids().map(str),
    name=st.just("g"),
    kind=st.just("function"),
    file=st.just("a.py"),
    line=st.integers(1, 9),
)
structures = st.builds(
    StructuralContext,
    callers=st.lists(refs, max_size=9).map(tuple),
    callees=st.lists(refs, max_size=9).map(tuple),
    parameters=st.lists(refs, max_size=9).map(tuple),
    parent_class=st.one_of(st.none(), refs),
)


@given(structures, st.one_of(st.none(), st.integers(0, 8)))
def test_structure_lists_are_capped_and_counted(structure: StructuralContext, cap: int | None) -> None:
    """A hub's hundred callers cannot spend the budget; what is left out is counted, never hidden."""
    out = structure_json(structure, cap)
    for name in ("callers", "callees", "parameters"):
        full = getattr(structure, name)
        limit = len(full) if cap is None else cap
        assert [r["key"] for r in out[name]] == [r.key for r in full[:limit]]
        assert out.get(f"{name}_total") == (len(full) if len(full) > limit else None)
    assert (out["parent_class"] is None) == (structure.parent_class is None)
    assert STRUCTURE_CAP > 0
