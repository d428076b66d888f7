"""Greedy budget packing.

Laws (with an additive counter, one token per character):

1. Never over budget, counting separators and cut marks.
2. Blocks keep their relevance order.
3. Every dropped block would not have fit, even cut to its header, when it
   was considered.
4. A cut never leaves a code fence open.
5. More budget never packs fewer tokens (metamorphic).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.budget import CUT_MARK, SEPARATOR, ContextBlock, fence_state, pack_blocks
from tests.properties.strategies import blocks

budgets = st.integers(1, 600)


def count(text: str) -> int:
    return len(text)


@given(blocks, budgets, st.integers(0, 50))
def test_never_over_budget(items: list[ContextBlock], budget: int, reserve: int) -> None:
    """A budget is a promise to the agent's context window."""
    packing = pack_blocks(items, budget, count, reserve)
    assert packing.tokens_used <= budget or not packing.blocks
    assert count(packing.text) + reserve == packing.tokens_used or not packing.blocks
    assert packing.tokens_used <= max(budget, reserve)


@given(blocks, budgets)
def test_order_is_kept(items: list[ContextBlock], budget: int) -> None:
    """The most relevant code comes first in what the agent reads."""
    packing = pack_blocks(items, budget, count)
    positions = [next(i for i, b in enumerate(items) if b is p.block) for p in packing.blocks]
    assert positions == sorted(positions)
    assert len(packing.blocks) + packing.dropped == len(items)


@given(blocks, budgets)
def test_dropped_blocks_did_not_fit(items: list[ContextBlock], budget: int) -> None:
    """Nothing is dropped that could have been shown, even as a header."""
    packing = pack_blocks(items, budget, count)
    used = 0
    kept = iter(packing.blocks)
    current = next(kept, None)
    for block in items:
        prefix = SEPARATOR if used else ""
        if current is not None and current.block is block:
            used += count(prefix + current.text)
            current = next(kept, None)
            continue
        header = block.text.split("\n", 1)[0]
        minimal = header + "\n" + CUT_MARK
        assert used + count(prefix + minimal) > budget or "\n" not in block.text


@given(blocks, budgets)
def test_cuts_close_their_fences(items: list[ContextBlock], budget: int) -> None:
    """An open fence would swallow everything after it in the agent's prompt."""
    for packed in pack_blocks(items, budget, count).blocks:
        if packed.cut:
            assert fence_state(packed.text.split("\n")) is None
            assert packed.text.endswith(CUT_MARK)
        else:
            assert packed.text == packed.block.text


@given(blocks, budgets, st.integers(1, 200))
def test_more_budget_never_packs_less(items: list[ContextBlock], budget: int, extra: int) -> None:
    """Raising the budget cannot shrink the answer."""
    small = pack_blocks(items, budget, count)
    large = pack_blocks(items, budget + extra, count)
    assert large.tokens_used >= small.tokens_used
