"""Query-adaptive context: how many hits to keep.

Laws:

1. Selection keeps at least the floor (when there are that many candidates)
   and at most the ceiling.
2. Kept weight plus the weight left out is 1; weights sum to 1.
3. A lower temperature (a sharper distribution) never keeps more hits
   (metamorphic).

How much of each kept hit is shown is the packing's job, with its own laws
(test_budget.py: fallbacks; test_render.py: hits fall back to references).
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.adaptive import select

scores = st.lists(st.floats(0.0, 1.0, allow_nan=False), max_size=20).map(lambda xs: sorted(xs, reverse=True))


@given(scores, st.integers(0, 5), st.integers(1, 20))
def test_floor_and_ceiling(values: list[float], floor: int, ceiling: int) -> None:
    """A sharp query still gets a runner-up; a diffuse one never floods the context."""
    selection = select(values, floor=floor, ceiling=max(ceiling, floor))
    assert selection.kept >= min(floor, len(values))
    assert selection.kept <= max(min(ceiling, len(values)), min(floor, len(values)))


@given(scores.filter(bool))
def test_mass_accounting(values: list[float]) -> None:
    """The header's 'mass left out' is exactly what the kept hits do not carry."""
    selection = select(values)
    assert math.isclose(math.fsum(selection.weights), 1.0, rel_tol=1e-9)
    kept = math.fsum(selection.weights[: selection.kept])
    assert math.isclose(kept + selection.mass_left_out, 1.0, abs_tol=1e-9)


@given(scores, st.floats(0.05, 2.0), st.floats(1.0, 4.0))
def test_sharper_never_keeps_more(values: list[float], temperature: float, factor: float) -> None:
    """Lowering the temperature concentrates weight, so the kept prefix cannot grow."""
    sharp = select(values, temperature=temperature, floor=1, ceiling=100)
    soft = select(values, temperature=temperature * factor, floor=1, ceiling=100)
    assert sharp.kept <= soft.kept
