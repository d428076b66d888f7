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
5. A parameter or import reached from another node is no block of its own
   (its owner's signature and structure name it); asked for, it is one.
6. In the default mode (code for the hits), a graph neighbour shows its
   summary only when it was reached from the first hit; any other is its
   one-line header and what it relates to (``callee of m.f``).
7. What the answer shows is not shown twice: a hit inside a hit shown whole
   above it points to it instead of repeating its code, and a hit holding
   hits shown whole above it leaves their lines out; when the hit leaned on
   is not kept whole, the other stands on its own. Above a definition's code
   only the summary's lines the code shown does not say are shown (not its
   signature; a docstring in the body neither, a JSDoc above it yes); above
   part of it (focused, members left out) its structure lines too (calls,
   methods: what the elided lines hold); above a module's text, which is not
   its file's lines, the whole summary; above a brief hit's lines, none.
8. In the default mode a hit's code never takes more than its rank's ceiling
   (``HIT_CEILINGS``: by rank, the last for every later hit), whatever the
   budget: past it the hit shows its focused code, else its summary. From the
   third hit on (``BRIEF_FROM``) a hit's code is brief: no summary, no place
   line (its header says where). With
   ``--include-source`` (``SourceMode.ALL``) only the budget's shares bound it.
9. A hit the session was sent whole before (``earlier``) takes no rank: the
   other hits are rendered as without it; one holding its lines leaves them
   out whatever their order, and one inside it points to it, leaning on no
   block of this answer.
"""

from __future__ import annotations

import re

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.budget import fence_state
from greploom.core.expand import ExpandedNode, NodeRef, Relationship, StructuralContext
from greploom.core.focus import FocusQuery
from greploom.core.render import (
    BRIEF_FROM,
    HIT_CEILINGS,
    HIT_SHARES,
    Detail,
    SourceMode,
    assemble_context,
    context_blocks,
    render_block,
)
from greploom.core.render_json import STRUCTURE_CAP, render_json, structure_json

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


@given(
    nodes,
    st.sampled_from(("function", "class", "module")),
    st.booleans(),
    st.sampled_from(("x", "DOC")),
    st.booleans(),
)
def test_the_summary_is_said_once(
    node: ExpandedNode, kind: str, partial: bool, doc: str, brief: bool
) -> None:
    """Law 7: above code, only what the code shown does not say; above part of it, its structure
    too; above a module's text, all; above a brief hit's lines, nothing."""
    summary = f"SIGNATURE\n{doc}\ncalls: helper"
    node = attrs.evolve(node, ref=attrs.evolve(node.ref, kind=kind), summary=summary)
    head = render_block(node, include_source=True, partial=partial, brief=brief).split("```")[0]
    assert summary in render_block(node)
    if node.source and brief:
        assert "SIGNATURE" not in head and "calls: helper" not in head and f"\n{doc}\n" not in head
    elif node.source and kind != "module":
        assert "SIGNATURE" not in head
        in_code = doc in " ".join(node.source.split())
        assert (f"\n{doc}\n" in head) is not in_code
        assert ("calls: helper" in head) is partial
    else:
        assert summary in head


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


kinds = st.sampled_from(("function", "class", "parameter", "import"))


@given(st.lists(nodes, min_size=1, max_size=8, unique_by=lambda n: n.ref.key), st.lists(kinds, min_size=8))
def test_parameters_and_imports_are_no_blocks_of_their_own(
    items: list[ExpandedNode], kind_of: list[str]
) -> None:
    """Law 5."""
    items = [attrs.evolve(n, ref=attrs.evolve(n.ref, kind=k)) for n, k in zip(items, kind_of, strict=False)]
    keys = [b.key for b in context_blocks(items, SourceMode.HITS)]
    expected = [
        n.ref.key
        for n in items
        if n.relationship is Relationship.HIT or n.ref.kind not in ("parameter", "import")
    ]
    assert keys == expected


@given(st.lists(nodes, min_size=1, max_size=8, unique_by=lambda n: n.ref.key), st.data())
def test_far_neighbours_are_named_not_summarised(items: list[ExpandedNode], data: st.DataObject) -> None:
    """Law 6."""
    keys = [n.ref.key for n in items]
    items = [attrs.evolve(n, via=data.draw(st.one_of(st.none(), st.sampled_from(keys)))) for n in items]
    first_hit = next((n.ref.key for n in items if n.relationship is Relationship.HIT), None)
    names = {n.ref.key: n.qualname for n in items}
    blocks = {b.key: b for b in context_blocks(items, SourceMode.HITS)}
    for n in items:
        if n.relationship is Relationship.HIT or n.ref.key not in blocks:
            continue
        block = blocks[n.ref.key]
        if n.via is not None and n.via == first_hit:
            assert block.label == Detail.SUMMARY.value
            assert block.text == render_block(n, via_name=names[n.via])
        else:
            assert block.label == Detail.REFERENCE.value and not block.may_cut
            header = render_block(n, detail=Detail.REFERENCE)
            assert block.text.split("\n")[0] == header
            if n.via is not None:
                assert block.text.endswith(f" of {names[n.via]}") or block.text.endswith(names[n.via])


CLASS_SOURCE = "\n".join(
    ["class Cart:", '    """A cart."""', "    def total(self):", "        return sum(self.items)", ""]
    + [f"    def helper_{i}(self):\n        return {i}" for i in range(12)]
)


def _hit(key: str, qualname: str, line: int, source: str) -> ExpandedNode:
    return ExpandedNode(
        ref=NodeRef(key, qualname.rsplit(".", 1)[-1], "function", "shop/cart.py", line),
        relevance=1.0,
        relationship=Relationship.HIT,
        hops=0,
        via=None,
        qualname=qualname,
        summary=qualname,
        source=source,
        end_line=line + source.count("\n"),
        node_id=key,
        structure=StructuralContext(),
    )


CART = _hit("class:Cart", "shop.cart.Cart", 10, CLASS_SOURCE)
TOTAL_SOURCE = "def total(self):\n    return sum(self.items)"
TOTAL = _hit("function:Cart.total", "shop.cart.Cart.total", 12, TOTAL_SOURCE)


def _tokens(text: str) -> int:
    """About a cl100k token per four characters: what the ceilings of law 8 are counted in."""
    return -(-len(text) // 4)


def test_a_method_below_its_class_shown_whole_points_to_it() -> None:
    """Law 7: the method's code is in the class above."""
    packing = assemble_context([CART, TOTAL], 2000, _tokens, SourceMode.HITS, focus_on=FocusQuery.of("total"))
    cart, total = packing.blocks
    assert cart.label == Detail.FULL.value and "```" in cart.text
    assert total.label == Detail.SUMMARY.value and "```" not in total.text
    assert total.text.endswith("Code: shown in shop.cart.Cart above")


