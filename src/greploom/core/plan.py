"""The re-index plan: compare what the index holds with what the CPG says now.

The shell gathers the stored ``(key, hash, id, location)`` rows and the
current ones, this module decides, and the shell applies the decision in one
transaction:

- ``embed``: keys that are new, or whose content hash changed;
- ``delete``: stored keys that no longer exist;
- ``repoint``: same content, but a new CPG id or location (no embedding);
- ``unchanged``: nothing to do.

Laws (tests/properties/test_plan.py): applying the plan to the stored state
gives exactly the current state; nothing unchanged is re-embedded; every
vanished key is deleted; the four sets partition stored and current keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs


@attrs.frozen
class IndexEntry:
    """One indexable node as the plan sees it: key, content hash, id and place."""

    key: str
    content_hash: str
    node_id: str
    file: str
    line: int
    end_line: int | None


# The same shape on both sides; the names say which side a value comes from.
StoredEntry = IndexEntry
CurrentEntry = IndexEntry


@attrs.frozen
class ReindexPlan:
    """Which keys to embed, delete, re-point, or leave alone (each sorted)."""

    embed: tuple[str, ...]
    delete: tuple[str, ...]
    repoint: tuple[str, ...]
    unchanged: tuple[str, ...]

    @property
    def is_noop(self) -> bool:
        """True when the index already matches the CPG."""
        return not (self.embed or self.delete or self.repoint)


def plan_reindex(
    stored: Iterable[StoredEntry], current: Iterable[CurrentEntry], *, force: bool = False
) -> ReindexPlan:
    """Decide the re-index; ``force`` re-embeds every current key."""
    old: Mapping[str, StoredEntry] = {e.key: e for e in stored}
    new: Mapping[str, CurrentEntry] = {e.key: e for e in current}
    embed: list[str] = []
    repoint: list[str] = []
    unchanged: list[str] = []
    for key, entry in new.items():
        before = old.get(key)
        if force or before is None or before.content_hash != entry.content_hash:
            embed.append(key)
        elif before != entry:
            repoint.append(key)
        else:
            unchanged.append(key)
    delete = [key for key in old if key not in new]
    return ReindexPlan(
        embed=tuple(sorted(embed)),
        delete=tuple(sorted(delete)),
        repoint=tuple(sorted(repoint)),
        unchanged=tuple(sorted(unchanged)),
    )


def apply_plan(
    stored: Iterable[StoredEntry], current: Iterable[CurrentEntry], plan: ReindexPlan
) -> dict[str, StoredEntry]:
    """The stored state after the plan is carried out (the shell's job, as a model)."""
    state = {e.key: e for e in stored}
    new = {e.key: e for e in current}
    for key in plan.delete:
        state.pop(key, None)
    for key in (*plan.embed, *plan.repoint):
        state[key] = new[key]
    return state
