"""The JSON envelope packed to the budget: the whole of it, as sent, never over.

The text answer and the envelope are packed apart, each for itself: a JSON
result carries its text and more (names, place, relevance, structure), so
packing the envelope with the text's costs would send several times the
budget (48,156 tokens for an answer whose header said 2,807, before this).

Here every result is priced as it is serialized inside the envelope, and the
envelope is checked whole:

- ``reserve``: the metadata at its widest (every count at its largest, the
  token count at the budget), with an empty result list;
- each result: its serialization in place, separator included, with its own
  ``tokens`` field at the budget (a number never costs more tokens with
  fewer digits); the packer (:func:`greploom.core.budget.pack_blocks`) picks
  renderings as for the text: a hit too long becomes its summary, then its
  one-line reference; nodes asked for by name are cut;
- then the envelope is serialized and counted whole, its ``tokens_used``
  settled on its own count, and packed again with a wider reserve if joining
  ever cost more than the parts.

An envelope is sent in more than one form, and the budget holds for each
(:data:`FORMS`; a result's price is its dearest form):

- ``cli``: ``greploom query --format json``, indented by two, UTF-8, a
  final newline (kept indented: people and ``jq`` read it; it is the dearest);
- ``mcp``: the MCP structured result as the wire carries it, compact UTF-8;
- ``ascii``: ``json.dumps`` with its defaults (``\\u`` escapes), what a
  Python caller gets from ``json.dumps(answer.envelope)``.

Laws (tests/properties/test_envelope.py): in every form the envelope fits the
budget; its ``tokens_used`` is its own count in the dearest form; results keep
the nodes' order; ``source`` is sent only for a result shown whole with its
source; structure lists are capped and a capped list carries its total;
an envelope without results comes only for nothing to show.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from greploom.core.budget import ContextBlock, Packing, Rendering, TokenCounter, pack_blocks
from greploom.core.expand import ExpandedNode
from greploom.core.focus import FocusQuery
from greploom.core.render import Detail, SourceMode, block_key, context_blocks
from greploom.core.render_json import render_json, result_json

Envelope = dict[str, Any]


def cli_form(envelope: Envelope) -> str:
    """As ``greploom query --format json`` prints it."""
    return json.dumps(envelope, indent=2, ensure_ascii=False) + "\n"


def mcp_form(envelope: Envelope) -> str:
    """As the MCP wire carries a structured result (pydantic's compact JSON)."""
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)


def ascii_form(envelope: Envelope) -> str:
    """``json.dumps`` with its defaults."""
    return json.dumps(envelope)


FORMS: tuple[tuple[str, Callable[[Envelope], str]], ...] = (
    ("cli", cli_form),
    ("mcp", mcp_form),
    ("ascii", ascii_form),
)


def in_place(result: Mapping[str, Any], first: bool) -> tuple[str, ...]:
    """A result as each form writes it inside ``"results": [...]``, its separator first."""
    indented = textwrap.indent(json.dumps(result, indent=2, ensure_ascii=False), "    ")
    return (
        ("\n" if first else ",\n") + indented,
        ("" if first else ",") + json.dumps(result, separators=(",", ":"), ensure_ascii=False),
        ("" if first else ", ") + json.dumps(result),
    )


def envelope_tokens(envelope: Envelope, count: TokenCounter) -> int:
    """The envelope's tokens in its dearest form."""
    return max(count(form(envelope)) for _, form in FORMS)


@attrs.frozen
class PackedEnvelope:
    """An envelope packed to its budget, with the packing it shows."""

    envelope: Envelope
    packing: Packing
    tokens: int


