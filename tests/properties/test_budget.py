"""Greedy budget packing.

Laws (with an additive counter, one token per character):

1. Never over budget, counting separators and cut marks.
2. Blocks keep their relevance order.
3. Every dropped block would not have fit, in any of its renderings or (when
   it may be cut) cut to its header, when it was considered.
4. A block is shown whole when it fits; a fallback only when the block and
   the fallbacks before it did not fit (in the room not held for reserved
   blocks after it); a cut only when none fitted and the block may be cut.
5. A cut never leaves a code fence open.
6. Room for every reserved block still to come is held: its shortest
   rendering's, raised to its cheapest essential rendering's (a hit's code)
   for each block in order while the holds fit together (up to the first
   that does not). When all the
   shortest fit together, none is dropped; when all the essential ones do,
   each is kept with an essential rendering.
7. Without fallbacks, more budget never packs fewer tokens (metamorphic).
8. With a price (a block emitted as something else, a JSON result), the
   packing spends each kept block's price, and never over budget.
9. The smallest budget found answers and the one below it does not; for a
   budget that answers from some size on, it is that size.
10. A shortcut (a rendering leaning on earlier blocks: a method pointing to
    its class shown above) is used only when every block it needs was kept
    before it whole, as its own text and uncut; and then, when it fits, it is
    used (it is tried before the block's text).
"""

from __future__ import annotations

import attrs
from hypothesis import assume, given
from hypothesis import strategies as st

from greploom.core.budget import (
    CUT_MARK,
    SEPARATOR,
    ContextBlock,
    Rendering,
    fence_state,
    pack_blocks,
    smallest_budget,
)
from tests.properties.strategies import blocks, tiered_blocks

budgets = st.integers(1, 600)
any_blocks = st.one_of(blocks, tiered_blocks)


def count(text: str) -> int:
    return len(text)


@given(any_blocks, budgets, st.integers(0, 50))
def test_never_over_budget(items: list[ContextBlock], budget: int, reserve: int) -> None:
    """A budget is a promise to the agent's context window."""
    packing = pack_blocks(items, budget, count, reserve)
    assert packing.tokens_used <= budget or not packing.blocks
    assert count(packing.text) + reserve == packing.tokens_used or not packing.blocks
    assert packing.tokens_used <= max(budget, reserve)


@given(any_blocks, budgets)
def test_order_is_kept(items: list[ContextBlock], budget: int) -> None:
    """The most relevant code comes first in what the agent reads."""
    packing = pack_blocks(items, budget, count)
    positions = [next(i for i, b in enumerate(items) if b is p.block) for p in packing.blocks]
    assert positions == sorted(positions)
    assert len(packing.blocks) + packing.dropped == len(items)


def holds(items: list[ContextBlock], budget: int) -> list[int]:
    """Per block, the room held for it (law 6): its shortest rendering's, or its cheapest
    essential one's while all the holds fit the budget."""
    held = [count(SEPARATOR + renderings(b)[-1][1]) if b.reserved else 0 for b in items]
    for i, b in enumerate(items):
        if not b.reserved:
            continue
        essential = [count(SEPARATOR + text) for text in essential_texts(b)]
        raised = max(min(essential), held[i]) if essential else held[i]
        if sum(held) - held[i] + raised > budget:
            break
        held[i] = raised
    return held


def held_after(items: list[ContextBlock], budget: int) -> list[int]:
    """Per block, the room held for the reserved blocks after it."""
    held = holds(items, budget)
    return [sum(held[i + 1 :]) for i in range(len(items))]


def essential_texts(block: ContextBlock) -> list[str]:
    own = [block.text] if block.essential else []
    return own + [r.text for r in block.fallbacks if r.essential]


def renderings(block: ContextBlock) -> list[tuple[str, str]]:
    return [(block.label, block.text), *((r.label, r.text) for r in block.fallbacks)]


def did_not_fit(position: int, total: int, cost: int, room: int, held: int) -> bool:
    """Whether rendering ``position`` of ``total`` was out of reach: only the last may use held room."""
    return cost > (room if position == total - 1 else room - held)


@st.composite
def leaning_blocks(draw: st.DrawFn) -> list[ContextBlock]:
    """Tiered blocks, some offering shortcuts that need blocks before them."""
    items = draw(tiered_blocks)
    out: list[ContextBlock] = []
    for i, block in enumerate(items):
        earlier = [b.key for b in items[:i]]
        if earlier and draw(st.booleans()):
            needs = tuple(draw(st.lists(st.sampled_from(earlier), min_size=1, max_size=2, unique=True)))
            short = Rendering("summary", draw(st.text(alphabet="ab\n", max_size=20)) + "^", needs)
            out.append(attrs.evolve(block, shortcuts=(short,)))
        else:
            out.append(block)
    return out


