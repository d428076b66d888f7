"""Call paths as an answer: every step's code with its calling line marked, packed to a budget.

The chains :func:`greploom.core.paths.shortest_chains` found become blocks,
chain by chain. A chain opens with one line naming its steps::

    ## chain 1 of 2: 2 calls: shop.cart.checkout -> shop.orders.place -> shop.net.send_order

and each step is a block::

    ## step 1 of 3: function shop.cart.checkout (shop/cart.py:10) key: function:shop/cart.py:checkout
    Defined at shop/cart.py:10-20
    calls shop.orders.place at shop/cart.py:14
    ```python
    def checkout(cart):
        ...
        order = place(cart)  # <- calls place
    ```

The calling line (:func:`greploom.core.paths.call_line`) keeps its text and
gains a trailing comment in the file's own comment syntax, ``# <- calls
NAME`` (``// <- calls NAME`` for the C family, JavaScript, Go, Rust, Java
and the like): the code stays code, one line is marked, and the header's
``calls ... at FILE:LINE`` names the line for a reader who does not see the
mark. The last step calls nothing; its code is shown from its start.

Levels of detail, as for a query's hits (greploom.core.render): each step's
code may take a share of the budget, one over the number of distinct
definitions in the answer (at most half, at least an eighth); a step whose
whole code does not fit in it is shown focused around its calling line
(greploom.core.focus: the signature, the calling line and its neighbours,
the elided runs named), then focused in half that share, then as its
summary with the calling line alone, then as its header line (a focus too
small to keep the calling line is not offered). Room for every step's
header line is held while the steps before it are packed, so each step is
at least named. A chain is shown whole or not at all: when the budget
cannot name every step of a chain, that chain and the ones after it are
left out (the header's ``dropped`` counts their steps) and the chains
before them are packed again in the room they leave. A step an earlier
chain showed already (the same definition calling the same next step) is
its header alone, saying which chain; a definition shown before with
another call gets half the share (whole if it fits, else focused around
the new calling line).

The JSON envelope is ``{"metadata": {...}, "chains": [...], "results": [...]}``:
``chains`` lists every chain whole (its calls, each step's key and calling
line, ``null`` for the last), whatever the budget leaves of the code;
``results`` holds one result per step shown (chain and step numbers, key,
name, place, what it calls and on which line, ``detail``, ``text``), in
order, as many as fit (a JSON result costs more than its text, and
``chains`` names the steps left out), each priced as it is serialized
(greploom.core.envelope), so the budget holds for the whole envelope in
every form it is sent in.

Laws (tests/properties/test_path_answer.py): the text and the envelope
never exceed the budget and state their own token counts; the steps keep
the chains' order; every chain shown is shown whole, its header first,
and the chains shown are the first ones; a step shown with code carries
the mark on its calling line, and only there.
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
    settle_tokens,
)
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.focus import Member, focus
from greploom.core.paths import CallPaths, call_line, name_in_code
from greploom.core.render import Detail, fence_for, language_of, location_text

MARK = "<- calls"
# Languages whose line comments start with //; the rest (Python, Ruby, shell, ...) take #.
SLASH_COMMENTS = frozenset(
    {
        "javascript",
        "jsx",
        "typescript",
        "tsx",
        "go",
        "rust",
        "java",
        "c",
        "cpp",
        "kotlin",
        "csharp",
        "swift",
        "php",
    }
)
SHARES = (0.5, 0.125)  # a step's share of the budget: one over the definitions, within these
_FENCE_COST = 8  # the fence lines and their language hint, in tokens, at most


@attrs.frozen
class Step:
    """One step of a chain: a definition, what it calls next and on which line of its file."""

    node: NodeContext
    chain: int  # 1-based
    index: int  # 1-based, within the chain
    steps: int  # how many steps the chain has
    calls: NodeContext | None  # the next step; None for the chain's end
    call_line: int | None  # the file line calling it, when the code names it
    seen_in: int | None = None  # an earlier chain showing this very step (same definition, same call)
    shown_before: bool = False  # an earlier chain showed this definition, calling something else
    stale: bool = False  # its file changed since the index read it

    @property
    def id(self) -> str:
        """The step's block key: unique in an answer."""
        return f"chain {self.chain} step {self.index}"


