"""Reciprocal rank fusion.

Laws:

1. Fusing one list keeps its order.
2. Permuting the lists (with their weights) changes no key's score or position.
3. An item found in two lists outranks an item at the same rank in only one.
4. Every score equals the formula sum(w / (k + rank)).
5. Adding a list never lowers an existing item's score (metamorphic).
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.fusion import RRF_K, rrf_fuse
from tests.properties.strategies import keys, ranked_lists

weights_for = st.floats(0.1, 3.0)


@given(st.lists(keys, unique=True))
def test_one_list_keeps_its_order(items: list[str]) -> None:
    """With one backend, fusion must not reorder its answer."""
    assert [f.key for f in rrf_fuse([items])] == items


@given(ranked_lists, st.data())
def test_permuting_lists_changes_nothing(lists: list[list[str]], data: st.DataObject) -> None:
    """The order the backends are queried in cannot matter."""
    weights = data.draw(st.lists(weights_for, min_size=len(lists), max_size=len(lists)))
    order = data.draw(st.permutations(range(len(lists))))
    a = rrf_fuse(lists, weights)
    b = rrf_fuse([lists[i] for i in order], [weights[i] for i in order])
    assert [(f.key, f.score) for f in a] == [(f.key, f.score) for f in b]


@given(st.integers(1, 20), st.integers(1, 20))
def test_agreement_wins(rank: int, other: int) -> None:
    """Two backends agreeing on an item is stronger evidence than one."""
    filler = [f"f{i}" for i in range(max(rank, other))]
    first = [*filler[: rank - 1], "both", *filler[rank - 1 :]]
    second_fill = [f"g{i}" for i in range(other)]
    second = [*second_fill[: other - 1], "both", *second_fill[other - 1 :]]
    single = [f"h{i}" for i in range(rank - 1)] + ["one"]
    fused = {f.key: f.score for f in rrf_fuse([first, second, single])}
    order = [f.key for f in rrf_fuse([first, second, single])]
    assert fused["both"] > fused["one"]
    assert order.index("both") < order.index("one")


@given(ranked_lists, st.floats(1.0, 100.0))
def test_scores_follow_the_formula(lists: list[list[str]], k: float) -> None:
    """Scores are exactly RRF, so callers can reason about them."""
    for item in rrf_fuse(lists, k=k):
        expected = math.fsum(1.0 / (k + lst.index(item.key) + 1) for lst in lists if item.key in lst)
        assert math.isclose(item.score, expected, rel_tol=1e-12)
    assert RRF_K == 60


@given(ranked_lists, st.lists(keys, unique=True))
def test_another_list_never_lowers_a_score(lists: list[list[str]], extra: list[str]) -> None:
    """More evidence can only add to an item's score."""
    before = {f.key: f.score for f in rrf_fuse(lists)}
    after = {f.key: f.score for f in rrf_fuse([*lists, extra])}
    assert all(after[k] >= s for k, s in before.items())
