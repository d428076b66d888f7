"""Follow-ups in a session: a question's scores smoothed toward what the session has been about.

An agent asks, reads, and asks again: "what are the arguments to that?" has
no words that find ``Session.send``; the session it follows does. A session
remembers the scores of the definitions its answers held (:class:`Memory`,
decayed each turn) and the keys it has already sent in full. A new
question's candidate scores are mixed with that memory by :func:`smooth`,
in the proportion :func:`gate` allows: the correlation (cosine) of the new
scores with the memory, so that a question about something else (a pivot:
correlation near 0) is left as it is, raised for a question that points
back (an anaphor: "it", "that", "its", ... with at most two words of its
own, or four when it names nothing by name), which then leans on the memory
fully.

The memory holds the answer's hits and, below them, the neighbours the
answer showed around them (callers, callees, the class...): a follow-up
such as "where is it called from?" asks for a neighbour of what the
session was about.

Laws (tests/properties/test_followup.py): the gate is within [0, 1] and 0
without memory; a pivot (gate 0) is returned unchanged; smoothing never
removes a candidate; remembering keeps the memory bounded, every weight in
[0, 1], and what was shown stays shown; a neighbour is never remembered
above the hit it was reached from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from greploom.core.query import Query

ALPHA = 0.6  # the memory's share of a score at a full gate (0.75 measured: +2.3 points only)
DECAY = 0.5  # what a turn leaves of the weights before it
MAX_REMEMBERED = 32  # definitions a session keeps weights for
# A neighbour of a hit (a caller, a callee, its class: the answer's expanded nodes) is
# remembered at this share of its relevance x its hit's weight. Measured on
# benchmarks/bench_followups.py (44 follow-ups, 16 pivots): follow-up hit@5 with session
# 68.2% without neighbours, 70.5% at 0.5, 72.7% at 0.8 and at 1.0 (pivot MRR 0.85 -> 0.82
# at 1.0); pivots' hit@5 unchanged at every share. ALPHA 0.5 or 0.7 beside it: 70.5%.
NEIGHBOUR_SHARE = 0.8
ANAPHORIC_GATE = 1.0  # the gate of a question that only points back
# ... one with more words of its own is gated by correlation alone. Measured on
# benchmarks/bench_followups.py (44 follow-ups, 16 pivots): 2 words +13.6 points of
# follow-up hit@5, pivots unchanged; 3 words +15.9, 4 +18.2, but "how does Flask create its
# logger?" (a pivot whose "its" is Flask's) then leans on the memory: pivot MRR 0.85 -> 0.80.
MAX_OWN_WORDS = 2
# ... or up to four when it names nothing: "which variables are injected into its
# context?" has three words of its own and is about the session's subject, while "how
# does Flask create its logger?" names what its "its" is. Measured the same way:
# follow-up hit@5 +18.2 -> +25.0 points (3 words: +22.7), pivots unchanged (100%, MRR 0.846).
MAX_OWN_WORDS_UNNAMED = 4
_CAPITAL = re.compile(r"[A-Z]")
PRONOUNS = frozenset({"it", "its", "they", "them", "their"})
ANAPHORS = frozenset(
    {
        "it",
        "its",
        "that",
        "this",
        "these",
        "those",
        "them",
        "they",
        "their",
        "there",
        "same",
        "former",
        "latter",
    }
)


@attrs.frozen
class Memory:
    """What a session remembers: weights of the definitions its answers held, best first, and
    the keys it has sent whole."""

    weights: tuple[tuple[str, float], ...] = ()
    shown: frozenset[str] = frozenset()
    turns: int = 0


def normalized(scores: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Scores divided by the largest (the best is 1.0); non-positive scores count as 0."""
    pairs = [(k, max(0.0, s)) for k, s in scores]
    top = max((s for _, s in pairs), default=0.0)
    out: dict[str, float] = {}
    for key, score in pairs:
        out.setdefault(key, score / top if top > 0 else 0.0)
    return out


def correlation(new: Mapping[str, float], memory: Mapping[str, float]) -> float:
    """The cosine of two non-negative score vectors over the keys of either, in [0, 1]."""
    dot = sum(v * memory.get(k, 0.0) for k, v in new.items())
    norms = math.sqrt(sum(v * v for v in new.values())) * math.sqrt(sum(v * v for v in memory.values()))
    return min(1.0, max(0.0, dot / norms)) if norms > 0 else 0.0


