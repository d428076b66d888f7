"""Rendering: expanded nodes to markdown blocks, each with what it falls back to.

One block's text (header, summary, place, fenced code) is
greploom.core.render_block's. A
block shown as a reference is its header line alone; a graph neighbour shown
as its reference (the neighbours of every hit but the first, in the default
mode) adds the line saying what it relates to (``callee of shop.net.send``).
A parameter or import is a block only when asked for (a hit): two lines, its
header, then its text and what it belongs to; reached from another node it
is in that node's structure (JSON) and signature. A hit inside a hit shown
whole above it is its summary and ``Code: shown in {qualname} above``.

``collection``: in an answer over several collections (greploom.core.federation),
the one the node comes from; its key is only unique there, so a block's
identity in the packing is :func:`block_key`, the collection's name and the key.
A JSON result then says ``"collection": NAME`` too (absent otherwise).

``stale``: the node's file changed since the index read it
(greploom.core.freshness), so the lines shown are the indexed ones.

The stable key ends the header line, so every block an agent reads, a
one-line reference included, names what to pass to ``get_node_context`` /
``--node`` (two blocks of one name, a getter and its setter, differ only
there). On the header rather than a ``key:`` line of its own: the same ten
or so tokens either way (measured with cl100k on the samples), but a
reference is its header alone, and it is the block a follow-up is most for.
The ``key:`` label costs two tokens more than the bare key and says what it is.

The JSON envelope of a packing is greploom.core.render_json's.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import attrs

from greploom.core.budget import ContextBlock, Packing, Rendering, TokenCounter, pack_blocks
from greploom.core.expand import ExpandedNode, Relationship
from greploom.core.focus import FocusQuery, Member, focus

# A block's own rendering is greploom.core.render_block's; its names stay importable from here.
from greploom.core.render_block import (
    LEAF_KINDS,
    NOT_VERBATIM,
    Detail,
    block_key,
    fence_for,
    language_of,
    location_text,
    relation_of,
    render_block,
    unsaid,
)

__all__ = [
    "BRIEF_FROM",
    "FOCUS_SHARES",
    "HIT_CEILINGS",
    "HIT_SHARES",
    "LEAF_KINDS",
    "Detail",
    "SourceMode",
    "assemble_context",
    "block_key",
    "context_blocks",
    "fence_for",
    "language_of",
    "location_text",
    "render_block",
    "source_mode",
    "unsaid",
]


class SourceMode(str, enum.Enum):
    """Which blocks show code: the answer's levels of detail.

    ``hits`` (the default of ``greploom query`` and the MCP tools): the hits
    with their code, focused on the lines that answer the query when a whole
    definition does not fit, the graph neighbours as signatures and
    summaries, the far ones as one-line references. ``all``
    (``--include-source``): code for every block that fits. ``none``
    (``--no-source``): signatures and summaries only.
    """

    HITS = "hits"
    ALL = "all"
    NONE = "none"


def source_mode(include_source: bool | SourceMode) -> SourceMode:
    """The mode a library caller's ``include_source`` asks for: True is ALL, False NONE."""
    if isinstance(include_source, SourceMode):
        return include_source
    return SourceMode.ALL if include_source else SourceMode.NONE


# A hit whose whole source does not fit may show its focused source in this share
# of the budget, else in the smaller one, before it falls back to its summary.
FOCUS_SHARES = (0.5, 0.25)
HIT_SHARES = (0.5, 0.25)  # the most a hit's code may take, by its rank among the hits
# ... and in the default answer (SourceMode.HITS) never more than these many tokens,
# by rank (the last for every later hit), whatever the budget: a budget is a ceiling,
# not a target, and an agent reads the answer from the top, so a 1,500-line class
# given half of an 8,192-token budget pushes the next hits out of sight. Past it a
# hit shows its focused code, its elided runs named, whole by key (`--node`); when no
# focused code fits, its summary. From the third hit on a hit is brief
# (``BRIEF_FROM``): its definition line and the lines that answer, no summary, as a
# chunk-based search shows ten places. Measured on the quality harness (mean over the
# 11 code bases; hit@1k / hit@2k at 2,000 tokens, tokens an answer there, and the
# answer read from the top: a 4,000-token answer's first target within its first
# 1,000 / 2,000 tokens, and its tokens):
#
#   5 hits, no ceiling, all expanded    0.893 / 0.903  1,360   0.796 / 0.892  1,638
#   5 hits, 600 / 300                   0.893 / 0.901  1,256   0.888 / 0.901  1,302
#   10 hits, 600 / 300 / 100, the first 3 expanded (greploom.core.expand)
#                                       0.925 / 0.938  1,331   0.921 / 0.938  1,364
#   ... a brief block without its `Defined at` line (kept)
#                                       0.929 / 0.938  1,258   0.932 / 0.938  1,287
#
# (variants: benchmarks/quality/REPORT.md). The second hit keeps 300 tokens: the
# first is right for 71% of queries only. `--include-source` keeps the shares alone.
HIT_CEILINGS = (600, 300, 100)
BRIEF_FROM = 2  # the rank (from 0) from which a hit is brief
_FENCE_COST = 8  # the fence lines and their language hint, in tokens, at most