def packing_counts(packing: Packing, stale: frozenset[str] = frozenset()) -> dict[str, Any]:
    """What a packing kept, cut, dropped and shortened, and how many of its blocks are stale
    (their keys ``stale``: greploom.core.freshness), as the metadata states it."""
    return {
        "results": len(packing.blocks),
        "truncated": packing.truncated,
        "dropped": packing.dropped,
        # Shown shorter than whole: a fallback, or focused from the start (a hit's code
        # past its share of the budget, greploom.core.render.HIT_SHARES).
        "shortened": sum(
            not p.cut and (p.label != p.block.label or p.label == Detail.FOCUSED.value)
            for p in packing.blocks
        ),
        # Of those, the ones shortened to their one-line reference (a far neighbour shown as
        # its reference from the start is not shortened: greploom.core.render.context_blocks).
        "references": sum(
            p.label == Detail.REFERENCE.value != p.block.label for p in packing.blocks
        ),
        "stale": sum(p.block.key in stale for p in packing.blocks),
    }


def pack_envelope(
    metadata: Mapping[str, Any],
    nodes: Sequence[ExpandedNode],
    budget: int,
    count: TokenCounter,
    *,
    include_source: bool | SourceMode = False,
    cut_hits: bool = False,
    blocks: Sequence[ContextBlock] | None = None,
    focus_on: FocusQuery | None = None,
) -> PackedEnvelope | None:
    """The envelope of ``nodes`` packed into ``budget`` tokens, or None when it cannot answer.

    It cannot when not even one result fits beside the metadata (or, with no
    blocks at all, when the metadata alone does not fit). ``metadata`` is
    copied, with ``budget``, the packing's counts and ``tokens_used`` set.
    ``blocks``: the renderings to choose from, one block per node by key
    (default: :func:`~greploom.core.render.context_blocks` of the nodes).
    """
    if budget <= 0:
        return None
    meta = dict(metadata, budget=budget)
    widest = len(nodes)
    worst = dict(meta, results=widest, truncated=True, dropped=widest, shortened=widest)
    worst.update(references=widest, stale=widest, tokens_used=budget)
    reserve = envelope_tokens({"metadata": worst, "results": []}, count)
    stale = frozenset(block_key(n) for n in nodes if n.stale)
    if blocks is None:
        room = budget - reserve
        blocks = context_blocks(nodes, include_source, cut_hits, focus_on=focus_on, budget=room, count=count)
    by_key = {block_key(n): n for n in nodes}

    def price(block: ContextBlock, rendering: Rendering, cut: bool, first: bool) -> int:
        node = by_key[block.key]
        result = result_json(
            node,
            rendering.text,
            rendering.label,
            cut=cut,
            tokens=budget,
            include_source=include_source,
            brief=block.brief,
        )
        return max(count(text) for text in in_place(result, first))

    while reserve < budget:
        packing = pack_blocks(blocks, budget, count, reserve, price=price)
        if blocks and not packing.blocks:
            return None
        meta.update(packing_counts(packing, stale), tokens_used=packing.tokens_used)
        envelope = render_json(meta, packing, nodes, include_source)
        envelope["metadata"] = meta  # settled in place below
        used = settle_tokens(envelope, count)
        if used <= budget:
            return PackedEnvelope(envelope, packing, used)
        if not packing.blocks:
            return None
        reserve += used - budget
    return None


def settle_tokens(envelope: Envelope, count: TokenCounter) -> int:
    """Make ``tokens_used`` state the envelope's own count (it counts itself); return it."""
    return settle_count(envelope["metadata"], lambda: envelope_tokens(envelope, count))


def settle_count(meta: dict[str, Any], measure: Callable[[], int]) -> int:
    """Make ``meta["tokens_used"]`` state the count of what holds it (``measure``); return it.

    The count settles in a step or two (only the number's digits move it);
    should it ever flip between two counts, the stated one only rises from
    then on, so it ends at a ceiling of the true count, never below it.
    Shared by the JSON envelope, a query's text and a call path's text.
    """
    seen: set[int] = set()
    rising = False
    while True:
        used = measure()
        if used == meta["tokens_used"] or (rising and used <= meta["tokens_used"]):
            return int(meta["tokens_used"])
        rising = rising or used in seen
        seen.add(used)
        meta["tokens_used"] = max(used, meta["tokens_used"]) if rising else used
