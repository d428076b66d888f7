"""Related definitions: nearest in meaning and in the graph, fused (greploom.core.related).

Laws:

1. The given definition is never in its own answer, whatever either source says.
2. Every key answered comes from one of the two sources, and its ranks and ties
   say which: a meaning rank exactly when the meaning list holds it, graph ties
   exactly when the graph does.
3. The answer is deterministic, and does not depend on the order of the ties nor
   on repeats in the meaning list; at most ``limit`` keys, each once.
4. A definition found by both sources ranks above one found by only one, other
   things equal: at least as good a rank in the source the other was found by.
5. In the graph, more weight never ranks lower; a tie counts once however often
   it is listed; being in the same file adds nothing to a sibling in the same
   class.
6. The scores are reciprocal-rank fusion of the two rankings, with equal weights.
"""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.expand import NodeContext, NodeRef, StructuralContext
from greploom.core.fusion import RRF_K
from greploom.core.related import TIE_WEIGHT, Neighbourhood, Tie, graph_relatives, related

ORIGIN = NodeRef("o", "o", "function", "a.py", 10)
_keys = st.sampled_from(["o", "b", "c", "d", "e", "f", "g", "h"])
_refs = st.builds(
    NodeRef,
    key=_keys,
    name=st.just("n"),
    kind=st.just("function"),
    file=st.sampled_from(["a.py", "b.py"]),
    line=st.integers(1, 40),
)
_ties = st.lists(st.tuples(st.sampled_from(list(Tie)), _refs), max_size=14)
_meaning = st.lists(_keys, max_size=10)
_limits = st.integers(0, 10)


def _hood(ties: list[tuple[Tie, NodeRef]]) -> Neighbourhood:
    return Neighbourhood(ORIGIN, tuple(ties))


@given(_ties, _meaning, _limits)
def test_the_origin_is_never_its_own_relative(
    ties: list[tuple[Tie, NodeRef]], meaning: list[str], limit: int
) -> None:
    """Both sources may name the definition asked about (its vector is nearest itself, recursion
    makes it its own callee); the answer never does."""
    assert ORIGIN.key not in [r.key for r in related(_hood(ties), meaning, limit)]
    assert ORIGIN.key not in [r.key for r in graph_relatives(_hood(ties))]


@given(_ties, _meaning, _limits)
def test_every_key_comes_from_a_source_and_says_which(
    ties: list[tuple[Tie, NodeRef]], meaning: list[str], limit: int
) -> None:
    graph = {ref.key for _, ref in ties}
    answer = related(_hood(ties), meaning, limit)
    assert len(answer) <= limit
    assert len({r.key for r in answer}) == len(answer)
    for item in answer:
        assert item.key in set(meaning) | graph
        assert (item.meaning_rank > 0) == (item.key in meaning)
        assert (item.graph_rank > 0) == (item.key in graph) == bool(item.ties)
        assert set(item.ties) == {tie for tie, ref in ties if ref.key == item.key}


@given(_ties, _meaning, _limits, st.randoms(use_true_random=False))
def test_the_answer_does_not_depend_on_the_order_of_ties_or_repeats(
    ties: list[tuple[Tie, NodeRef]], meaning: list[str], limit: int, rnd: random.Random
) -> None:
    """The graph's lists come in whatever order the index stored them; the meaning list may
    name a key twice (a vector search over duplicates): neither changes the answer."""
    shuffled = list(ties)
    rnd.shuffle(shuffled)
    repeated = [*meaning, *meaning[:3]]
    first = related(_hood(ties), meaning, limit)
    assert related(_hood(ties), meaning, limit) == first
    assert related(_hood(shuffled), repeated, limit) == first
    assert graph_relatives(_hood(shuffled)) == graph_relatives(_hood(ties))


@given(_ties, _meaning)
def test_found_by_both_ranks_above_found_by_one(ties: list[tuple[Tie, NodeRef]], meaning: list[str]) -> None:
    """Two sources agreeing is more evidence than one: a definition both found ranks above any
    found by one source alone at a rank no better than the first's in that source."""
    answer = related(_hood(ties), meaning, 100)
    position = {r.key: i for i, r in enumerate(answer)}
    for both in (r for r in answer if r.meaning_rank and r.graph_rank):
        for one in answer:
            if one.meaning_rank and not one.graph_rank and both.meaning_rank <= one.meaning_rank:
                assert position[both.key] < position[one.key]
            if one.graph_rank and not one.meaning_rank and both.graph_rank <= one.graph_rank:
                assert position[both.key] < position[one.key]


