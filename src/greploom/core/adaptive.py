"""Query-adaptive context: let the score distribution decide how many hits, and how much of each.

Selection. Scores of the ranked candidates are standardised (z-scores), a
softmax at temperature ``T`` turns them into weights, and the smallest
prefix carrying ``mass`` of the weight is kept, never fewer than ``floor``
nor more than ``ceiling``. A sharp query (one score far above the rest) keeps
a few hits; a diffuse one keeps many. Reported: kept, the effective count
(perplexity of the weights, exp(entropy)) and the weight left out.

Detail. The kept hits are packed as in a fixed context
(:func:`greploom.core.render.context_blocks`): in rank order, each with its
full block when it fits and its one-line reference when it does not, the
unspent budget rolling down to the next; graph neighbours come after the
hits, labelled with why they are there.

Laws (tests/properties/test_adaptive.py): never fewer than the floor (when
there are that many candidates) nor more than the ceiling; kept weight plus
weight left out is 1; a lower temperature (a sharper distribution) never
keeps more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

# Calibrated on the quality harness: lower keeps fewer. 0.5 until questions were fused by
# their scores (greploom.core.score_fusion), which spreads a question's scores further: at
# 0.5 that kept fewer hits (hit@2k 0.859 -> 0.848, 1,130 -> 978 tokens); at 0.6, hit@1k
# 0.86 and hit@2k 0.87 in 1,078 tokens (0.75: 0.88 / 0.90 in 1,273). 0.7 since results are
# in score order, not saturated per file (greploom.core.ranking): a file's fourth result no
# longer sits below weaker ones, so the scores fall off faster; at 0.6 hit@1k / hit@2k went
# 0.870 / 0.873 (789 tokens) -> 0.849 / 0.851 (743); at 0.7 0.88 / 0.88 in 785, at 0.8 0.90
# / 0.90 in 853.
TEMPERATURE = 0.7
MASS = 0.9  # share of the weight the kept hits must carry
FLOOR = 2  # always at least this many hits (a sharp query still gets a runner-up)
CEILING = 12


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
