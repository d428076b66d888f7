"""Reciprocal rank fusion of any number of ranked lists.

    score(d) = sum over lists L containing d of  w_L / (k + rank_L(d))

Ranks are 1-based; an item repeated inside one list counts at its best rank.
The fused order is by score, then by best single rank, then by key, so it is
deterministic. Contributions are summed in a canonical order, so the order in
which the lists are given cannot change a score, not even in the last bit.

Laws (tests/properties/test_fusion.py): one list keeps its order; permuting
the lists changes nothing; an item in two lists outranks an item at the same
rank in only one; scores equal the formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

RRF_K = 60  # larger k flattens the advantage of the top ranks (Cormack et al. 2009)


@attrs.frozen
class FusedItem:
    """A fused result: its key, RRF score, and its 1-based rank in each list (0: absent)."""

    key: str
    score: float
    ranks: tuple[int, ...]

    @property
    def best_rank(self) -> int:
        """The best rank this item had in any list."""
        return min(r for r in self.ranks if r > 0)


def rrf_fuse(
    lists: Sequence[Sequence[str]],
    weights: Sequence[float] | None = None,
    k: float = RRF_K,
) -> tuple[FusedItem, ...]:
    """Fuse ranked lists of keys; ``weights`` default to 1.0 per list."""
    if k <= 0:
        raise ValueError("RRF k must be positive")
    if weights is None:
        weights = [1.0] * len(lists)
    if len(weights) != len(lists):
        raise ValueError("one weight per list")
    ranks: dict[str, list[int]] = {}
    for index, ranked in enumerate(lists):
        for position, key in enumerate(ranked, start=1):
            slots = ranks.setdefault(key, [0] * len(lists))
            if slots[index] == 0:
                slots[index] = position
    items = []
    for key, item_ranks in ranks.items():
        parts = sorted(weights[i] / (k + r) for i, r in enumerate(item_ranks) if r > 0)
        items.append(FusedItem(key=key, score=math.fsum(parts), ranks=tuple(item_ranks)))
    items.sort(key=lambda it: (-it.score, it.best_rank, it.key))
    return tuple(items)