@given(st.integers(1, 8))
def test_agreement_wins_over_a_better_rank_in_one_source(rank: int) -> None:
    """A chosen case: "one" is nearer in meaning than "both", but only "both" is tied in the
    graph too, and ranks first."""
    meaning = [*(f"m{i}" for i in range(rank - 1)), "one", "both"]
    ties = [(Tie.FILE_SIBLING, NodeRef("both", "b", "function", "b.py", 1))]
    keys = [r.key for r in related(_hood(ties), meaning, 100)]
    assert keys.index("both") < keys.index("one")


@given(_ties)
def test_more_weight_never_ranks_lower_in_the_graph(ties: list[tuple[Tie, NodeRef]]) -> None:
    relatives = graph_relatives(_hood(ties))
    weights = [r.weight for r in relatives]
    assert weights == sorted(weights, reverse=True)
    for r in relatives:
        counted = set(r.ties)
        if counted & {Tie.CLASS_SIBLING, Tie.PARENT_CLASS, Tie.MEMBER}:
            counted.discard(Tie.FILE_SIBLING)
        assert math.isclose(r.weight, sum(TIE_WEIGHT[t] for t in counted))


def test_a_tie_counts_once_and_the_file_adds_nothing_to_a_class_sibling() -> None:
    callee = NodeRef("c", "c", "function", "b.py", 1)
    sibling = NodeRef("s", "s", "function", "a.py", 30)
    hood = _hood(
        [
            (Tie.CALLEE, callee),
            (Tie.CALLEE, callee),
            (Tie.CLASS_SIBLING, sibling),
            (Tie.FILE_SIBLING, sibling),
        ]
    )
    weights = {r.key: r.weight for r in graph_relatives(hood)}
    assert weights == {"c": TIE_WEIGHT[Tie.CALLEE], "s": TIE_WEIGHT[Tie.CLASS_SIBLING]}


def test_equal_weights_go_to_the_nearer_definition() -> None:
    """Two callers: the one in the same file, a few lines away, comes before one elsewhere."""
    far = NodeRef("a", "a", "function", "b.py", 10)
    near = NodeRef("z", "z", "function", "a.py", 14)
    farther = NodeRef("y", "y", "function", "a.py", 40)
    hood = _hood([(Tie.CALLER, far), (Tie.CALLER, farther), (Tie.CALLER, near)])
    assert [r.key for r in graph_relatives(hood)] == ["z", "y", "a"]


@given(_ties, _meaning)
def test_scores_are_rrf_of_the_two_rankings(ties: list[tuple[Tie, NodeRef]], meaning: list[str]) -> None:
    for item in related(_hood(ties), meaning, 100):
        parts = [1.0 / (RRF_K + r) for r in (item.meaning_rank, item.graph_rank) if r]
        assert math.isclose(item.score, sum(parts), rel_tol=1e-12)


def test_the_neighbourhood_of_a_stored_definition() -> None:
    """A method's neighbourhood: its own graph, its class's other members, its file's definitions."""
    callee = NodeRef("f", "f", "function", "b.py", 3)
    cls = NodeRef("K", "K", "class", "a.py", 1)
    ctx = NodeContext(
        ref=ORIGIN,
        qualname="K.o",
        summary="",
        structure=StructuralContext(callees=(callee,), parent_class=cls),
    )
    sibling = NodeRef("K.p", "p", "function", "a.py", 20)
    other = NodeRef("g", "g", "function", "a.py", 50)
    hood = Neighbourhood.around(ctx, class_members=(sibling, ORIGIN), file_definitions=(cls, sibling, other))
    found = {r.key: r.ties for r in graph_relatives(hood)}
    assert found == {
        "f": (Tie.CALLEE,),
        "K": (Tie.PARENT_CLASS, Tie.FILE_SIBLING),
        "K.p": (Tie.CLASS_SIBLING, Tie.FILE_SIBLING),
        "g": (Tie.FILE_SIBLING,),
    }
    assert [r.key for r in related(hood, [], 2)] == ["f", "K.p"]