@given(leaning_blocks(), budgets)
def test_shortcuts_lean_only_on_blocks_kept_whole(items: list[ContextBlock], budget: int) -> None:
    """Law 10, and law 1 with shortcuts."""
    packing = pack_blocks(items, budget, count)
    assert packing.tokens_used <= budget or not packing.blocks
    whole: set[str] = set()
    held = held_after(items, budget)
    position_of = {id(b): i for i, b in enumerate(items)}
    used = 0
    for packed in packing.blocks:
        block = packed.block
        prefix = SEPARATOR if used else ""
        usable = [r for r in block.shortcuts if set(r.needs) <= whole]
        chosen = [r for r in block.shortcuts if (r.label, r.text) == (packed.label, packed.text)]
        if chosen and (packed.text, packed.label) != (block.text, block.label):
            assert set(chosen[0].needs) <= whole
        elif usable:  # a usable shortcut was passed over only for want of room
            room = budget - used - held[position_of[id(block)]]
            assert count(prefix + usable[0].text) > room
        if not packed.cut and (packed.text, packed.label) == (block.text, block.label):
            whole.add(block.key)
        used += count(prefix + packed.text)


@given(any_blocks, budgets)
def test_dropped_blocks_did_not_fit(items: list[ContextBlock], budget: int) -> None:
    """Nothing is dropped that could have been shown, whole, shorter or as a header."""
    packing = pack_blocks(items, budget, count)
    held = held_after(items, budget)
    used = 0
    kept = iter(packing.blocks)
    current = next(kept, None)
    for index, block in enumerate(items):
        prefix = SEPARATOR if used else ""
        if current is not None and current.block is block:
            used += count(prefix + current.text)
            current = next(kept, None)
            continue
        options = renderings(block)
        for position, (_, text) in enumerate(options):
            cost = count(prefix + text)
            assert did_not_fit(position, len(options), cost, budget - used, held[index])
        header = block.text.split("\n", 1)[0]
        minimal = header + "\n" + CUT_MARK
        assert not block.may_cut or used + count(prefix + minimal) > budget or "\n" not in block.text


@given(any_blocks, budgets)
def test_the_most_detailed_rendering_that_fits(items: list[ContextBlock], budget: int) -> None:
    """A long hit becomes its reference only because its whole did not fit, never by whim;
    and room for the reserved blocks after it is what decides "fit"."""
    packing = pack_blocks(items, budget, count)
    held = held_after(items, budget)
    position_of = {id(b): i for i, b in enumerate(items)}
    used = 0
    for packed in packing.blocks:
        prefix = SEPARATOR if used else ""
        index = position_of[id(packed.block)]
        options = renderings(packed.block)
        chosen = len(options) if packed.cut else options.index((packed.label, packed.text))
        assert not packed.cut or packed.block.may_cut
        for position, (_, text) in enumerate(options[:chosen]):
            cost = count(prefix + text)
            assert did_not_fit(position, len(options), cost, budget - used, held[index])
        used += count(prefix + packed.text)


@given(tiered_blocks.map(lambda bs: [attrs.evolve(b, reserved=True, may_cut=False) for b in bs]), budgets)
def test_reserved_blocks_are_all_named_first(items: list[ContextBlock], budget: int) -> None:
    """When every hit's shortest form fits together, none is dropped for another's source."""
    shortest = sum(count(SEPARATOR + renderings(b)[-1][1]) for b in items)
    packing = pack_blocks(items, budget, count)
    if shortest <= budget:
        assert packing.dropped == 0


@st.composite
def hits(draw: st.DrawFn) -> list[ContextBlock]:
    """Search hits as answers render them: whole code, focused code, a reference, shortest last."""
    out = []
    for i in range(draw(st.integers(1, 6))):
        whole = draw(st.integers(20, 150))
        focused = draw(st.integers(8, whole - 1))
        reference = draw(st.integers(1, focused - 1))
        out.append(
            ContextBlock(
                f"h{i}",
                "w" * whole,
                label="full",
                fallbacks=(
                    Rendering("focused", "f" * focused, essential=True),
                    Rendering("reference", "r" * reference),
                ),
                may_cut=False,
                reserved=True,
                essential=True,
            )
        )
    return out


