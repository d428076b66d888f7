"""The memo of call resolution (greploom.core.call_memo): remembered answers are fresh answers.

The lookups call resolution memoises follow names from module to module, may
meet cycles and a depth limit, and read tables as they go. Modelled here by a
lookup over a drawn graph of names: a name either has a value, or is bound to
other names (asked in order; the first with an answer wins), and asking a
name reads it.

Laws:

1. Asked in any order with one memo, every name answers what it answers asked
   alone with a fresh memo: cycles and the depth limit do not leak from one
   question into another.
2. ... and its reads are those of the fresh question: a remembered answer
   brings the reads it was found with.
3. A question the memo answers again (nothing changed) answers the same.
"""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.call_memo import MAX_DEPTH, MISS, Memo

_NAMES = tuple(f"n{i}" for i in range(6))
# Each name: a value, or the names it is bound to (cycles and long chains included).
_graphs = st.dictionaries(
    st.sampled_from(_NAMES),
    st.one_of(st.integers(0, 3), st.lists(st.sampled_from(_NAMES), max_size=3).map(tuple)),
)
Graph = Mapping[str, int | tuple[str, ...]]


def _ask(memo: Memo, graph: Graph, name: str, depth: int) -> int | None:
    """What a name means: its value, or the first answer among the names it is bound to."""
    if memo.beyond(depth):
        return None
    known = memo.get(("name", name), depth, None)
    if known is not MISS:
        return known  # type: ignore[return-value]
    memo.push(("name", name), depth)
    memo.reads.add(name)
    answer: int | None = None
    bound = graph.get(name)
    if isinstance(bound, int):
        answer = bound
    elif bound is not None:
        for other in bound:
            answer = _ask(memo, graph, other, depth + 1)
            if answer is not None:
                break
    memo.pop(answer)
    return answer


def _fresh(graph: Graph, name: str, depth: int) -> tuple[int | None, set[str]]:
    memo = Memo()
    memo.start()
    answer = _ask(memo, graph, name, depth)
    return answer, memo.finish()


@given(
    _graphs,
    st.lists(st.tuples(st.sampled_from(_NAMES), st.integers(0, MAX_DEPTH + 1)), max_size=12),
)
def test_remembered_answers_are_fresh_answers(graph: Graph, questions: list[tuple[str, int]]) -> None:
    """Laws 1-3: one memo for every question, in the drawn order, answers and reads as a fresh
    memo for each question does; asked twice, the same."""
    memo = Memo()
    for name, depth in [*questions, *questions]:
        memo.start()
        answer = _ask(memo, graph, name, depth)
        reads = memo.finish()
        assert (answer, reads) == _fresh(graph, name, depth)
