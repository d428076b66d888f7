"""The re-index plan.

Laws:

1. Applying the plan to the stored state gives exactly the current state.
2. Nothing unchanged is re-embedded: a key is embedded only if it is new, its
   hash changed, or the run is forced.
3. Every vanished key is deleted, and nothing else is.
4. embed, repoint and unchanged partition the current keys.
5. Planning twice is idempotent: after applying a plan, the next plan is a no-op.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.plan import IndexEntry, apply_plan, plan_reindex

entries = st.builds(
    IndexEntry,
    key=st.sampled_from("abcdefgh"),
    content_hash=st.sampled_from(("h1", "h2", "h3")),
    node_id=st.sampled_from(("id1", "id2")),
    file=st.sampled_from(("a.py", "b.py")),
    line=st.integers(1, 3),
    end_line=st.one_of(st.none(), st.integers(3, 5)),
)
states = st.lists(entries, unique_by=lambda e: e.key)


@given(states, states, st.booleans())
def test_applying_the_plan_reaches_the_current_state(
    stored: list[IndexEntry], current: list[IndexEntry], force: bool
) -> None:
    """After a run the index holds exactly what the CPG says, no ghosts, no gaps."""
    plan = plan_reindex(stored, current, force=force)
    assert apply_plan(stored, current, plan) == {e.key: e for e in current}


@given(states, states)
def test_nothing_unchanged_is_embedded(stored: list[IndexEntry], current: list[IndexEntry]) -> None:
    """Embedding is the expensive step: only new or changed content pays for it."""
    old = {e.key: e.content_hash for e in stored}
    plan = plan_reindex(stored, current)
    for key in plan.embed:
        assert old.get(key) != next(e.content_hash for e in current if e.key == key)


@given(states, states)
def test_every_vanished_key_is_deleted(stored: list[IndexEntry], current: list[IndexEntry]) -> None:
    """Deleted code must leave search and graph in the same run."""
    plan = plan_reindex(stored, current)
    assert set(plan.delete) == {e.key for e in stored} - {e.key for e in current}


@given(states, states, st.booleans())
def test_plan_partitions_current_keys(
    stored: list[IndexEntry], current: list[IndexEntry], force: bool
) -> None:
    """Each current key gets exactly one decision."""
    plan = plan_reindex(stored, current, force=force)
    parts = [set(plan.embed), set(plan.repoint), set(plan.unchanged)]
    assert set().union(*parts) == {e.key for e in current}
    assert sum(len(p) for p in parts) == len(current)
    if force:
        assert set(plan.embed) == {e.key for e in current}


@given(states, states)
def test_second_run_is_a_noop(stored: list[IndexEntry], current: list[IndexEntry]) -> None:
    """Re-indexing an unchanged CPG does nothing (metamorphic)."""
    after = apply_plan(stored, current, plan_reindex(stored, current))
    assert plan_reindex(after.values(), current).is_noop
