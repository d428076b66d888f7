"""Code-aware ranking signals.

Laws:

1. The output is a permutation of the input: signals move candidates, never
   remove or invent them (penalties included).
2. A definition boost never lowers the defining node's score.
3. A better backend rank never lowers a candidate's score (metamorphic).
4. The order does not depend on the order candidates are given in.
5. Saturation: among the results before the first demoted one, no file has
   more than ``per_file`` (not counting definitions the query names, which
   are never demoted); demoted results keep their relative order.
6. Non-product code (tests, examples, vendored...) never outranks the same
   candidate placed in product code, unless the query asks for it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.ranking import (
    Candidate,
    QueryKind,
    path_category,
    query_kind,
    rank_candidates,
    saturate,
    score_candidate,
)

names = st.sampled_from(("send", "parse_url", "Session", "get_adapter", "retry", "backoff_delay"))
files = st.sampled_from(
    (
        "pkg/sessions.py",
        "pkg/utils.py",
        "tests/test_utils.py",
        "examples/demo.py",
        "pkg/_compat.py",
        "pkg/models.py",
    )
)
candidates = st.builds(
    Candidate,
    key=st.uuids().map(str),
    name=names,
    qualname=st.tuples(st.sampled_from(("pkg.sessions", "pkg.utils.Session")), names).map(".".join),
    file=files,
    lexical_rank=st.integers(0, 30),
    vector_rank=st.integers(0, 30),
)
pools = st.lists(candidates, max_size=12, unique_by=lambda c: c.key)
queries = st.sampled_from(
    (
        "Session.send",
        "parse_url",
        "how are retries handled",
        "where is the backoff delay computed",
        "send",
        "test for parse_url",
    )
)


@given(queries, pools)
def test_permutation_of_the_input(query: str, pool: list[Candidate]) -> None:
    """Signals reorder; they never drop a candidate the backends found."""
    ranked = rank_candidates(query, pool)
    assert sorted(r.candidate.key for r in ranked) == sorted(c.key for c in pool)


@given(
    st.sampled_from(("parse_url", "get_adapter", "Session")), files, st.integers(0, 30), st.integers(0, 30)
)
def test_definition_boost_never_lowers(name: str, file: str, lex: int, vec: int) -> None:
    """Asking for a symbol by name puts its definition at or above an otherwise equal node."""
    defining = Candidate("a", name, f"pkg.mod.{name}", file, lex, vec)
    other = Candidate("b", "unrelated_thing", "pkg.mod.unrelated_thing", file, lex, vec)
    assert query_kind(name) is QueryKind.SYMBOL
    boosted = score_candidate(name, defining)
    assert boosted.score >= score_candidate(name, other).score
    if lex or vec:
        assert ("definition", 2.0) in boosted.signals
        assert boosted.score > score_candidate(name, other).score


@given(queries, candidates, st.integers(1, 29))
def test_better_rank_never_lowers(query: str, candidate: Candidate, better: int) -> None:
    """Moving up in a backend's list moves the score up or leaves it."""
    worse = Candidate(candidate.key, candidate.name, candidate.qualname, candidate.file, better + 1, 0)
    improved = Candidate(candidate.key, candidate.name, candidate.qualname, candidate.file, better, 0)
    assert score_candidate(query, improved).score >= score_candidate(query, worse).score


@given(queries, pools, st.randoms(use_true_random=False))
def test_input_order_does_not_matter(query: str, pool: list[Candidate], rnd: object) -> None:
    """The same candidates give the same ranking however they arrive."""
    shuffled = list(pool)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert [r.candidate.key for r in rank_candidates(query, pool)] == [
        r.candidate.key for r in rank_candidates(query, shuffled)
    ]


@given(queries, pools, st.integers(1, 4))
def test_saturation_spreads_files(query: str, pool: list[Candidate], per_file: int) -> None:
    """One file cannot flood the top results while others wait; but ``Flask`` still finds
    class Flask, however many other hits its file has."""
    ranked = rank_candidates(query, pool, per_file=0)
    spread = saturate(ranked, per_file)
    counts: dict[str, int] = {}
    prefix = []
    for r in spread:
        if not r.named:
            counts[r.candidate.file] = counts.get(r.candidate.file, 0) + 1
            if counts[r.candidate.file] > per_file:
                break
        prefix.append(r)
    demoted = [r for r in ranked if r not in prefix]
    assert list(spread[len(prefix) :]) == demoted
    for r in spread:
        if r.named:
            assert spread.index(r) <= ranked.index(r)


@given(queries, candidates)
def test_penalties_demote_but_do_not_remove(query: str, candidate: Candidate) -> None:
    """Test code ranks below the same code in the product, unless the query asks for tests."""
    product = Candidate(
        candidate.key,
        candidate.name,
        candidate.qualname,
        "pkg/core.py",
        candidate.lexical_rank,
        candidate.vector_rank,
    )
    in_tests = Candidate(
        candidate.key,
        candidate.name,
        candidate.qualname,
        "tests/core.py",
        candidate.lexical_rank,
        candidate.vector_rank,
    )
    assert path_category("tests/core.py") == "test" and path_category("pkg/core.py") is None
    a, b = score_candidate(query, product).score, score_candidate(query, in_tests).score
    if "test" in query.split():
        assert b >= a * 0.999 or b == a
    else:
        assert b <= a
