"""Call evidence: a candidate that calls several matching candidates gains a share of their evidence.

Laws:

1. Lifts are never negative; a candidate gains exactly when it calls at
   least CALL_PARTS other candidates and is not demoted, and then by
   CALL_LIFT x the file score of those callees.
2. A callee scoring higher, or one more callee candidate, never lowers a
   lift; calls to definitions that are not candidates change nothing.
3. The lifts do not depend on the order the candidates or their callees
   are given in.
4. In the ranking: the lift never removes a candidate nor lowers a score;
   a definition calling three matching parts passes a lone better match,
   for a question in words and not for a symbol query; a test calling them
   gains nothing.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.call_evidence import CALL_LIFT, CALL_PARTS, call_lifts, callee_candidates
from greploom.core.class_evidence import Scored
from greploom.core.file_evidence import file_score
from greploom.core.query import read_query
from greploom.core.ranking import Candidate, rank_candidates

KEYS = tuple(f"k{i}" for i in range(8))
scores = st.floats(0.0, 1.0, allow_nan=False)
pools = st.dictionaries(st.sampled_from(KEYS), scores, max_size=len(KEYS)).map(
    lambda d: [Scored(k, f"m.{k}", "m.py", "function", s) for k, s in d.items()]
)
# The stored callees of some keys: any keys, candidates or not (k-outside never is one).
call_graphs = st.dictionaries(
    st.sampled_from(KEYS), st.lists(st.sampled_from((*KEYS, "k-outside")), max_size=10), max_size=len(KEYS)
)
demotions = st.frozensets(st.sampled_from(KEYS), max_size=3)


@given(pools, call_graphs, demotions)
def test_a_candidate_gains_exactly_when_it_calls_enough_candidates(
    pool: list[Scored], calls: dict[str, list[str]], demoted: frozenset[str]
) -> None:
    lifts = call_lifts(pool, calls, demoted=demoted)
    score = {c.key: c.score for c in pool}
    assert set(lifts) == set(score)
    for key, gain in lifts.items():
        parts = {c for c in calls.get(key, ()) if c in score and c != key}
        assert gain >= 0.0
        if key in demoted or len(parts) < CALL_PARTS:
            assert gain == 0.0
        else:
            assert gain == CALL_LIFT * file_score(score[p] for p in parts)


@given(pools, call_graphs, st.sampled_from(KEYS), scores)
def test_a_stronger_or_an_extra_callee_never_lowers_a_lift(
    pool: list[Scored], calls: dict[str, list[str]], callee: str, score: float
) -> None:
    before = call_lifts(pool, calls)
    old = {c.key: c for c in pool}.get(callee)
    fresh = Scored(callee, "m.x", "m.py", "function", score)
    raised = attrs.evolve(old, score=max(old.score, score)) if old else fresh
    after = call_lifts([*(c for c in pool if c.key != callee), raised], calls)
    for key, gain in before.items():
        if key != callee:
            assert after[key] >= gain


@given(pools, call_graphs, st.lists(st.sampled_from(("x1", "x2", "x3")), max_size=5))
def test_calls_to_what_is_not_a_candidate_change_nothing(
    pool: list[Scored], calls: dict[str, list[str]], outside: list[str]
) -> None:
    more = {k: [*v, *outside] for k, v in calls.items()}
    assert call_lifts(pool, more) == call_lifts(pool, calls)


@given(pools, call_graphs, st.randoms(use_true_random=False))
def test_lifts_do_not_depend_on_order(pool: list[Scored], calls: dict[str, list[str]], rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(pool)
    rnd.shuffle(shuffled)
    reversed_calls = {k: list(reversed(v)) for k, v in reversed(list(calls.items()))}
    assert call_lifts(shuffled, reversed_calls) == call_lifts(pool, calls)


def test_callee_candidates_count_each_once_and_never_the_caller() -> None:
    calls = {"a": ["b", "c", "b", "a", "z"]}
    assert callee_candidates("a", calls, {"a": 1.0, "b": 0.5, "c": 0.1}) == ["b", "c"]


def _candidate(key: str, file: str, lexical: int, vector: int) -> Candidate:
    name = key.rsplit(".", 1)[-1]
    return Candidate(key, name, key, file, lexical, vector, 0, 0, "function")


def _pool() -> list[Candidate]:
    # The parts match best, a lone function elsewhere matches better than the whole.
    return [
        _candidate("other.best", "pkg/other.py", 1, 1),
        _candidate("req.prepare_url", "pkg/req.py", 2, 3),
        _candidate("req.prepare_body", "pkg/req.py", 3, 2),
        _candidate("req.prepare_headers", "pkg/req.py", 4, 4),
        _candidate("req.prepare", "pkg/req.py", 5, 6),
        _candidate("tests.test_req.test_all", "tests/test_req.py", 6, 5),
    ]


_CALLS = {
    "req.prepare": ["req.prepare_url", "req.prepare_body", "req.prepare_headers"],
    "tests.test_req.test_all": ["req.prepare_url", "req.prepare_body", "req.prepare_headers"],
}


RANKED_KEYS = tuple(f"pkg.m{i}" for i in range(8))
def _ranked_candidate(key: str, file: str, lexical: int, vector: int) -> Candidate:
    return Candidate(key, key.rsplit(".", 1)[-1], key, file, lexical, vector, 0, 0, "function")


ranked_pools = st.lists(
    st.builds(
        _ranked_candidate,
        st.sampled_from(RANKED_KEYS),
        st.sampled_from(("pkg/a.py", "pkg/b.py", "tests/test_a.py")),
        st.integers(0, 10),
        st.integers(0, 10),
    ),
    max_size=8,
    unique_by=lambda c: c.key,
)
ranked_calls = st.dictionaries(
    st.sampled_from(RANKED_KEYS), st.lists(st.sampled_from(RANKED_KEYS), max_size=6), max_size=8
)


@given(ranked_pools, ranked_calls, st.sampled_from(("prepare the whole request", "parse a header value")))
def test_in_the_ranking_calls_only_raise_scores_and_keep_every_candidate(
    pool: list[Candidate], calls: dict[str, list[str]], text: str
) -> None:
    query = read_query(text)
    before = {r.candidate.key: r.score for r in rank_candidates(query, pool)}
    ranked = rank_candidates(query, list(reversed(pool)), calls=calls)
    assert sorted(r.candidate.key for r in ranked) == sorted(c.key for c in pool)
    assert all(r.score >= before[r.candidate.key] for r in ranked)
    assert [r.candidate.key for r in ranked] == [
        r.candidate.key for r in rank_candidates(query, pool, calls=calls)
    ]


@given(st.sampled_from(("prepare the whole request", "build every part of a request")))
def test_in_the_ranking_the_whole_passes_a_lone_better_match(text: str) -> None:
    query = read_query(text)
    without = rank_candidates(query, _pool())
    ranked = rank_candidates(query, _pool(), calls=_CALLS)
    order = [r.candidate.key for r in ranked]
    assert sorted(order) == sorted(c.key for c in _pool())
    assert order.index("req.prepare") < order.index("other.best")
    before = {r.candidate.key: r.score for r in without}
    after = {r.candidate.key: r.score for r in ranked}
    assert all(after[k] >= before[k] for k in before)
    # The test calls the same parts and gains nothing: it is demoted.
    assert after["tests.test_req.test_all"] == before["tests.test_req.test_all"]


def test_a_symbol_query_gains_nothing_from_calls() -> None:
    query = read_query("prepare_headers")
    without = rank_candidates(query, _pool())
    ranked = rank_candidates(query, _pool(), calls=_CALLS)
    assert [(r.candidate.key, r.score) for r in ranked] == [(r.candidate.key, r.score) for r in without]