def _cap(mode: SourceMode, rank: int, budget: int) -> float:
    """The share of the budget a hit's code may take at its rank (from 0), under its ceiling in
    the default mode."""
    cap = HIT_SHARES[min(rank, len(HIT_SHARES) - 1)]
    if mode is SourceMode.HITS:
        cap = min(cap, HIT_CEILINGS[min(rank, len(HIT_CEILINGS) - 1)] / budget)
    return cap


def _focused(
    node: ExpandedNode,
    via: str | None,
    focus_on: FocusQuery,
    budget: int,
    count: TokenCounter,
    *,
    shares: Sequence[float] = FOCUS_SHARES,
    brief: bool = False,
) -> tuple[Rendering, ...]:
    """The focused renderings of a hit, largest first, each a new rendering or none."""
    if not node.source:
        return ()
    base = count(render_block(_said(node, brief), via_name=via, detail=Detail.SUMMARY))
    members = tuple(Member(m.line, m.name) for m in node.structure.members)
    out: list[Rendering] = []
    seen: set[str] = {node.source}
    for share in shares:
        room = int(budget * share) - base - _FENCE_COST
        if room <= 0:
            break
        text = focus(
            node.source,
            node.ref.line,
            terms=focus_on.terms,
            places=focus_on.lines_in(node.ref.key),
            budget=room,
            count=count,
            members=members,
        )
        if text is None or text in seen:
            continue
        seen.add(text)
        shown = attrs.evolve(node, source=text)
        rendered = render_block(shown, True, via, partial=True, brief=brief)
        out.append(Rendering(Detail.FOCUSED.value, rendered, essential=True))
    return tuple(out)


def _said(node: ExpandedNode, brief: bool) -> ExpandedNode:
    """The node as a block says it: a brief block says no summary."""
    return attrs.evolve(node, summary="") if brief else node


def _span(node: ExpandedNode) -> tuple[str, str, int, int] | None:
    """Where a node's code lies (its collection, file, first and last line), when its source is
    those lines as they are: not a module's (its own text, each definition elided to one line:
    greploom.core.module_text), nor a doc or config section's."""
    if (node.source is None and not node.earlier) or node.end_line is None or node.ref.kind in NOT_VERBATIM:
        return None  # (a node the session was sent keeps its lines, though its source is gone here)
    return node.collection, node.ref.file, node.ref.line, node.end_line


def _inside(inner: tuple[str, str, int, int], outer: tuple[str, str, int, int]) -> bool:
    return inner[:2] == outer[:2] and outer[2] <= inner[2] and inner[3] <= outer[3] and inner != outer


@attrs.frozen
class _Shown:
    """A hit whose own text shows its whole code: what the hits after it may lean on."""

    key: str
    qualname: str
    span: tuple[str, str, int, int]
    earlier: bool = False  # sent whole in an earlier answer of the session (ExpandedNode.earlier)


def _sent_earlier(node: ExpandedNode) -> tuple[_Shown, ...]:
    """A node the session received whole, as a hit shown above that the blocks after it lean
    on (their lines left out, or a pointer to it); none for any other node."""
    span = _span(node) if node.earlier else None
    return () if span is None else (_Shown(block_key(node), node.qualname, span, earlier=True),)


