"""Follow-ups in a session: smoothing a question's scores toward the session's memory.

Laws:

1. The gate is within [0, 1], 0 without memory, and 0 for a question that
   shares nothing with the memory and does not point back (a pivot).
2. A pivot (gate 0) is returned exactly as given.
3. Smoothing never removes a candidate; what it adds comes from the memory.
4. A question that points back puts the memory's best above a candidate the
   memory does not hold, whatever the new scores.
5. Remembering keeps at most MAX_REMEMBERED weights, each in [0, 1], and
   what was shown stays shown.
6. A neighbour of a hit (a caller, a callee) is remembered, never above the
   hit it was reached from, and never above its own weight as a hit.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.followup import MAX_REMEMBERED, Memory, gate, normalized, points_back, remember, smooth
from greploom.core.query import read_query

keys = st.sampled_from([f"k{i}" for i in range(12)])
scored = st.lists(st.tuples(keys, st.floats(0, 10, allow_nan=False)), max_size=12, unique_by=lambda p: p[0])
memories = st.builds(
    lambda pairs, shown: Memory(
        tuple(sorted(normalized(pairs).items(), key=lambda p: -p[1])), frozenset(shown), 1
    ),
    scored,
    st.sets(keys, max_size=4),
)


@given(scored, memories, st.booleans())
def test_the_gate_is_a_share(new: list[tuple[str, float]], memory: Memory, back: bool) -> None:
    g = gate(normalized(new), memory, back=back)
    assert 0.0 <= g <= 1.0
    assert gate(normalized(new), Memory(), back=back) == 0.0
    if not back and not {k for k, _ in new} & {k for k, w in memory.weights if w > 0}:
        assert g == 0.0


@given(scored, memories)
def test_a_pivot_is_unchanged_and_nothing_is_removed(new: list[tuple[str, float]], memory: Memory) -> None:
    assert smooth(new, memory, 0.0) == new
    for g in (0.3, 1.0):
        out = [k for k, _ in smooth(new, memory, g)]
        assert {k for k, _ in new} <= set(out)
        assert set(out) <= {k for k, _ in new} | {k for k, _ in memory.weights}
        assert len(out) == len(set(out))


@given(
    st.lists(
        st.tuples(st.sampled_from(["n1", "n2", "n3"]), st.floats(0.1, 10)),
        min_size=1,
        unique_by=lambda p: p[0],
    )
)
def test_pointing_back_leans_on_the_memory(new: list[tuple[str, float]]) -> None:
    memory = Memory((("remembered", 1.0),), frozenset(), 1)
    out = smooth(new, memory, gate(normalized(new), memory, back=True))
    assert out[0][0] == "remembered"


@given(memories, scored, st.sets(keys, max_size=3))
def test_remembering_stays_bounded(
    memory: Memory, answered: list[tuple[str, float]], shown: set[str]
) -> None:
    after = remember(memory, answered, shown)
    assert len(after.weights) <= MAX_REMEMBERED
    assert all(0.0 <= w <= 1.0 for _, w in after.weights)
    assert memory.shown | shown <= after.shown
    assert after.turns == memory.turns + 1


neighbour_keys = st.sampled_from([f"n{i}" for i in range(6)])  # never a hit's key
neighbours = st.lists(st.tuples(neighbour_keys, keys, st.floats(0, 1, allow_nan=False)), max_size=8)


@given(scored, neighbours)
def test_neighbours_are_remembered_below_their_hits(
    answered: list[tuple[str, float]], around: list[tuple[str, str, float]]
) -> None:
    after = dict(remember(Memory(), answered, (), around).weights)
    hits = normalized(answered)
    assert all(0.0 <= w <= 1.0 for w in after.values())
    for key, _hit, _relevance in around:
        if key in after:
            assert after[key] <= max((hits.get(h, 0.0) for k, h, _ in around if k == key), default=0.0)
    best = {k for k, _ in sorted(after.items(), key=lambda p: (-p[1], p[0]))}
    for key, hit, relevance in around:
        if hits.get(hit, 0.0) * relevance > 0 and len(after) < MAX_REMEMBERED:
            assert key in best  # remembered (the memory is not full)


def test_what_points_back() -> None:
    assert points_back(read_query("what are the arguments to that?"))
    assert points_back(read_query("where is it called from?"))
    assert not points_back(read_query("how does this library parse urls into parts"))
    assert not points_back(read_query("how are cookies stored in the jar"))
    # Naming nothing, a question with an anaphor points back with a few more words of its own;
    # one that names what its anaphor is about does not.
    assert points_back(read_query("which variables are injected into its context?"))
    assert not points_back(read_query("how does Flask create its logger?"))
    assert not points_back(read_query("how does it turn the request body into a JSON string for the wire?"))