def _placeholder(key: str) -> NodeContext:
    """A definition the graph names but the index has no row for (it cannot happen in one snapshot)."""
    return NodeContext(ref=NodeRef(key, key, "definition", "", 0), qualname=key, summary="")


def path_steps(
    paths: CallPaths, contexts: Mapping[str, NodeContext], stale_files: frozenset[str] = frozenset()
) -> tuple[Step, ...]:
    """The steps of every chain, in order, each with its calling line and what earlier chains showed."""
    out: list[Step] = []
    shown: dict[tuple[str, str | None], int] = {}
    nodes_shown: set[str] = set()
    for c, chain in enumerate(paths.chains, 1):
        nodes = [contexts.get(k) or _placeholder(k) for k in chain.keys]
        for i, node in enumerate(nodes):
            nxt = nodes[i + 1] if i + 1 < len(nodes) else None
            line = None
            if nxt is not None and node.source:
                line = call_line(node.source, node.ref.line, nxt.ref.name, node.ref.name)
            edge = (node.ref.key, nxt.ref.key if nxt else None)
            out.append(
                Step(
                    node=node,
                    chain=c,
                    index=i + 1,
                    steps=len(nodes),
                    calls=nxt,
                    call_line=line,
                    seen_in=shown.get(edge),
                    shown_before=edge not in shown and node.ref.key in nodes_shown,
                    stale=node.ref.file in stale_files,
                )
            )
            shown.setdefault(edge, c)
            nodes_shown.add(node.ref.key)
    return tuple(out)


def mark_for(file: str, callee: str) -> str:
    """The trailing comment marking a calling line: ``  # <- calls send`` (``//`` where the language says)."""
    lead = "//" if language_of(file) in SLASH_COMMENTS else "#"
    return f"  {lead} {MARK} {name_in_code(callee)}"


def marked_source(step: Step) -> str | None:
    """The step's source with its calling line marked (as it is when there is no such line)."""
    source = step.node.source
    if source is None or step.calls is None or step.call_line is None:
        return source
    lines = source.split("\n")
    at = step.call_line - step.node.ref.line
    if 0 <= at < len(lines):
        lines[at] = lines[at].rstrip() + mark_for(step.node.ref.file, step.calls.ref.name)
    return "\n".join(lines)


def step_header(step: Step) -> str:
    """``## step 2 of 3: function shop.net.send (shop/net.py:8) key: function:shop/net.py:send``."""
    ref = step.node.ref
    place = f"{ref.file}:{ref.line}, stale" if step.stale else f"{ref.file}:{ref.line}"
    again = f" (as in chain {step.seen_in})" if step.seen_in is not None else ""
    what = f"{ref.kind} {step.node.qualname} ({place})"
    return f"## step {step.index} of {step.steps}{again}: {what} key: {ref.key}"


def _calls_line(step: Step) -> str | None:
    if step.calls is None:
        return None
    callee = step.calls.qualname
    if step.call_line is None:
        return f"calls {callee} (no line of its code names it)"
    return f"calls {callee} at {step.node.ref.file}:{step.call_line}"


def _fenced(file: str, code: str) -> list[str]:
    fence = fence_for(code)
    return [f"{fence}{language_of(file)}", code.rstrip("\n"), fence]


def render_step(step: Step, code: str | None = None, *, summary: bool = False) -> str:
    """A step's block: header, place, what it calls where, and ``code`` (marked) when given;
    ``summary``: its summary and the calling line alone instead of code."""
    lines = [step_header(step)]
    if summary and step.node.summary:
        lines.append(step.node.summary)
    lines.append(f"Defined at {location_text(step.node.ref.file, step.node.ref.line, step.node.end_line)}")
    calls = _calls_line(step)
    if calls:
        lines.append(calls)
    marked = marked_source(step)
    if code is not None:
        lines.extend(_fenced(step.node.ref.file, code))
    elif summary and marked is not None and step.call_line is not None:
        at = step.call_line - step.node.ref.line
        shown = marked.split("\n")
        if 0 <= at < len(shown):
            lines.extend(_fenced(step.node.ref.file, shown[at].strip()))
    return "\n".join(lines)


