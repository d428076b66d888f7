"""File-level evidence: a file's candidates add up to a file score, and a strong file lifts its best.

Laws:

1. A file's score never decreases when one of its candidates scores higher,
   nor when it gains a candidate.
2. One definition's score alone never makes a file outrank a file with
   strictly more and stronger matches: a file whose matches, best first, are
   each at least as strong as another file's, and that has more of them,
   scores at least as high (higher while the other is under the depth).
3. Lifts are never negative; they go only to a file's ``lifted`` best
   definitions and its module node; a file with one candidate lifts nothing.
4. Neither depends on the order the candidates are given in.
5. In the ranking: lifting never removes a candidate and never lowers one's
   score; only questions about how the code is built are lifted; symbol
   queries are ranked by their names, and a definition a symbol query names
   stays first however many candidates other files hold.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.file_evidence import (
    FILE_DEPTH,
    LIFTED,
    Member,
    asks_about_architecture,
    file_lifts,
    file_score,
    file_scores,
)
from greploom.core.query import read_query
from greploom.core.ranking import Candidate, rank_candidates, score_candidate

scores = st.floats(0.0, 1.0, allow_nan=False)
files = st.sampled_from(("pkg/a.py", "pkg/b.py", "pkg/sub/c.py"))
members = st.lists(
    st.builds(Member, key=st.uuids().map(str), file=files, score=scores, module=st.booleans()),
    max_size=12,
    unique_by=lambda m: m.key,
)


@given(st.lists(scores, min_size=1, max_size=8), st.data())
def test_a_better_match_never_lowers_its_file(group: list[float], data: st.DataObject) -> None:
    """Raising one candidate's score, or adding a candidate, never lowers its file's score."""
    i = data.draw(st.integers(0, len(group) - 1))
    higher = data.draw(st.floats(group[i], 1.0, allow_nan=False))
    raised = [*group[:i], higher, *group[i + 1 :]]
    assert file_score(raised) >= file_score(group)
    assert file_score([*group, data.draw(scores)]) >= file_score(group)


@given(st.lists(scores, min_size=1, max_size=6), st.data())
def test_more_and_stronger_matches_win(weaker: list[float], data: st.DataObject) -> None:
    """A file with one strong definition does not outrank one with more matches, each as strong."""
    ordered = sorted(weaker, reverse=True)
    stronger = [data.draw(st.floats(s, 1.0, allow_nan=False)) for s in ordered]
    extra = data.draw(st.lists(st.floats(0.01, 1.0, allow_nan=False), min_size=1, max_size=4))
    richer = [*stronger, *extra]
    assert file_score(richer) >= file_score(weaker)
    if len(weaker) < FILE_DEPTH:
        assert file_score(richer) > file_score(weaker)


@given(members)
def test_lifts_go_to_the_best_of_a_file_and_its_module(pool: list[Member]) -> None:
    """Never negative; only the file's best definitions and its module node; nothing from a lone match."""
    lifts = file_lifts(pool)
    assert set(lifts) == {m.key for m in pool}
    for file in {m.file for m in pool}:
        group = [m for m in pool if m.file == file]
        best = sorted((m for m in group if not m.module), key=lambda m: (-m.score, m.key))[:LIFTED]
        for m in group:
            assert lifts[m.key] >= 0.0
            if lifts[m.key] > 0.0:
                assert m.module or m in best
                assert len(group) > 1


@given(members, st.randoms(use_true_random=False))
def test_evidence_does_not_depend_on_order(pool: list[Member], rnd: object) -> None:
    shuffled = list(pool)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert file_lifts(shuffled) == file_lifts(pool)
    assert file_scores(shuffled) == file_scores(pool)


candidates = st.builds(
    Candidate,
    key=st.uuids().map(str),
    name=st.sampled_from(("send", "parse_url", "Session", "retry")),
    qualname=st.sampled_from(("pkg.a.send", "pkg.b.Session.retry", "pkg.a.parse_url")),
    file=st.sampled_from(("pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "tests/test_a.py")),
    lexical_rank=st.integers(0, 10),
    vector_rank=st.integers(0, 10),
    kind=st.sampled_from(("function", "class", "module")),
)
pools = st.lists(candidates, max_size=12, unique_by=lambda c: c.key)
architecture = st.sampled_from(
    ("how does retry propagation work", "give an overview of the session lifecycle", "explain the design")
)


@given(architecture, pools)
def test_lifting_never_removes_nor_lowers(query: str, pool: list[Candidate]) -> None:
    """A strong file moves its best up; every candidate stays, none scores lower for it."""
    assert asks_about_architecture(read_query(query).words)
    ranked = rank_candidates(query, pool)
    assert sorted(r.candidate.key for r in ranked) == sorted(c.key for c in pool)
    for r in ranked:
        assert r.score >= score_candidate(query, r.candidate).score


@given(st.sampled_from(("how are retries handled", "decide whether a host should skip the proxy")), pools)
def test_other_questions_are_not_lifted(query: str, pool: list[Candidate]) -> None:
    """A question for one function is ranked by its candidates alone (measured: lifts cost there)."""
    assert not asks_about_architecture(read_query(query).words)
    for r in rank_candidates(query, pool):
        assert r.score == score_candidate(query, r.candidate).score


@given(st.lists(candidates, max_size=10, unique_by=lambda c: c.key), st.integers(1, 3))
def test_a_named_definition_stays_first(pool: list[Candidate], rank: int) -> None:
    """``parse_url`` is answered by ``parse_url`` first, however crowded other files are."""
    others = [
        attrs.evolve(c, name="unrelated", qualname="pkg.a.unrelated", lexical_rank=c.lexical_rank + rank)
        for c in pool
    ]
    named = Candidate("named", "parse_url", "pkg.url.parse_url", "pkg/url.py", rank, rank, 1)
    ranked = rank_candidates("parse_url", [*others, named])
    assert ranked[0].candidate.key == "named"
