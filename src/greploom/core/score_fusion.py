"""Convex fusion of normalized backend scores: how sure each backend is, not only its order.

For a question in words greploom fuses BM25 and the vector search by their
scores, not their ranks (Bruch et al., "An Analysis of Fusion Functions for
Hybrid Retrieval", 2023: a convex combination of normalized scores ranks
better than RRF and needs one weight):

    fused = w_lex x normalized(bm25) + w_vec x normalized(cosine)

Each backend's raw scores for one query are mapped onto [0, 1] by a
:class:`ScoreScale`: the list's best score to 1, its floor and below to 0.
BM25 scores are positive, so their floor is 0 (the theoretical minimum); a
cosine similarity's floor is the similarity of the ``VECTOR_FLOOR_RANK``-th
nearest definition, the code base's own "unrelated" level for this query (a
floor at cosine 0 squeezes every candidate near 1: NDCG@10 0.799 against 0.802
on the quality harness, measured with the fused score x 2 / (k + 1); the 10th,
min-max over the list, 0.795).

Why not RRF for questions: RRF credits a definition found by both backends
at middling ranks over one the vector search alone finds first by a wide
margin, and the bundled model is the better backend for questions (a
docstring's sentence, the definition withheld its docstring: vector first,
BM25 15th, fused 11th). Measured on the quality harness (``signals``, mean
NDCG@10 over 11 code bases): RRF 0.791, convex 0.804, higher on 10 of the 11.

Laws (tests/properties/test_score_fusion.py): a normalized score lies in
[0, 1], the list's best is 1, the floor and below are 0; normalizing never
reverses two scores; the fused score is monotone in each backend's score and
equals the formula; with one backend's weight 0 the other's order is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

# The rank whose similarity is a vector list's floor (see the module docstring).
VECTOR_FLOOR_RANK = 100


@attrs.frozen
class ScoreScale:
    """One backend's scores for one query: ``top`` normalizes to 1, ``floor`` and below to 0."""

    top: float
    floor: float = 0.0

    @classmethod
    def of(cls, scores: Sequence[float], *, floor_rank: int | None = None) -> ScoreScale:
        """The scale of a list's scores (best first, higher better): its best is the top; the
        floor is the ``floor_rank``-th score (the last when the list is shorter), or 0."""
        if not scores:
            return cls(top=0.0)
        top = max(scores)
        if floor_rank is None:
            return cls(top=top, floor=min(0.0, top))
        ranked = sorted(scores, reverse=True)
        return cls(top=top, floor=ranked[min(floor_rank, len(ranked)) - 1])

    def normalize(self, score: float) -> float:
        """``score`` on [0, 1]: 1 at the top or above, 0 at the floor or below."""
        if score >= self.top:
            return 1.0
        if score <= self.floor:
            return 0.0
        return (score - self.floor) / (self.top - self.floor)


def convex_score(lexical: float, vector: float, weights: tuple[float, float]) -> float:
    """``w_lex x lexical + w_vec x vector`` of two normalized scores (0 where a backend did
    not find the candidate)."""
    w_lex, w_vec = weights
    return w_lex * lexical + w_vec * vector
