"""The steps of call chains and their blocks: each step's code with its calling line marked.

The chains :func:`greploom.core.paths.shortest_chains` found become steps
(:func:`path_steps`) and then blocks, chain by chain
(greploom.core.path_answer says how the answer is laid out, and
greploom.core.path_pack packs these blocks). A chain opens with one line
naming its steps::

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
at least named. A step an earlier chain showed already (the same definition
calling the same next step) is its header alone, saying which chain; a
definition shown before with another call gets half the share (whole if it
fits, else focused around the new calling line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from greploom.core.budget import ContextBlock, Rendering, TokenCounter
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
