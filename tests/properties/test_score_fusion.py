"""Convex fusion of normalized backend scores (greploom.core.score_fusion).

Laws:

1. A normalized score lies in [0, 1]: the list's best (or anything above it)
   is 1, the floor and anything below it 0.
2. Normalizing never reverses two scores (monotone).
3. A list's scale: its best score is the top; its floor is the score at the
   floor rank (the last one when the list is shorter), or 0 without one.
4. The fused score equals ``w_lex x lexical + w_vec x vector`` and never falls
   when either backend's score rises.
5. With one backend's weight 0, fusing keeps the other backend's order.
"""

from __future__ import annotations

import math

from hypothesis import assume, given
from hypothesis import strategies as st

from greploom.core.score_fusion import ScoreScale, convex_score

raw = st.floats(-2.0, 50.0, allow_nan=False)
score_lists = st.lists(raw, min_size=1, max_size=40)
# Normalized scores. Not subnormal: 5e-324 x 0.5 underflows to 0.0, a tie no score in [0, 1]
# that a backend gives can make (a fresh clone's CI drew it for law 5).
unit = st.floats(0.0, 1.0, allow_subnormal=False)
weights = st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0))


@given(score_lists, st.none() | st.integers(1, 60), raw)
def test_normalized_scores_lie_in_the_unit_interval(scores: list[float], floor: int | None, x: float) -> None:
    """Law 1."""
    scale = ScoreScale.of(scores, floor_rank=floor)
    assert 0.0 <= scale.normalize(x) <= 1.0
    assert scale.normalize(max(scores)) == 1.0
    assert scale.normalize(max(scores) + 1.0) == 1.0
    if scale.floor < scale.top:
        assert scale.normalize(scale.floor) == 0.0
        assert scale.normalize(scale.floor - 1.0) == 0.0


@given(score_lists, st.none() | st.integers(1, 60), raw, raw)
def test_normalizing_keeps_the_order(scores: list[float], floor: int | None, a: float, b: float) -> None:
    """Law 2."""
    scale = ScoreScale.of(scores, floor_rank=floor)
    low, high = sorted((a, b))
    assert scale.normalize(low) <= scale.normalize(high)


@given(score_lists, st.integers(1, 60))
def test_a_list_s_scale(scores: list[float], floor: int) -> None:
    """Law 3."""
    ranked = sorted(scores, reverse=True)
    scale = ScoreScale.of(scores, floor_rank=floor)
    assert scale.top == ranked[0]
    assert scale.floor == ranked[min(floor, len(ranked)) - 1]
    assert ScoreScale.of([abs(s) for s in scores]).floor == 0.0


def test_an_empty_list_scales_nothing_up() -> None:
    """No scores: nothing normalizes above 0 but a score at or above 0."""
    scale = ScoreScale.of([])
    assert scale.normalize(-1.0) == 0.0


@given(unit, unit, weights, unit)
def test_the_fused_score_is_the_formula_and_monotone(
    lexical: float, vector: float, w: tuple[float, float], more: float
) -> None:
    """Law 4."""
    fused = convex_score(lexical, vector, w)
    assert math.isclose(fused, w[0] * lexical + w[1] * vector)
    assert convex_score(max(lexical, more), vector, w) >= fused
    assert convex_score(lexical, max(vector, more), w) >= fused


@given(st.lists(st.tuples(unit, unit), min_size=2, max_size=20), st.floats(0.01, 1.0))
def test_a_backend_weighed_zero_leaves_the_other_s_order(pairs: list[tuple[float, float]], w: float) -> None:
    """Law 5."""
    assume(len({v for _, v in pairs}) == len(pairs))
    by_vector = sorted(range(len(pairs)), key=lambda i: -pairs[i][1])
    fused = sorted(range(len(pairs)), key=lambda i: -convex_score(*pairs[i], (0.0, w)))
    assert by_vector == fused
