"""Rendering blocks and the JSON envelope.

Laws:

1. A source block's fence is longer than any backtick run in the source, so
   source text can never close it early; the block's fences are balanced.
2. The header names relationship, kind, name, file and line.
3. The JSON envelope has one result per packed block, in packing order, with
   every documented field.
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
from greploom.core.render import Detail, assemble_context, render_block, render_json

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
    """The first line tells the agent what and where, before any detail."""
    header = render_block(node).split("\n", 1)[0]
    ref = node.ref
    assert header == f"## {node.relationship.value}: {ref.kind} {node.qualname} ({ref.file}:{ref.line})"


@given(st.lists(nodes, max_size=5, unique_by=lambda n: n.ref.key), st.integers(1, 2000), st.booleans())
def test_json_envelope(items: list[ExpandedNode], budget: int, include_source: bool) -> None:
    """The JSON shape is a contract: every packed block, every field, in order."""
    packing = assemble_context(items, budget, len, include_source)
    envelope = render_json({"budget": budget}, packing, items, include_source)
    assert set(envelope) == {"metadata", "results"}
    assert [r["key"] for r in envelope["results"]] == [p.block.key for p in packing.blocks]
    for result in envelope["results"]:
        assert set(result) == RESULT_FIELDS
        assert include_source or result["source"] is None
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
