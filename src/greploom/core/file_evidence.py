"""File-level evidence: where the code lives, read from how the file's definitions match.

A question about architecture ("how does exception propagation through
dependency injection work") is answered by the file whose definitions each
match a little, not by the one function of a neighbouring file that matches
best. Here a file's candidates (its definitions and its module node, with
the scores the per-candidate signals gave them) add up to a file score, and
a file with evidence beyond one definition lifts its best definitions and its
module node:

    file score  = sum over the file's candidates, best first, of
                  FILE_DECAY ** i * score_i  (i = 0, 1, ...; at most FILE_DEPTH of them)
    lift        = FILE_LIFT * (the file score of the file's other candidates),
                  added to each of the file's LIFTED best definitions and to its module node

The lift is additive, in the candidates' own score units, and comes only
from the other candidates of the file: a file that holds one match lifts
nothing, so one definition's score alone never carries its file.

Laws (tests/properties/test_file_evidence.py): a file's score never
decreases when one of its candidates scores higher, nor when it gains a
candidate; a file with more matches, each at least as strong as the other
file's matches in rank order, scores at least as high, and higher when it
has a match beyond the other's depth-capped ones; lifts are never negative,
go only to a file's best definitions and its module node, and are nil for a
file with one candidate; the result does not depend on the order the
candidates are given in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

FILE_DECAY = 0.5  # each further candidate of a file counts half the one before
FILE_DEPTH = 4  # candidates of a file that count towards its score
# Share of the file's other evidence added to its best definition. Measured on questions
# answered by a file (not the harness; see REPORT.md): on greploom's own 96 files, file
# MRR 0.778 -> 0.855 (0.05: 0.821, 0.2: 0.843, 0.5: 0.842); on the harness's code bases
# (6 to 24 files) 0.860 -> 0.853. Lifting the best two definitions measured 0.847 / 0.837.
FILE_LIFT = 0.1
LIFTED = 1  # best definitions of a file that its evidence lifts (its module node besides)
MODULE_KIND = "module"
# Words that ask how a part of the system is built rather than for one function:
# "how does exception propagation through dependency injection work", "give an
# overview of the request lifecycle". Measured on the quality harness, whose questions
# each want one function, any lift for all questions costs (0.02: NDCG@10 -0.005,
# questions -0.015; 0.1: -0.012); so the lift is for these questions only.
ARCHITECTURE_WORDS = frozenset(
    {
        "architecture",
        "architectural",
        "overview",
        "overall",
        "design",
        "designed",
        "structure",
        "structured",
        "organized",
        "organised",
        "flow",
        "flows",
        "lifecycle",
        "pipeline",
        "mechanism",
        "mechanisms",
        "subsystem",
        "subsystems",
        "propagation",
        "propagate",
        "propagated",
        "interact",
        "interacts",
        "interaction",
        "work",
        "works",
        "explain",
    }
)


@attrs.frozen
class Member:
    """One candidate as evidence for its file: its key, file, score and whether it is the module node."""

    key: str
    file: str
    score: float
    module: bool = False


def asks_about_architecture(words: frozenset[str]) -> bool:
    """Whether a question's words (``Query.words``) ask how a part of the system works or is built."""
    return not words.isdisjoint(ARCHITECTURE_WORDS)


def file_score(scores: Iterable[float], *, decay: float = FILE_DECAY, depth: int = FILE_DEPTH) -> float:
    """The evidence of one file from its candidates' scores: best first, each further one decayed."""
    best = sorted((max(s, 0.0) for s in scores), reverse=True)[:depth]
    return sum(s * decay**i for i, s in enumerate(best))


def file_scores(
    members: Iterable[Member], *, decay: float = FILE_DECAY, depth: int = FILE_DEPTH
) -> dict[str, float]:
    """The score of each file the members lie in."""
    return {
        file: file_score((m.score for m in group), decay=decay, depth=depth)
        for file, group in _by_file(members).items()
    }


def file_lifts(
    members: Iterable[Member],
    *,
    lift: float = FILE_LIFT,
    lifted: int = LIFTED,
    decay: float = FILE_DECAY,
    depth: int = FILE_DEPTH,
) -> dict[str, float]:
    """What each member gains from its file's other evidence (0.0 for most), by key.

    The ``lifted`` best definitions of each file (by score, then key) and its
    module node gain ``lift`` times the file score of the file's other members.
    """
    out: dict[str, float] = {}
    for group in _by_file(members).values():
        ordered = sorted(group, key=lambda m: (-m.score, m.key))
        best = [m for m in ordered if not m.module][:lifted]
        chosen = {m.key for m in best} | {m.key for m in ordered if m.module}
        for m in ordered:
            gain = 0.0
            if m.key in chosen and len(ordered) > 1:
                rest = file_score((o.score for o in ordered if o.key != m.key), decay=decay, depth=depth)
                gain = lift * rest
            out[m.key] = gain
    return out


def _by_file(members: Iterable[Member]) -> Mapping[str, Sequence[Member]]:
    by_file: dict[str, list[Member]] = {}
    for m in sorted(members, key=lambda m: m.key):
        by_file.setdefault(m.file, []).append(m)
    return by_file