def _focused(step: Step, source: str, room: int, count: TokenCounter) -> str | None:
    """The step's code focused around its calling line in ``room`` tokens, as a block."""
    base = count(render_step(step))
    budget = room - base - _FENCE_COST
    if budget <= 0:
        return None
    # The calling line is the one place; no terms: a callee's name split into words
    # (`compute_rows`: `rows`) would pull in every line holding one of them.
    places = frozenset({step.call_line}) if step.call_line is not None else frozenset()
    members = tuple(Member(m.line, m.name) for m in step.node.structure.members)
    text = focus(
        source,
        step.node.ref.line,
        terms=frozenset(),
        places=places,
        budget=budget,
        count=count,
        members=members,
    )
    return None if text is None else render_step(step, text)


def step_share(steps: Sequence[Step]) -> float:
    """The share of the budget a step's code may take: one over the distinct definitions."""
    distinct = len({s.node.ref.key for s in steps})
    return min(SHARES[0], max(SHARES[1], 1 / max(distinct, 1)))


def step_block(
    step: Step, budget: int, count: TokenCounter, *, code: bool = True, share: float = 0.5
) -> ContextBlock:
    """A step's block with its shorter renderings (see the module's levels of detail)."""
    reference = Rendering(Detail.REFERENCE.value, step_header(step))
    if step.seen_in is not None:
        return ContextBlock(step.id, reference.text, label=reference.label, may_cut=False, reserved=True)
    summary = Rendering(Detail.SUMMARY.value, render_step(step, summary=True))
    source = marked_source(step)
    if not code or not source:
        return ContextBlock(
            step.id, summary.text, label=summary.label, fallbacks=(reference,), may_cut=False, reserved=True
        )
    room = int(budget * share / (2 if step.shown_before else 1))
    full = render_step(step, source)
    renderings: list[Rendering] = []
    if count(full) <= room:
        renderings.append(Rendering(Detail.FULL.value, full))
    for part in (room, room // 2):
        text = _focused(step, source, part, count)
        if text is None or (step.call_line is not None and MARK not in text):
            continue  # a focus too small for the calling line says less than the summary
        if text != full and all(r.text != text for r in renderings):
            renderings.append(Rendering(Detail.FOCUSED.value, text))
    renderings.extend((summary, reference))
    first, *rest = renderings
    return ContextBlock(
        step.id, first.text, label=first.label, fallbacks=tuple(rest), may_cut=False, reserved=True
    )


def chain_header(paths: CallPaths, steps: Sequence[Step], chain: int) -> str:
    """``## chain 1 of 2: 2 calls: a -> b -> c``."""
    names = [s.node.qualname for s in steps if s.chain == chain]
    calls = len(names) - 1
    plural = "s" if calls != 1 else ""
    return f"## chain {chain} of {len(paths.chains)}: {calls} call{plural}: {' -> '.join(names)}"


def path_blocks(
    paths: CallPaths,
    steps: Sequence[Step],
    budget: int,
    count: TokenCounter,
    *,
    code: bool = True,
    text: bool = True,
) -> tuple[ContextBlock, ...]:
    """The answer's blocks in order: each chain's header (``text`` only: the envelope lists the
    chains apart), then its steps."""
    share = step_share(steps)
    blocks: list[ContextBlock] = []
    for step in steps:
        if text and step.index == 1:
            header = chain_header(paths, steps, step.chain)
            blocks.append(ContextBlock(f"chain {step.chain}", header, may_cut=False, reserved=True))
        blocks.append(step_block(step, budget, count, code=code, share=share))
    return tuple(blocks)


# -- the header, the text and the envelope ---------------------------------------------------


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
    """The text with ``tokens_used`` stating its own count (as greploom.shell.answer settles a query's)."""
    seen: set[int] = set()
    rising = False
    while True:
        text = _compose(meta, packing)
        used = count(text)
        if used == meta["tokens_used"] or (rising and used <= meta["tokens_used"]):
            return text, int(meta["tokens_used"])
        rising = rising or used in seen
        seen.add(used)
        meta["tokens_used"] = max(used, meta["tokens_used"]) if rising else used


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