def test_a_class_below_its_method_leaves_the_method_out() -> None:
    """Law 7: the class shows the rest of its code, the method's lines named by their marker."""
    packing = assemble_context([TOTAL, CART], 8000, _tokens, SourceMode.HITS, focus_on=FocusQuery.of("total"))
    total, cart = packing.blocks
    assert total.label == Detail.FULL.value and "return sum(self.items)" in total.text
    assert cart.label == Detail.FOCUSED.value
    assert "return sum(self.items)" not in cart.text and "... lines 12-13" in cart.text
    assert "def helper_11(self):" in cart.text  # the rest is all there: it fits in its share


def test_a_shortcut_is_passed_over_when_the_block_it_leans_on_is_not_whole() -> None:
    """Law 7: with the class shortened to fit, the method shows its own code."""
    budget = 4 * _tokens(render_block(TOTAL, True)) + 8  # the method within its share, the class not
    query = FocusQuery.of("total")
    packing = assemble_context([CART, TOTAL], budget, _tokens, SourceMode.HITS, focus_on=query)
    cart, total = packing.blocks
    assert cart.label != Detail.FULL.value
    assert total.label == Detail.FULL.value and "return sum(self.items)" in total.text


def test_a_module_is_never_leaned_on() -> None:
    """Law 7: a module's text elides its definitions, so a function below it keeps its code."""
    module = attrs.evolve(
        _hit("module:shop/cart.py", "shop.cart", 1, '"""Carts."""\n\nclass Cart:\n    ...'),
        end_line=40,
        ref=NodeRef("module:shop/cart.py", "shop.cart", "module", "shop/cart.py", 1),
    )
    packing = assemble_context([module, TOTAL], 8000, len, SourceMode.HITS, focus_on=FocusQuery.of("total"))
    _, total = packing.blocks
    assert total.label == Detail.FULL.value and "return sum(self.items)" in total.text


def _sent(node: ExpandedNode) -> ExpandedNode:
    """As the shell shows a hit the session was sent whole (greploom.shell.session_answer)."""
    return attrs.evolve(node, source=None, summary="shown earlier", earlier=True)


