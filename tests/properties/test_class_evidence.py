"""Class-level evidence: a class that leads its matching members gains a share of their evidence.

Laws:

1. Lifts are never negative and go only to classes; a class gains only when
   at least CLASS_MEMBERS of its members are candidates and none of them
   scores above it.
2. Raising a member's score while the class still leads, or adding a member
   that scores no higher than the class, never lowers the class's lift.
3. The lifts do not depend on the order the candidates are given in.
4. In the ranking: the lift never removes a candidate nor lowers a score; it
   is for questions in words that do not ask how the code is built (those
   have file evidence) and never for symbol queries; a class that leads two
   matching members passes a lone better match of another file.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.class_evidence import (
    CLASS_KIND,
    CLASS_LIFT,
    CLASS_MEMBERS,
    Scored,
    class_lifts,
    members_of,
)
from greploom.core.file_evidence import file_score
from greploom.core.query import read_query
from greploom.core.ranking import Candidate, rank_candidates

scores = st.floats(0.0, 1.0, allow_nan=False)
OWNERS = ("Session", "Session.Redirects", "Sessions", "Client")


def candidate(i: int, owner: str, file: str, kind: str, score: float) -> Scored:
    qualname = owner if kind == CLASS_KIND else f"{owner}.m{i}"
    return Scored(f"{kind}:{file}:{qualname}", qualname, file, kind, score)


pools = st.lists(
    st.builds(
        candidate,
        st.integers(0, 6),
        st.sampled_from(OWNERS),
        st.sampled_from(("pkg/a.py", "pkg/b.py")),
        st.sampled_from((CLASS_KIND, "function")),
        scores,
    ),
    max_size=12,
    unique_by=lambda c: c.key,
)


@given(pools)
def test_only_a_class_that_leads_its_members_gains(pool: list[Scored]) -> None:
    """Never negative; classes only; at least CLASS_MEMBERS members, none above the class."""
    lifts = class_lifts(pool)
    assert set(lifts) == {c.key for c in pool}
    for c in pool:
        # Members, read independently of members_of: its file's, qualified below it.
        depth = len(c.qualname.split("."))
        inside = [
            m for m in pool
            if m.file == c.file and m.key != c.key and m.qualname.split(".")[:depth] == c.qualname.split(".")
        ]  # fmt: skip
        assert set(members_of(c, pool)) == set(inside)
        assert lifts[c.key] >= 0.0
        leads = all(m.score <= c.score for m in inside)
        if c.kind == CLASS_KIND and len(inside) >= CLASS_MEMBERS and leads:
            assert lifts[c.key] == CLASS_LIFT * file_score(m.score for m in inside)
        else:
            assert lifts[c.key] == 0.0


@given(st.lists(scores, min_size=CLASS_MEMBERS, max_size=6), st.data())
def test_more_or_stronger_members_never_lower_the_lift(
    member_scores: list[float], data: st.DataObject
) -> None:
    """A member raised (the class still leading) or a weaker member added never lowers the lift."""
    top = data.draw(st.floats(max(member_scores), 1.0, allow_nan=False))
    owner = Scored("class:a.py:Session", "Session", "a.py", CLASS_KIND, top)
    inside = [Scored(f"f{i}", f"Session.m{i}", "a.py", "function", s) for i, s in enumerate(member_scores)]
    before = class_lifts([owner, *inside])[owner.key]
    i = data.draw(st.integers(0, len(inside) - 1))
    raised = attrs.evolve(inside[i], score=data.draw(st.floats(inside[i].score, top, allow_nan=False)))
    assert class_lifts([owner, *inside[:i], raised, *inside[i + 1 :]])[owner.key] >= before
    extra = Scored("f-extra", "Session.extra", "a.py", "function", data.draw(st.floats(0.0, top)))
    assert class_lifts([owner, *inside, extra])[owner.key] >= before


@given(pools, st.randoms(use_true_random=False))
def test_the_lifts_do_not_depend_on_the_order_given(pool: list[Scored], rnd: object) -> None:
    shuffled = list(pool)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert class_lifts(shuffled) == class_lifts(pool)


def _pool() -> list[Candidate]:
    """A class and two of its methods matching a little each; one function of another file
    matching better than any of them alone."""
    return [
        Candidate("function:responses.py:set_cookie", "set_cookie", "responses.set_cookie",
                  "responses.py", 2, 2),
        Candidate("class:sessions.py:SessionMiddleware", "SessionMiddleware", "sessions.SessionMiddleware",
                  "sessions.py", 3, 4, kind=CLASS_KIND),
        Candidate("function:sessions.py:SessionMiddleware.__call__", "__call__",
                  "sessions.SessionMiddleware.__call__", "sessions.py", 5, 6, kind="function"),
        Candidate("function:sessions.py:SessionMiddleware.__init__", "__init__",
                  "sessions.SessionMiddleware.__init__", "sessions.py", 6, 8, kind="function"),
    ]  # fmt: skip


def test_in_the_ranking_a_class_leading_its_members_passes_a_lone_better_match() -> None:
    question = rank_candidates(read_query("a signed cookie session that expires"), _pool())
    assert [r.candidate.name for r in question][:2] == ["SessionMiddleware", "set_cookie"]
    assert len(question) == len(_pool())
    factor = {r.candidate.key: dict(r.signals)["class"] for r in question}
    assert factor["class:sessions.py:SessionMiddleware"] > 1.0
    assert sum(f > 1.0 for f in factor.values()) == 1 and min(factor.values()) == 1.0
    # How the code is built: file evidence, not this; a symbol: ranked by its names.
    for text in ("how does the session cookie flow work", "set_cookie"):
        assert all("class" not in dict(r.signals) for r in rank_candidates(read_query(text), _pool()))
