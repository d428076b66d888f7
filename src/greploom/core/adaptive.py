"""Query-adaptive context: let the score distribution decide how many hits, and how much of each.

Selection. Scores of the ranked candidates are standardised (z-scores), a
softmax at temperature ``T`` turns them into weights, and the smallest
prefix carrying ``mass`` of the weight is kept, never fewer than ``floor``
nor more than ``ceiling``. A sharp query (one score far above the rest) keeps
a few hits; a diffuse one keeps many. Reported: kept, the effective count
(perplexity of the weights, exp(entropy)) and the weight left out.

Detail. The budget is spent at three levels of detail: the full block with
source, the block without source (signature and summary), or a one-line
reference (``path:line qualname``). First every node, in rank order, gets its
one-line reference while the budget lasts; then, heaviest first, each is
raised to the most detailed level the rest of the budget pays for, and what
it does not spend rolls down to the next. Graph neighbours of kept hits
weigh less than the hits, so they get detail from what the hits leave.

Laws (tests/properties/test_adaptive.py): never fewer than the floor (when
there are that many candidates) nor more than the ceiling; kept weight plus
weight left out is 1; a lower temperature (a sharper distribution) never
keeps more; the detail plan never exceeds the budget; a node is left out only
when even its one-line reference no longer fitted.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import attrs

TEMPERATURE = 0.5  # calibrated on the quality harness: lower keeps fewer
MASS = 0.9  # share of the weight the kept hits must carry
FLOOR = 2  # always at least this many hits (a sharp query still gets a runner-up)
CEILING = 12


class Detail(str, enum.Enum):
    """How much of a node a context shows."""

    FULL = "full"  # header, summary, location, source
    SUMMARY = "summary"  # header, summary, location
    REFERENCE = "reference"  # one line: path:line qualname


@attrs.frozen
class Selection:
    """How many ranked hits to keep, with the weights that decided it."""

    kept: int
    effective: float
    mass_left_out: float
    weights: tuple[float, ...]


def softmax_weights(scores: Sequence[float], temperature: float = TEMPERATURE) -> tuple[float, ...]:
    """Softmax of standardised scores; equal scores give equal weights."""
    if not scores:
        return ()
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    mean = math.fsum(scores) / len(scores)
    spread = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
    z = [(s - mean) / spread if spread > 0 else 0.0 for s in scores]
    top = max(z)
    exps = [math.exp((v - top) / temperature) for v in z]
    total = math.fsum(exps)
    return tuple(e / total for e in exps)


def select(
    scores: Sequence[float],
    *,
    temperature: float = TEMPERATURE,
    mass: float = MASS,
    floor: int = FLOOR,
    ceiling: int = CEILING,
) -> Selection:
    """Keep the smallest best-first prefix of ``scores`` (sorted high to low) carrying ``mass``."""
    weights = softmax_weights(scores, temperature)
    if not weights:
        return Selection(0, 0.0, 0.0, ())
    entropy = -math.fsum(w * math.log(w) for w in weights if w > 0)
    kept, carried = 0, 0.0
    for w in weights:
        if carried >= mass - 1e-12:
            break
        kept += 1
        carried += w
    kept = max(min(kept, ceiling, len(weights)), min(floor, len(weights)))
    left = max(0.0, 1.0 - math.fsum(weights[:kept]))
    return Selection(kept, math.exp(entropy), left, weights)


@attrs.frozen
class DetailOption:
    """One node's renderings at each level and their token costs."""

    key: str
    weight: float
    costs: tuple[tuple[Detail, int], ...]  # most detailed first


@attrs.frozen
class DetailPlan:
    """The level chosen per key (absent: not shown) and the tokens it costs."""

    levels: tuple[tuple[str, Detail], ...]
    tokens: int
    left_out: tuple[str, ...]


def plan_detail(options: Sequence[DetailOption], budget: int) -> DetailPlan:
    """Spend ``budget`` over ``options`` (in rank order): presence first, then detail by weight.

    Pass 1 gives every option, in rank order, its cheapest level while the
    budget lasts, so nothing strong is left out for something weak. Pass 2
    visits options by weight (ties by rank) and raises each to the most
    detailed level the remaining budget pays for; what one does not spend
    rolls down to the next.
    """
    remaining = max(budget, 0)
    chosen: dict[int, tuple[Detail, int]] = {}
    left_out: list[str] = []
    for index, option in enumerate(options):
        if not option.costs:
            left_out.append(option.key)
            continue
        level, cost = min(option.costs, key=lambda lc: lc[1])
        if cost <= remaining:
            chosen[index] = (level, cost)
            remaining -= cost
        else:
            left_out.append(option.key)
    for index in sorted(chosen, key=lambda i: (-options[i].weight, i)):
        _, current = chosen[index]
        for level, cost in options[index].costs:  # most detailed first
            if cost - current <= remaining:
                if cost > current or level is not chosen[index][0]:
                    remaining -= cost - current
                    chosen[index] = (level, cost)
                break
    levels = tuple((options[i].key, chosen[i][0]) for i in sorted(chosen))
    return DetailPlan(levels, sum(c for _, c in chosen.values()), tuple(left_out))