def _shortcuts(
    node: ExpandedNode,
    via: str | None,
    shown: Sequence[_Shown],
    *,
    room: int,
    focus_on: FocusQuery,
    count: TokenCounter,
    brief: bool = False,
) -> tuple[Rendering, ...]:
    """A hit's renderings that lean on the hits shown whole above it: a definition inside one
    points to it instead of repeating its code; one holding some shows the rest of its code
    (``brief``: without its summary)."""
    span = _span(node)
    if span is None:
        return ()
    said = _said(node, brief)
    outer = next((s for s in shown if _inside(span, s.span)), None)
    if outer is not None:
        text = render_block(said, via_name=via, detail=Detail.SUMMARY)
        where = "earlier in this session, in" if outer.earlier else "in"
        text += f"\nCode: shown {where} {outer.qualname}{'' if outer.earlier else ' above'}"
        return (Rendering(Detail.SUMMARY.value, text, () if outer.earlier else (outer.key,)),)
    inner = [s for s in shown if _inside(s.span, span)]
    if not inner or node.source is None:
        return ()
    lines = frozenset(line for s in inner for line in range(s.span[2], s.span[3] + 1))
    base = count(render_block(said, via_name=via, detail=Detail.SUMMARY))
    rest = focus(
        node.source,
        node.ref.line,
        terms=focus_on.terms,
        places=focus_on.lines_in(node.ref.key),
        budget=room - base - _FENCE_COST,
        count=count,
        members=tuple(Member(m.line, m.name) for m in node.structure.members),
        shown=lines,
    )
    if rest is None:
        return ()
    rendered = render_block(attrs.evolve(node, source=rest), True, via, partial=True, brief=brief)
    return (Rendering(Detail.FOCUSED.value, rendered, tuple(s.key for s in inner if not s.earlier)),)


