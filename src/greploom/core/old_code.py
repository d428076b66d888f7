"""Old code in the ranking: what its own mark deprecates, and copies in legacy trees.

Two stages of greploom.core.ranking, with their factors:

- :func:`successors_placed`: a deprecated candidate (its code's mark names a
  successor among the candidates: greploom.core.deprecation) lends the
  successor its backend ranks and scores where they are better; the ranking
  then demotes it by DEPRECATED_PENALTY unless the query asks for it
  (:func:`asked_for_old`).
- :func:`current_over_legacy`: a copy in a legacy tree (greploom.core.legacy)
  with a current namesake is demoted by LEGACY_PENALTY, any other definition
  in a legacy tree the question does not name or ask about by
  OLD_TREE_PENALTY; :func:`legacy_suspects` says whose namesakes the shell
  looks up for it.

Laws: tests/properties/test_legacy.py and tests/properties/test_deprecation.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from greploom.core import legacy
from greploom.core.candidate import PENALTY, UNPLACED, Candidate, Ranked
from greploom.core.code_categories import NON_PRODUCT_PENALTY, path_category
from greploom.core.deprecation import inherited_ranks, inherited_scores
from greploom.core.naming import matches_symbol
from greploom.core.query import Query

# A legacy copy (v1/, deprecated/, v3/ beside v4/) with a current namesake: old code, like
# the compat category's, demoted as much (greploom.core.legacy); never both.
LEGACY_PENALTY = NON_PRODUCT_PENALTY
# Any other definition in a legacy tree the question does not name or ask about (old code:
# greploom.core.legacy.old_copies), demoted less, as nothing current stands beside it by name.
# Measured on the quality harness (signals, mean over the 11 code bases): NDCG@10 0.811 ->
# 0.813, legacy questions 0.769 -> 0.788, module-level names 0.719 -> 0.732, hit@2k 0.949 ->
# 0.953, nothing lower; 0.5 gave the same means.
OLD_TREE_PENALTY = 0.7
# Deprecated by its own mark, with the successor its note names among the candidates
# (greploom.core.deprecation): as old as a legacy copy beside its current namesake, though
# the names differ (pydantic's BaseModel.dict and model_dump). Without a successor to show
# it is not demoted: on the quality harness that cost attrs' "switch validators off
# globally" (set_run_validators, deprecated in favour of a function its note does not name
# on its line) 0.31 NDCG@10 for nothing gained elsewhere.
DEPRECATED_PENALTY = NON_PRODUCT_PENALTY
# Names whose namesakes a query looks up, at most: on pydantic (2,446 definitions, half of
# a query's candidates in v1/ or deprecated/) the lookup takes 1.1 ms a query.
LEGACY_LOOKUPS = 8


def successors_placed(pool: dict[str, Candidate], query: Query) -> dict[str, Candidate]:
    """The pool with each deprecated candidate's successors (those in the pool) ranked where
    it was found, when that is better, and its ``replaced_by`` kept to those present; not
    for one the query asks for (names it, points at it, asks about old code), which keeps
    its place and lends none ("the pydantic v1 validate_arguments decorator")."""
    replaced = {
        k: present
        for k, c in pool.items()
        if (present := tuple(s for s in c.replaced_by if s in pool)) and not asked_for_old(query, c)
    }
    if not replaced and not any(c.replaced_by for c in pool.values()):
        return pool
    ranks = {k: (c.lexical_rank, c.vector_rank, c.symbol_rank) for k, c in pool.items()}
    placed = inherited_ranks(ranks, replaced)
    scored = inherited_scores({k: (c.lexical_score, c.vector_score) for k, c in pool.items()}, replaced)
    return {
        k: attrs.evolve(
            c,
            lexical_rank=placed[k][0],
            vector_rank=placed[k][1],
            symbol_rank=placed[k][2],
            replaced_by=replaced.get(k, ()),
            lexical_score=scored[k][0],
            vector_score=scored[k][1],
        )
        for k, c in pool.items()
    }


def asked_for_old(query: Query, candidate: Candidate) -> bool:
    """Whether the query asks for this deprecated candidate itself: by name, by place, or by
    asking about old code."""
    return (
        candidate.location_rank > 0
        or legacy.asks_for_old(query.words)
        or any(matches_symbol(s, candidate.name, candidate.qualname) for s in query.symbols)
    )


def legacy_suspects(candidates: Iterable[Candidate], limit: int = LEGACY_LOOKUPS) -> tuple[str, ...]:
    """The names whose namesakes the shell looks up for :func:`rank_candidates`: those of the
    candidates whose path may lie in a legacy tree (none for most queries), unless a candidate
    outside every such path already stands for the current code; best-ranked first, at most ``limit``.
    """
    pool = [(c, legacy.suspect(c.file)) for c in candidates]
    names = {c.name for c, suspect in pool if suspect}
    current = {
        c.name for c, suspect in pool if not suspect and c.name in names and path_category(c.file) is None
    }
    best: dict[str, int] = {}
    for c, suspect in pool:
        if suspect and c.name not in current:
            rank = min(
                (r for r in (c.lexical_rank, c.vector_rank, c.symbol_rank) if r > 0), default=UNPLACED
            )
            best[c.name] = min(rank, best.get(c.name, UNPLACED))
    return tuple(sorted(best, key=lambda name: (best[name], name))[:limit])


def current_over_legacy(
    query: Query, scored: Sequence[Ranked], namesakes: Iterable[tuple[str, str]] = ()
) -> list[Ranked]:
    """Demote legacy copies that have a current namesake (greploom.core.legacy), by LEGACY_PENALTY,
    and the other old copies by OLD_TREE_PENALTY unless the query asks about old code.

    A candidate already demoted as non-product code (a ``compat`` path, a
    test) is not demoted twice, and a place the query points at never is.
    """
    definitions = [legacy.Definition(r.candidate.key, r.candidate.name, r.candidate.file) for r in scored]
    namesakes = tuple(namesakes)
    demote = legacy.demoted(definitions, namesakes, query.words, lambda f: path_category(f) is None)
    old = (
        frozenset()
        if legacy.asks_for_old(query.words)
        else legacy.old_copies(definitions, namesakes, query.words)
    )
    out = []
    for r in scored:
        key = r.candidate.key
        factor = LEGACY_PENALTY if key in demote else OLD_TREE_PENALTY if key in old else 1.0
        if factor < 1.0 and not r.demoted and r.candidate.location_rank == 0:
            signals = (*r.signals, (f"{PENALTY}legacy", factor))
            out.append(Ranked(r.candidate, r.score * factor, signals))
        else:
            out.append(r)
    return out