@given(
    st.one_of(
        hits(), tiered_blocks.map(lambda bs: [attrs.evolve(b, reserved=True, may_cut=False) for b in bs])
    ),
    budgets,
)
def test_every_hit_shows_its_code_when_all_can(items: list[ContextBlock], budget: int) -> None:
    """When every hit's cheapest code fits together, none is shortened below its code for
    the sake of another's whole: each keeps an essential rendering, or a more detailed one."""
    assume(all(essential_texts(b) for b in items))
    shortest = [count(SEPARATOR + renderings(b)[-1][1]) for b in items]
    cheapest = sum(
        max(min(count(SEPARATOR + t) for t in essential_texts(b)), short)
        for b, short in zip(items, shortest, strict=True)
    )
    packing = pack_blocks(items, budget, count)
    if cheapest <= budget:
        assert packing.dropped == 0
        for packed in packing.blocks:
            flags = [packed.block.essential, *(r.essential for r in packed.block.fallbacks)]
            options = [text for _, text in renderings(packed.block)]
            last_essential = max(i for i, flag in enumerate(flags) if flag)
            assert options.index(packed.text) <= last_essential


def test_a_later_hit_keeps_its_code_before_the_first_takes_all() -> None:
    """Two hits, room for both focused but not for the first whole and the second focused:
    both show focused code rather than the first whole and the second as a reference."""

    def hit(key: str) -> ContextBlock:
        focused = Rendering("focused", f"## hit: {key}\n" + "f" * 10, essential=True)
        reference = Rendering("reference", f"## {key}")
        return ContextBlock(
            key, f"## hit: {key}\n" + "w" * 50, label="full", fallbacks=(focused, reference),
            may_cut=False, reserved=True, essential=True,
        )  # fmt: skip

    packing = pack_blocks([hit("a"), hit("b")], 70, count)
    assert [p.label for p in packing.blocks] == ["focused", "focused"]
    assert [p.label for p in pack_blocks([hit("a"), hit("b")], 200, count).blocks] == ["full", "full"]


@given(any_blocks, budgets)
def test_cuts_close_their_fences(items: list[ContextBlock], budget: int) -> None:
    """An open fence would swallow everything after it in the agent's prompt."""
    for packed in pack_blocks(items, budget, count).blocks:
        if packed.cut:
            assert fence_state(packed.text.split("\n")) is None
            assert packed.text.endswith(CUT_MARK)
        else:
            assert packed.text in (packed.block.text, *(r.text for r in packed.block.fallbacks))


@given(blocks, budgets, st.integers(1, 200))
def test_more_budget_never_packs_less(items: list[ContextBlock], budget: int, extra: int) -> None:
    """Raising the budget cannot shrink the answer."""
    small = pack_blocks(items, budget, count)
    large = pack_blocks(items, budget + extra, count)
    assert large.tokens_used >= small.tokens_used


@given(any_blocks, budgets, st.integers(1, 4), st.integers(0, 40))
def test_a_price_is_what_is_spent(items: list[ContextBlock], budget: int, weight: int, reserve: int) -> None:
    """Blocks priced as emitted (each a JSON result) are packed to those prices, never over."""

    def price(block: ContextBlock, rendering: Rendering, cut: bool, first: bool) -> int:
        return weight * len(rendering.text) + (0 if first else 7) + (3 if cut else 0)

    packing = pack_blocks(items, budget, count, reserve, price=price)
    for position, packed in enumerate(packing.blocks):
        shown = Rendering(packed.label, packed.text)
        assert packed.tokens == price(packed.block, shown, packed.cut, position == 0)
    assert packing.tokens_used == sum(p.tokens for p in packing.blocks) + reserve
    assert packing.tokens_used <= budget or not packing.blocks


@given(st.integers(1, 50_000), st.integers(0, 50_000))
def test_smallest_budget_of_a_threshold(threshold: int, failed: int) -> None:
    """A budget that answers from some size on: that size is what is named."""
    assume(failed < threshold)
    assert smallest_budget(lambda b: b >= threshold, failed) == threshold


@given(st.frozensets(st.integers(1, 3000), max_size=30), st.integers(1, 3000), st.integers(0, 3000))
def test_smallest_budget_answers_and_below_does_not(sparse: frozenset[int], floor: int, failed: int) -> None:
    """Whatever the answers look like, the one named answers and the one below it does not."""

    def answers(budget: int) -> bool:
        return budget != failed and (budget in sparse or budget >= floor)

    found = smallest_budget(answers, failed)
    assert found is not None and found > failed
    assert answers(found) and not answers(found - 1)


def test_smallest_budget_gives_up_at_the_ceiling() -> None:
    """An answer no budget can give is said, not looped on."""
    assert smallest_budget(lambda b: False, 10, ceiling=1000) is None