def context_blocks(
    nodes: Sequence[ExpandedNode],
    include_source: bool | SourceMode = False,
    cut_hits: bool = False,
    *,
    focus_on: FocusQuery | None = None,
    budget: int = 0,
    count: TokenCounter | None = None,
) -> tuple[ContextBlock, ...]:
    """Blocks for expanded nodes, in their order, each with what it falls back to.

    A hit too long for what is left falls back to its summary without source,
    then to its one-line reference, so a long one does not crowd out the hits
    after it (measured on the quality harness: hit within 2,000 tokens 0.83 ->
    0.86 at top-5), and room for the references of the hits after it is held,
    so each hit is at least named; with ``cut_hits`` (nodes asked for by name)
    hits are cut instead. A graph neighbour falls back to its summary without
    source, else is dropped. Given ``focus_on``, ``budget`` and ``count``, levels of detail
    follow relevance: the first hit's code may take half the budget and each
    later hit's a quarter (``HIT_SHARES``), in the default mode never more than
    its rank's ``HIT_CEILINGS`` tokens, from the third on without its summary
    (``BRIEF_FROM``); past that a hit shows its focused
    source (greploom.core.focus) in that share, then in half of it, before
    its summary. Measured on the quality harness (requests, signals): hit
    within 1,000 tokens 0.87 -> 0.93, within 2,000 0.90 -> 0.93, fewer tokens;
    click, express, zod unchanged. ``include_source`` is a :class:`SourceMode`,
    or a bool for ALL or NONE.

    What the answer already says is not said twice (measured on the quality
    harness, 371 queries at 2,000 tokens: 1,768 tokens an answer -> see
    benchmarks/quality/REPORT.md, every hit@1k/2k/4k as before or higher):

    - parameters and imports reached from a node are not blocks of their own:
      its signature names its parameters, and its JSON result lists both;
      they are blocks only as hits (asked for by key);
    - in the default mode (``SourceMode.HITS``) the neighbours of the first
      hit are shown as signatures and summaries, the others as their one-line
      reference and what they relate to (``callee of Session.send``): the far
      ones named, for a follow-up by key;
    - a hit inside a hit shown whole above it (a method below its class)
      points to it instead of repeating its code, and a hit holding hits shown
      whole above it (a class below its methods) leaves their lines out, named
      by their markers (budget shortcuts: used only when those blocks were
      kept whole).
    """
    mode = source_mode(include_source)
    names = {block_key(n): n.qualname for n in nodes}
    first_hit = next((block_key(n) for n in nodes if n.relationship is Relationship.HIT), None)
    # What the hits lean on: those shown whole above them, and all the session was sent before.
    shown: list[_Shown] = [s for n in nodes for s in _sent_earlier(n)]
    blocks = []
    hits_seen = 0
    for n in nodes:
        via = names.get(block_key(n, n.via)) if n.via else None
        hit = n.relationship is Relationship.HIT and n.ref.kind not in LEAF_KINDS
        if n.relationship is not Relationship.HIT and n.ref.kind in LEAF_KINDS:
            continue  # named by its owner's signature and JSON result
        far = n.relationship is not Relationship.HIT and (n.via is None or block_key(n, n.via) != first_hit)
        if mode is SourceMode.HITS and far:
            reference = render_block(n, detail=Detail.REFERENCE)
            text = f"{reference}\n{relation_of(n)} {via}" if via else reference
            label = Detail.REFERENCE.value
            blocks.append(ContextBlock(block_key(n), text, n.relevance, label, may_cut=False))
            continue
        code = mode is SourceMode.ALL or (mode is SourceMode.HITS and hit)
        text = render_block(n, code, via)
        label = (Detail.FULL if code and n.source else Detail.SUMMARY).value
        fallbacks: list[Rendering] = []
        shortcuts: tuple[Rendering, ...] = ()
        brief = False
        if (
            hit
            and not cut_hits
            and label == Detail.FULL.value
            and focus_on is not None
            and count is not None
            and budget > 0
        ):
            # Levels of detail by relevance: the first hit may take half the budget,
            # each later one a quarter; more is shown focused, so the next hits fit.
            cap = _cap(mode, hits_seen, budget)
            brief = mode is SourceMode.HITS and hits_seen >= BRIEF_FROM
            text = render_block(n, True, via, brief=True) if brief else text  # whole, no summary
            focused = _focused(n, via, focus_on, budget, count, shares=(cap, cap / 2), brief=brief)
            over = count(text) > budget * cap
            if focused and over:
                text, label = focused[0].text, focused[0].label
                focused = focused[1:]
            elif over and mode is SourceMode.HITS:
                # No focused code fits under the ceiling: the hit says what it is instead.
                text, label = render_block(n, via_name=via, detail=Detail.SUMMARY), Detail.SUMMARY.value
            fallbacks.extend(focused)
            shortcuts = _shortcuts(
                n, via, shown, room=int(budget * cap), focus_on=focus_on, count=count, brief=brief
            )
            span = _span(n)
            if label == Detail.FULL.value and span is not None:
                shown.append(_Shown(block_key(n), n.qualname, span))
        hits_seen += hit and not n.earlier  # a hit the session was sent takes no rank
        if n.ref.kind not in LEAF_KINDS and label == Detail.FULL.value and not (hit and cut_hits):
            summary = render_block(n, via_name=via, detail=Detail.SUMMARY)
            fallbacks.append(Rendering(Detail.SUMMARY.value, summary))
        if hit and not cut_hits:
            fallbacks.append(Rendering(Detail.REFERENCE.value, render_block(n, detail=Detail.REFERENCE)))
        reserved = hit and not cut_hits  # and cut (may_cut) only when asked for by key
        # A hit's code, whole or focused, is what room is held for first (pack_blocks).
        essential = reserved and label in (Detail.FULL.value, Detail.FOCUSED.value)
        blocks.append(
            ContextBlock(
                block_key(n),
                text,
                n.relevance,
                label,
                tuple(fallbacks),
                hit and cut_hits,
                reserved,
                shortcuts,
                essential,
                brief,
            )
        )
    return tuple(blocks)


def assemble_context(
    nodes: Sequence[ExpandedNode],
    budget: int,
    count: TokenCounter,
    include_source: bool | SourceMode = False,
    reserve: int = 0,
    *,
    cut_hits: bool = False,
    focus_on: FocusQuery | None = None,
) -> Packing:
    """Render expanded nodes and pack them into ``budget`` tokens (see :func:`context_blocks`)."""
    blocks = context_blocks(
        nodes, include_source, cut_hits, focus_on=focus_on, budget=budget - max(reserve, 0), count=count
    )
    return pack_blocks(blocks, budget, count, reserve)
