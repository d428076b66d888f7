"""Greedy budget packing: as much of the most relevant text as fits, never more.

Blocks arrive in relevance order and are considered once each, in that order:

- a block that fits whole is kept whole;
- a block that does not fit is cut on a line boundary to the longest prefix
  that fits, any code fence it opened is closed, and a ``[cut to fit the
  token budget]`` line says so; a block whose first line (its header) does not
  fit even alone is dropped and counted;
- later, smaller blocks may still fit after a block was cut or dropped.

Every token emitted is counted with the caller's counter (the shell passes
tiktoken's cl100k_base): block headers, separators and fences included. The
packed text is counted once more as a whole at the end, and trimmed from the
end if joining ever cost more than the parts, so the budget holds for the
text as emitted, not for an estimate.

Laws (tests/properties/test_budget.py): never over budget; order kept;
every dropped block would not have fit when considered; fences balanced;
more budget never packs fewer tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import attrs

TokenCounter = Callable[[str], int]
SEPARATOR = "\n\n"  # between blocks
CUT_MARK = "[cut to fit the token budget]"
_FENCE = re.compile(r"^(`{3,})([^`]*)$")


@attrs.frozen
class ContextBlock:
    """One unit of context: a key, its rendered text and its relevance."""

    key: str
    text: str
    relevance: float = 1.0


@attrs.frozen
class PackedBlock:
    """A block as emitted: possibly cut, with the tokens it cost."""

    block: ContextBlock
    text: str
    tokens: int
    cut: bool


@attrs.frozen
class Packing:
    """The outcome of packing: what was kept, what it cost, and what was lost."""

    blocks: tuple[PackedBlock, ...]
    text: str
    tokens_used: int
    budget: int
    truncated: bool  # some block was cut
    dropped: int  # blocks left out entirely
    dropped_keys: tuple[str, ...] = ()


# The public name other pipelines know the outcome by.
ContextResult = Packing


def fence_state(lines: Sequence[str]) -> str | None:
    """The fence still open after these lines (its backtick run), or None."""
    open_fence: str | None = None
    for line in lines:
        match = _FENCE.match(line.rstrip())
        if match is None:
            continue
        ticks, info = match.groups()
        if open_fence is None:
            open_fence = ticks
        elif not info.strip() and len(ticks) >= len(open_fence):
            open_fence = None
    return open_fence


def _cut_text(lines: Sequence[str], n: int) -> str:
    head = list(lines[:n])
    fence = fence_state(head)
    if fence is not None:
        head.append(fence)
    head.append(CUT_MARK)
    return "\n".join(head)


def _cut_to_fit(text: str, fits: Callable[[str], bool]) -> str | None:
    """The longest line-prefix cut of ``text`` (fence closed, mark added) that fits."""
    lines = text.split("\n")
    lo, hi = 1, len(lines) - 1  # at least the header, at most all but one line
    if hi < lo or not fits(_cut_text(lines, lo)):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(_cut_text(lines, mid)):
            lo = mid
        else:
            hi = mid - 1
    return _cut_text(lines, lo)


def pack_blocks(
    blocks: Sequence[ContextBlock],
    budget: int,
    count: TokenCounter,
    reserve: int = 0,
) -> Packing:
    """Pack ``blocks`` in order into ``budget`` tokens, ``reserve`` of them kept aside.

    ``reserve`` is for a header the caller prints above the blocks; it is
    included in ``tokens_used``.
    """
    if budget <= 0:
        raise ValueError("budget must be positive")
    available = budget - max(reserve, 0)
    kept: list[PackedBlock] = []
    dropped: list[str] = []
    used = 0
    for block in blocks:
        prefix = SEPARATOR if kept else ""
        room = available - used

        def fits(candidate: str, prefix: str = prefix, room: int = room) -> bool:
            return count(prefix + candidate) <= room

        cost = count(prefix + block.text)
        if cost <= room:
            kept.append(PackedBlock(block, block.text, cost, cut=False))
            used += cost
            continue
        cut = _cut_to_fit(block.text, fits)
        if cut is None:
            dropped.append(block.key)
            continue
        cost = count(prefix + cut)
        kept.append(PackedBlock(block, cut, cost, cut=True))
        used += cost
    text = SEPARATOR.join(p.text for p in kept)
    # Joining can merge tokens across a boundary differently than the parts
    # did; the whole is what the reader gets, so the whole must fit.
    while kept and count(text) > available:
        dropped.insert(0, kept.pop().block.key)
        text = SEPARATOR.join(p.text for p in kept)
    total = count(text) if kept else 0
    return Packing(
        blocks=tuple(kept),
        text=text,
        tokens_used=total + max(reserve, 0),
        budget=budget,
        truncated=any(p.cut for p in kept),
        dropped=len(dropped),
        dropped_keys=tuple(dropped),
    )
