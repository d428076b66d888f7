"""Call paths packed to a budget: the answer's header, its text and its JSON envelope.

The blocks greploom.core.path_render makes (a header per chain, a block per
step, each with its shorter renderings) are packed to the budget, the
header included (greploom.core.path_answer says how the answer is laid
out). A chain is shown whole or not at all: when the budget cannot name
every step of a chain, that chain and the ones after it are left out (the
header's ``dropped`` counts their steps) and the chains before them are
packed again in the room they leave.

The JSON envelope is ``{"metadata": {...}, "chains": [...], "results": [...]}``:
``chains`` lists every chain whole (its calls, each step's key and calling
line, ``null`` for the last), whatever the budget leaves of the code;
``results`` holds one result per step shown (chain and step numbers, key,
name, place, what it calls and on which line, ``detail``, ``text``), in
order, as many as fit (a JSON result costs more than its text, and
``chains`` names the steps left out), each priced as it is serialized
(greploom.core.envelope), so the budget holds for the whole envelope in
every form it is sent in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from greploom.core.budget import ContextBlock, Packing, Price, Rendering, TokenCounter, pack_blocks
from greploom.core.envelope import (
    Envelope,
    PackedEnvelope,
    envelope_tokens,
    in_place,
    packing_counts,
    settle_count,
    settle_tokens,
)
from greploom.core.path_render import Step
from greploom.core.paths import CallPaths
from greploom.core.render import Detail


def _within(calls: int) -> str:
    return f"within {calls} call{'s' if calls != 1 else ''}"


def _calls_text(paths: CallPaths) -> str:
    counts = sorted({c.calls for c in paths.chains})
    span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    n = len(paths.chains)
    chains = f"{n} chain{'s' if n != 1 else ''} of {span} call{'s' if counts[-1] != 1 else ''}"
    if n < paths.max_chains:
        return f"{chains} (all {_within(paths.max_calls)})"
    return f"{chains} (the {n} shortest {_within(paths.max_calls)})"


def path_summary(meta: Mapping[str, Any], paths: CallPaths) -> str:
    """What the chains say, in words: who reaches whom, how many chains of how many calls."""
    a, b = meta["from_name"], meta["to_name"]
    if not paths.chains:
        return f"no call chain {_within(paths.max_calls)} between {a} and {b}, either way"
    if paths.reverse:
        return f"{a} does not reach {b} {_within(paths.max_calls)}; {b} reaches {a}: {_calls_text(paths)}"
    return f"{a} reaches {b}: {_calls_text(paths)}"


def path_header(meta: Mapping[str, Any]) -> str:
    """The honesty header above a path answer: what was found, tokens, cuts, index age."""
    shortened = ""
    if meta.get("shortened"):
        shortened = f" | shortened: {meta['shortened']} ({meta['references']} to references)"
    stale = f" | stale: {meta['stale']} (files changed since indexed)" if meta.get("stale") else ""
    found, shown = meta.get("chains_found", 0), meta.get("chains_shown", 0)
    if shown < found:  # the budget held the first chains only, each whole
        shortened += f" | shown: {shown} of {found} chains"
    return (
        f"# greploom: call path | {meta['summary']} | {meta['tokens_used']}/{meta['budget']} tokens | "
        f"truncated: {'yes' if meta['truncated'] else 'no'} | dropped: {meta['dropped']}{shortened} | "
        f"index age: {meta['index_age']}{stale}"
    )


def _worst(meta: Mapping[str, Any], blocks: int, budget: int) -> dict[str, Any]:
    """The metadata at its widest: every count at its largest, the token count at the budget."""
    return dict(
        meta,
        budget=budget,
        results=blocks,
        tokens_used=budget,
        truncated=True,
        dropped=blocks,
        shortened=blocks,
        references=blocks,
        stale=blocks,
        chains_shown=0,
    )


def chain_of(key: str) -> int:
    """The chain a block belongs to, from its key (``chain 2``, ``chain 2 step 3``)."""
    return int(key.split(" ")[1])


def pack_whole_chains(
    blocks: Sequence[ContextBlock],
    budget: int,
    count: TokenCounter,
    reserve: int,
    *,
    price: Price | None = None,
) -> tuple[Packing, int] | None:
    """The blocks packed so that every chain shown is shown whole (each step at least its header
    line), the chains after one that does not fit left out; with the steps left out, or None when
    not even the first chain fits at its shortest. Fewer chains leave their steps more room, so
    each try repacks; when the first chain alone does not fit (joined, blocks may cost a little
    more than their parts), it is tried once more with every block at its shortest."""
    keep = max((chain_of(b.key) for b in blocks), default=0)
    while True:
        chosen = [b for b in blocks if chain_of(b.key) <= max(keep, 1)]
        if keep < 1:  # the first chain, every block at its shortest rendering
            chosen = [_shortest(b) for b in chosen]
        packing = pack_blocks(chosen, budget, count, reserve, price=price)
        if not packing.dropped:
            if keep < 1:  # each block as packed from its own renderings, so its shortening is counted
                given = {b.key: b for b in blocks}
                shown = tuple(attrs.evolve(p, block=given[p.block.key]) for p in packing.blocks)
                packing = attrs.evolve(packing, blocks=shown)
            return packing, sum(" step " in b.key for b in blocks if chain_of(b.key) > max(keep, 1))
        if keep < 1:
            return None
        keep = min(chain_of(k) for k in packing.dropped_keys) - 1


def _shortest(block: ContextBlock) -> ContextBlock:
    last = block.fallbacks[-1] if block.fallbacks else Rendering(block.label, block.text)
    return attrs.evolve(block, text=last.text, label=last.label, fallbacks=())


def _shown(packing: Packing, left_out: int) -> dict[str, Any]:
    """What the metadata says of the steps and chains shown (chain headers are no results), over
    greploom.core.envelope.packing_counts."""
    reference = Detail.REFERENCE.value
    return {
        "results": sum(" step " in p.block.key for p in packing.blocks),
        # Shortened to their header line; a step shown in an earlier chain is one from the start.
        "references": sum(p.label == reference != p.block.label for p in packing.blocks),
        "dropped": left_out,
        "chains_shown": len({chain_of(p.block.key) for p in packing.blocks}),
    }


def _compose(meta: Mapping[str, Any], packing: Packing) -> str:
    return path_header(meta) + "\n\n" + (packing.text or str(meta.get("note", ""))) + "\n"


def _settle_text(meta: dict[str, Any], packing: Packing, count: TokenCounter) -> tuple[str, int]:
    """The text with ``tokens_used`` stating its own count (as a query's text settles it)."""
    used = settle_count(meta, lambda: count(_compose(meta, packing)))
    return _compose(meta, packing), used


def pack_path_text(
    metadata: Mapping[str, Any],
    blocks: Sequence[ContextBlock],
    stale: frozenset[str],
    budget: int,
    count: TokenCounter,
) -> tuple[str, Packing, dict[str, Any]] | None:
    """The answer as text in ``budget`` tokens, header and final newline included, or None when the
    budget holds not one block beside the header (with no chains: not the header and its note).
    ``stale``: the ids of the steps whose files changed."""
    meta = dict(metadata, budget=budget)
    reserve = count(path_header(_worst(meta, len(blocks), budget)) + "\n\n")
    while reserve < budget:
        whole = pack_whole_chains(blocks, budget, count, reserve)
        if whole is None:
            return None
        packing, left_out = whole
        meta.update(packing_counts(packing, stale), tokens_used=packing.tokens_used)
        meta.update(_shown(packing, left_out))
        text, used = _settle_text(meta, packing, count)
        if used <= budget:
            return text, packing, meta
        if not packing.blocks:
            return None
        reserve += used - budget
    return None


def step_json(step: Step, text: str, label: str, *, cut: bool, tokens: int) -> dict[str, Any]:
    """One result of the envelope: a step shown as ``text`` (rendering ``label``)."""
    ref = step.node.ref
    return {
        "chain": step.chain,
        "step": step.index,
        "key": ref.key,
        "name": ref.name,
        "qualname": step.node.qualname,
        "kind": ref.kind,
        "file": ref.file,
        "line": ref.line,
        "end_line": step.node.end_line,
        "calls": step.calls.ref.key if step.calls is not None else None,
        "call_line": step.call_line,
        "tokens": tokens,
        "cut": cut,
        "stale": step.stale,
        "detail": label or None,
        "text": text,
    }


def chains_json(paths: CallPaths, steps: Sequence[Step]) -> list[dict[str, Any]]:
    """Every chain whole: its calls, its steps' keys and calling lines (``null`` for the last)."""
    return [
        {
            "calls": chain.calls,
            "keys": list(chain.keys),
            "call_lines": [s.call_line for s in steps if s.chain == c],
        }
        for c, chain in enumerate(paths.chains, 1)
    ]


def pack_path_envelope(
    metadata: Mapping[str, Any],
    chains: list[dict[str, Any]],
    steps: Sequence[Step],
    blocks: Sequence[ContextBlock],
    budget: int,
    *,
    count: TokenCounter,
) -> PackedEnvelope | None:
    """The envelope in ``budget`` tokens in every form it is sent in, or None when the budget
    holds not one result beside the metadata and the chains (with no chains: not those alone).
    ``blocks``: the steps' blocks (:func:`path_blocks` with ``text`` False)."""
    if budget <= 0:
        return None
    meta = dict(metadata, budget=budget)
    reserve = envelope_tokens(
        {"metadata": _worst(meta, len(blocks), budget), "chains": chains, "results": []}, count
    )
    by_id = {s.id: s for s in steps}
    stale = frozenset(s.id for s in steps if s.stale)

    def price(block: ContextBlock, rendering: Rendering, cut: bool, first: bool) -> int:
        result = step_json(by_id[block.key], rendering.text, rendering.label, cut=cut, tokens=budget)
        return max(count(text) for text in in_place(result, first))

    while reserve < budget:
        # Steps in order, as many as fit: ``chains`` names every step whatever is left out.
        packing = pack_blocks(blocks, budget, count, reserve, price=price)
        if blocks and not packing.blocks:
            return None
        meta.update(packing_counts(packing, stale), tokens_used=packing.tokens_used)
        meta.update(_shown(packing, packing.dropped))
        results = [
            step_json(by_id[p.block.key], p.text, p.label, cut=p.cut, tokens=p.tokens) for p in packing.blocks
        ]
        envelope: Envelope = {"metadata": meta, "chains": chains, "results": results}
        used = settle_tokens(envelope, count)
        if used <= budget:
            return PackedEnvelope(envelope, packing, used)
        if not packing.blocks:
            return None
        reserve += used - budget
    return None