def anaphoric(words: Iterable[str], own_words: int, *, names: bool = True) -> bool:
    """Whether a question points back at what came before: an anaphor, and at most
    :data:`MAX_OWN_WORDS` words of its own (stop words aside), or
    :data:`MAX_OWN_WORDS_UNNAMED` when it names nothing (``names`` False) and its anaphor
    is a pronoun (:data:`PRONOUNS`)."""
    said = {w.lower() for w in words}
    if not ANAPHORS & said:
        return False
    # The longer bound takes a pronoun: "this library" is a determiner, not a pointer back.
    longer = not names and bool(PRONOUNS & said)
    return own_words <= (MAX_OWN_WORDS_UNNAMED if longer else MAX_OWN_WORDS)


def names_something(query: Query) -> bool:
    """Whether a question names a definition or a thing by its name: a symbol it names
    (greploom.core.query), or a capitalised word past its first letter (``Flask``, ``JSON``)."""
    return bool(query.symbols) or bool(_CAPITAL.search(query.text[1:]))


def points_back(query: Query) -> bool:
    """Whether a question as read points back at the session (:func:`anaphoric`): its words
    as written, anaphors included (the query's own words drop them as stop words)."""
    words = re.findall(r"[a-z]+", query.text.lower())
    return anaphoric(words, len(query.words), names=names_something(query))


def gate(new: Mapping[str, float], memory: Memory, *, back: bool) -> float:
    """How much of the memory a question takes, in [0, 1]: 0 without memory, the correlation
    otherwise, :data:`ANAPHORIC_GATE` for a question that points back."""
    if not memory.weights:
        return 0.0
    rho = correlation(new, dict(memory.weights))
    return min(1.0, max(0.0, rho, ANAPHORIC_GATE if back else 0.0))


def smooth(candidates: Sequence[tuple[str, float]], memory: Memory, g: float) -> list[tuple[str, float]]:
    """The candidates' scores mixed with the memory's weights by the gate ``g``, best first.

    Gate 0 returns the candidates as given. Otherwise every candidate stays and
    the remembered definitions join them: ``(1 - ALPHA g) new + ALPHA g memory``,
    both normalised, ties in the candidates' order, then the memory's.
    """
    if g <= 0.0 or not memory.weights:
        return list(candidates)
    new = normalized(candidates)
    remembered = dict(memory.weights)
    keys = list(dict.fromkeys([k for k, _ in candidates] + [k for k, _ in memory.weights]))
    share = ALPHA * min(1.0, g)
    mixed = [(k, (1.0 - share) * new.get(k, 0.0) + share * remembered.get(k, 0.0)) for k in keys]
    order = {k: i for i, k in enumerate(keys)}
    return sorted(mixed, key=lambda pair: (-pair[1], order[pair[0]]))


def remember(
    memory: Memory,
    answered: Sequence[tuple[str, float]],
    shown: Iterable[str],
    neighbours: Sequence[tuple[str, str, float]] = (),
) -> Memory:
    """The memory after an answer: earlier weights decayed, the answer's hits at their
    normalised scores (the larger of the two), at most :data:`MAX_REMEMBERED` kept.

    ``neighbours``: ``(key, hit, relevance)`` of the definitions the answer showed around its
    hits (callers, callees...: greploom.core.expand), each remembered at
    :data:`NEIGHBOUR_SHARE` x its relevance x its hit's weight: "where is it called from?"
    asks for a neighbour of what the session was about, not for it again."""
    weights = {k: w * DECAY for k, w in memory.weights}
    hits = normalized(answered)
    for key, score in hits.items():
        weights[key] = max(weights.get(key, 0.0), score)
    for key, hit, relevance in neighbours:
        if key not in hits:
            weights[key] = max(weights.get(key, 0.0), NEIGHBOUR_SHARE * relevance * hits.get(hit, 0.0))
    best = sorted(weights.items(), key=lambda pair: (-pair[1], pair[0]))[:MAX_REMEMBERED]
    return Memory(tuple(best), memory.shown | frozenset(shown), memory.turns + 1)
