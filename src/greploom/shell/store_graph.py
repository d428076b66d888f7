"""The stored graph as the read-only mapping the core's expansion walks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from greploom.core.expand import NodeContext
from greploom.shell.store import IndexStore


class StoreGraph(Mapping[str, NodeContext]):
    """The stored graph as the read-only mapping the core's expansion walks, loaded lazily."""

    def __init__(self, store: IndexStore) -> None:
        self._store = store
        self._cache: dict[str, NodeContext | None] = {}

    def prefetch(self, keys: Iterable[str]) -> None:
        """Load many contexts in one query."""
        missing = [k for k in keys if k not in self._cache]
        found = self._store.contexts(missing)
        for key in missing:
            self._cache[key] = found.get(key)

    def __getitem__(self, key: str) -> NodeContext:
        if key not in self._cache:
            self.prefetch([key])
        ctx = self._cache[key]
        if ctx is None:
            raise KeyError(key)
        return ctx

    def __iter__(self) -> Iterator[str]:
        return (k for k, v in self._cache.items() if v is not None)

    def __len__(self) -> int:
        return sum(1 for v in self._cache.values() if v is not None)
