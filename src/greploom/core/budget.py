"""Greedy budget packing: as much of the most relevant text as fits, never more.

Blocks arrive in relevance order and are considered once each, in that order:

- a block that fits whole is kept whole;
- otherwise its first fallback rendering that fits whole is kept (a block
  may offer shorter renderings of itself: a search hit its summary without
  source, then its one-line reference; a graph neighbour its summary); room for the
  shortest rendering of every *reserved* block still to come is held back
  from all but a block's shortest rendering, so ten hits all get at least
  their reference before any gets its source;
- otherwise, if it may be cut, it is cut on a line boundary to the longest
  prefix that fits, any code fence it opened is closed, and a ``[cut to fit
  the token budget]`` line says so;
- otherwise (or when not even its first line fits) it is dropped and counted;
- later, smaller blocks may still fit after a block was cut or dropped.

A block may also offer *shortcuts*: renderings tried before its text, each
usable only when every block it ``needs`` was kept before it whole (its own
text, uncut). A method whose class is shown whole above says so instead of
repeating its code, and a class shows its methods shown above by their
marker only; when the block they lean on was shortened or dropped, the
shortcut is passed over and the block stands on its own.

Fallbacks are what let a context hold ten hits instead of one: a long hit
shown as a reference leaves the budget to the hits after it, where cutting
it would have spent all of it.

Every token emitted is counted with the caller's counter (the shell passes
tiktoken's cl100k_base): block headers, separators and fences included. The
packed text is counted once more as a whole at the end, and trimmed from the
end if joining ever cost more than the parts, so the budget holds for the
text as emitted, not for an estimate.

A block emitted as something else than its text (a JSON result holding it:
``greploom.core.envelope``) is priced by the caller: ``price(block,
rendering, cut, first)`` says what it costs as emitted, separator included,
and the same greedy rules apply to those costs; the caller then checks the
emitted whole, as the text path does here.

The smallest budget that gives an answer is found by search, not estimated
(:func:`smallest_budget`): a caller asked for less than that names it.

Laws (tests/properties/test_budget.py): never over budget; order kept;
every dropped block would not have fit when considered; a fallback is used
only when the more detailed renderings did not fit in the room not held for
reserved blocks; when every reserved block's essential rendering fits
together, each is kept with one; when the joined blocks cost more than their
parts, the latest block that can is shown shorter before the last is left
out; a shortcut is used only when every block it needs was kept whole before
it; fences balanced; without fallbacks, more budget never
packs fewer tokens; a custom price is what the packing spends; the smallest
budget found answers and the one below it does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import attrs

TokenCounter = Callable[[str], int]
# What one block costs as emitted: (block, rendering, cut, first) -> tokens,
# the separator before it included (none before the first).
Price = Callable[["ContextBlock", "Rendering", bool, bool], int]
SEPARATOR = "\n\n"  # between blocks
CUT_MARK = "[cut to fit the token budget]"
_FENCE = re.compile(r"^(`{3,})([^`]*)$")


@attrs.frozen
class Rendering:
    """A shorter rendering of a block, named for readers of the JSON (``reference``)."""

    label: str
    text: str
    # Keys of earlier blocks this rendering leans on: usable only when each was kept whole
    # (its own text, uncut), as a shortcut (ContextBlock.shortcuts).
    needs: tuple[str, ...] = ()
    # Worth holding room for, for a reserved block (a hit's code, focused): see pack_blocks.
    essential: bool = False


@attrs.frozen
class ContextBlock:
    """One unit of context: a key, its rendered text and its relevance.

    ``shortcuts`` are renderings tried before ``text``, each only when the
    blocks it ``needs`` were kept whole before it; ``fallbacks`` are shorter
    renderings, tried in order when ``text`` does not fit whole; ``may_cut``
    says whether ``text`` may then be cut. For a
    ``reserved`` block, room for its shortest rendering is held while the
    blocks before it are packed: they get their longer renderings only from
    what is left after that room.
    """

    key: str
    text: str
    relevance: float = 1.0
    label: str = ""
    fallbacks: tuple[Rendering, ...] = ()
    may_cut: bool = True
    reserved: bool = False
    shortcuts: tuple[Rendering, ...] = ()
    essential: bool = False  # its text is essential (Rendering.essential)
    # A far hit, shown briefly (greploom.core.render.BRIEF_FROM): its renderings but the summary
    # say nothing of what it relates to, so its JSON result lists no neighbours, only their counts.
    brief: bool = False


@attrs.frozen
class PackedBlock:
    """A block as emitted: whole, as a fallback (``label`` names it), or cut, with its cost."""

    block: ContextBlock
    text: str
    tokens: int
    cut: bool
    label: str = ""


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


def _renderings(block: ContextBlock, whole: set[str] | None = None) -> tuple[Rendering, ...]:
    """The block's renderings, most detailed first: its shortcuts whose needs were kept
    ``whole`` (none without it), its text, its fallbacks."""
    usable = tuple(r for r in block.shortcuts if whole is not None and set(r.needs) <= whole)
    return (*usable, Rendering(block.label, block.text, essential=block.essential), *block.fallbacks)


def _holds(
    blocks: Sequence[ContextBlock], available: int, cost: Callable[[ContextBlock, Rendering, bool, bool], int]
) -> list[int]:
    """The room held for each reserved block while those before it are packed: its shortest
    rendering's, raised to its cheapest essential one's for each block in order while the
    holds still fit ``available`` together, up to the first that does not. Measured on the
    quality harness at 1,000 tokens: five hits showing their code, focused, rather than the
    first whole and the fifth as a reference; hit@1k 0.891 -> 0.899, tokens and every other
    figure unchanged."""
    held = [cost(b, _renderings(b)[-1], False, False) if b.reserved else 0 for b in blocks]
    total = sum(held)
    for index, block in enumerate(blocks):
        if not block.reserved:
            continue
        essential = [cost(block, r, False, False) for r in _renderings(block) if r.essential]
        raised = max(min(essential), held[index]) if essential else held[index]
        if total - held[index] + raised > available:
            break  # the hits after it hold their shortest: an earlier hit's code comes first
        total += raised - held[index]
        held[index] = raised
    return held


def _shortened_to_fit(
    kept: Sequence[PackedBlock], available: int, count: TokenCounter
) -> list[PackedBlock] | None:
    """``kept`` with its latest block that can be, as a shorter rendering than the one packed,
    so that the joined whole fits ``available``; or None. A cut block, or one a later block's
    shortcut leans on, keeps its text."""
    texts = [p.text for p in kept]
    for index in range(len(kept) - 1, -1, -1):
        packed = kept[index]
        later = kept[index + 1 :]
        shortcuts = [r for p in later for r in p.block.shortcuts if r.text == p.text]
        leaned_on = any(packed.block.key in r.needs for r in shortcuts)
        if packed.cut or leaned_on:
            continue
        renderings = _renderings(packed.block)
        at = next((i for i, r in enumerate(renderings) if r.text == packed.text), len(renderings))
        for rendering in renderings[at + 1 :]:
            if count(SEPARATOR.join([*texts[:index], rendering.text, *texts[index + 1 :]])) <= available:
                spent = count(("" if index == 0 else SEPARATOR) + rendering.text)
                shorter = PackedBlock(packed.block, rendering.text, spent, cut=False, label=rendering.label)
                return [*kept[:index], shorter, *kept[index + 1 :]]
    return None


def pack_blocks(
    blocks: Sequence[ContextBlock],
    budget: int,
    count: TokenCounter,
    reserve: int = 0,
    *,
    price: Price | None = None,
) -> Packing:
    """Pack ``blocks`` in order into ``budget`` tokens, ``reserve`` of them kept aside.

    ``reserve`` is for a header the caller prints above the blocks; it is
    included in ``tokens_used``. ``price`` (default: the counted text, joined
    by :data:`SEPARATOR`) prices a block as the caller emits it; with it,
    ``tokens_used`` is the sum of the prices plus ``reserve``, and checking
    the emitted whole is the caller's.
    """
    if budget <= 0:
        raise ValueError("budget must be positive")

    def cost(block: ContextBlock, rendering: Rendering, cut: bool, first: bool) -> int:
        if price is not None:
            return price(block, rendering, cut, first)
        return count(("" if first else SEPARATOR) + rendering.text)

    available = budget - max(reserve, 0)
    held = _holds(blocks, available, cost)
    held_after = [0] * len(blocks)
    for i in range(len(blocks) - 2, -1, -1):
        held_after[i] = held_after[i + 1] + held[i + 1]
    kept: list[PackedBlock] = []
    dropped: list[str] = []
    whole: set[str] = set()  # blocks kept as their own text, uncut: what a shortcut may lean on
    used = 0
    for index, block in enumerate(blocks):
        first = not kept
        room = available - used

        def fits(candidate: str, block: ContextBlock = block, first: bool = first, room: int = room) -> bool:
            return cost(block, Rendering(block.label, candidate), True, first) <= room

        renderings = _renderings(block, whole)
        choice = None
        for position, rendering in enumerate(renderings):
            spent = cost(block, rendering, False, first)
            # Only the shortest rendering may spend the room held for later blocks.
            limit = room if position == len(renderings) - 1 else room - held_after[index]
            if spent <= limit:
                choice = (rendering, spent)
                break
        if choice is not None:
            rendering, spent = choice
            kept.append(PackedBlock(block, rendering.text, spent, cut=False, label=rendering.label))
            if rendering.text == block.text and rendering.label == block.label:
                whole.add(block.key)
            used += spent
            continue
        cut = _cut_to_fit(block.text, fits) if block.may_cut else None
        if cut is None:
            dropped.append(block.key)
            continue
        spent = cost(block, Rendering(block.label, cut), True, first)
        kept.append(PackedBlock(block, cut, spent, cut=True, label=block.label))
        used += spent
    text = SEPARATOR.join(p.text for p in kept)
    if price is None:
        # Joining can merge tokens across a boundary differently than the parts
        # did; the whole is what the reader gets, so the whole must fit: the latest
        # block that has a shorter rendering that makes it fit shown so, else the last
        # block left out.
        while kept and count(text) > available:
            shortened = _shortened_to_fit(kept, available, count)
            if shortened is None:
                dropped.insert(0, kept.pop().block.key)
            else:
                kept = shortened
            text = SEPARATOR.join(p.text for p in kept)
        total = count(text) if kept else 0
    else:
        total = sum(p.tokens for p in kept)
    return Packing(
        blocks=tuple(kept),
        text=text,
        tokens_used=total + max(reserve, 0),
        budget=budget,
        truncated=any(p.cut for p in kept),
        dropped=len(dropped),
        dropped_keys=tuple(dropped),
    )


def smallest_budget(answers: Callable[[int], bool], failed: int, ceiling: int = 1 << 24) -> int | None:
    """The smallest budget above ``failed`` that ``answers``, or None if not even ``ceiling`` does.

    ``answers(failed)`` is taken to be false. The bound doubles until it
    answers, then bisection keeps a failing budget below and an answering one
    above, so the result answers and the budget one below it does not: the
    true minimum whenever more budget never loses the answer (each probe is
    one real packing, not an estimate).
    """
    low = max(failed, 0)
    high = max(2 * low, low + 1, 16)
    while not answers(high):
        if high >= ceiling:
            return None
        low, high = high, min(2 * high, ceiling)
    while high - low > 1:
        middle = (low + high) // 2
        if answers(middle):
            high = middle
        else:
            low = middle
    return high