@given(st.integers(0, 3), st.integers(1, 3))
def test_a_hit_sent_earlier_takes_no_rank(at: int, later: int) -> None:
    """Law 9: the hits after one sent earlier keep the ranks they have without it."""
    hits = [_long_hit(f"function:f{i}", 1 + 400 * i, 120) for i in range(at + later)]
    elsewhere = NodeRef("function:old", "old", "function", "b.py", 1)
    sent = attrs.evolve(_sent(_long_hit("function:old", 9000, 5)), ref=elsewhere)
    query = FocusQuery.of("value")

    def blocks(nodes: list[ExpandedNode]) -> dict[str, object]:
        return {b.key: b for b in context_blocks(nodes, True, focus_on=query, budget=4000, count=_tokens)}

    with_sent, alone = blocks([*hits[:at], sent, *hits[at:]]), blocks(hits)
    for h in hits:
        assert with_sent[h.ref.key] == alone[h.ref.key]


def test_what_the_session_was_sent_is_left_out_whatever_the_order() -> None:
    """Law 9: the class shows its other lines, the method's named, whether the method comes
    before or after it; a method inside a class sent earlier points to it."""
    query = FocusQuery.of("total")
    for order in ([_sent(TOTAL), CART], [CART, _sent(TOTAL)]):
        packing = assemble_context(order, 8000, _tokens, SourceMode.HITS, focus_on=query)
        cart = next(b for b in packing.blocks if b.block.key == CART.ref.key)
        assert cart.label == Detail.FOCUSED.value and "... lines 12-13" in cart.text
        assert "return sum(self.items)" not in cart.text and "def helper_11(self):" in cart.text
    packing = assemble_context([_sent(CART), TOTAL], 8000, _tokens, SourceMode.HITS, focus_on=query)
    total = next(b for b in packing.blocks if b.block.key == TOTAL.ref.key)
    assert total.text.endswith("Code: shown earlier in this session, in shop.cart.Cart")


def _long_hit(key: str, line: int, lines: int) -> ExpandedNode:
    body = "\n".join(f"    step_{i} = compute(step_{i - 1}, {i})  # stage {i}" for i in range(lines))
    hit = _hit(key, f"shop.cart.{key}", line, f"def {key}(items):\n{body}\n    return total")
    return attrs.evolve(hit, summary=f"def {key}(items)\nRuns the pipeline.")


@given(st.lists(st.integers(40, 400), min_size=2, max_size=4), st.integers(2_500, 60_000))
def test_a_hit_s_code_stays_under_its_ceiling(sizes: list[int], budget: int) -> None:
    """Law 8: a long hit is focused under its ceiling whatever the budget, from the third on
    without its summary; with all code, its share bounds it."""
    hits = [_long_hit(f"step{rank}", 1000 * rank + 10, size) for rank, size in enumerate(sizes)]
    query = FocusQuery.of("total")
    default = assemble_context(hits, budget, _tokens, SourceMode.HITS, focus_on=query)
    for rank, (block, hit) in enumerate(zip(default.blocks, hits, strict=True)):
        ceiling = HIT_CEILINGS[min(rank, len(HIT_CEILINGS) - 1)]
        whole = _tokens(render_block(hit, True))
        assert block.label == (Detail.FULL.value if whole <= ceiling else Detail.FOCUSED.value)
        assert block.tokens <= ceiling and "```" in block.text
        assert "return total" in block.text  # the line the query's word is on
        brief = rank >= BRIEF_FROM
        assert ("Runs the pipeline." in block.text) is not brief  # what its code does not say
        assert ("\nDefined at " in block.text) is not brief  # the header says where
    every = assemble_context(hits[:2], budget, _tokens, SourceMode.ALL, focus_on=query)
    for rank, (block, hit) in enumerate(zip(every.blocks, hits[:2], strict=True)):
        share = budget * HIT_SHARES[min(rank, len(HIT_SHARES) - 1)]
        whole = _tokens(render_block(hit, True))
        assert block.label == (Detail.FULL.value if whole <= share else Detail.FOCUSED.value)
        assert block.tokens <= share


def test_a_short_later_hit_shows_its_whole_code_without_its_summary() -> None:
    """Law 8: a later hit whose code fits its ceiling shows it whole, though its summary would not fit."""
    note = " ".join(["It explains at length what the helper is for and when to call it."] * 6)
    short = attrs.evolve(
        _hit("short", "shop.cart.short", 3000, "def short(items):\n    return total(items)"),
        summary=f"def short(items)\n{note}",
    )
    hits = [_long_hit("first", 10, 60), _long_hit("second", 1000, 60), short]
    assert _tokens(render_block(short, True)) > HIT_CEILINGS[-1]  # with its summary it would not fit
    third = assemble_context(hits, 8000, _tokens, SourceMode.HITS, focus_on=FocusQuery.of("total")).blocks[2]
    assert third.label == Detail.FULL.value and "return total(items)" in third.text
    assert "It explains" not in third.text and third.tokens <= HIT_CEILINGS[-1]
    assert "Defined at" not in third.text
