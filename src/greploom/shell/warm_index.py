"""An index file held open for queries: the store, its recorded meta, and the embedder it calls for.

The store is opened read-only and kept while the file stays the same (its
inode and device); a file replaced underneath it is reopened by the next
query. The embedder follows the index's recorded identity (provider,
model, dimension): built on the first open, and again only when a replaced
index records another. An index whose first run never completed is an error
naming the command that builds it.

Not thread-safe by itself: :class:`~greploom.shell.querying.QueryEngine`
holds its lock around every use.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from greploom.core.errors import StoreError
from greploom.shell.config import GrepLoomConfig
from greploom.shell.embedders import query_embedder
from greploom.shell.lock import run_in_progress
from greploom.shell.ports import Embedder, recorded_identity
from greploom.shell.schema import BUILDING
from greploom.shell.store import IndexStore

__all__ = ["WarmIndex"]

IDENTITY_KEYS = ("embedder_provider", "embedder_model", "embedder_dimension")  # a change: a new embedder


class WarmIndex:
    """The open store of one index file, its meta and its embedder, reopened when the file is replaced."""

    def __init__(self, *, one_shot: bool = False) -> None:
        """``one_shot``: one query is answered and the index closed (the cold CLI path)."""
        self._one_shot = one_shot
        self._store: IndexStore | None = None
        self._stamp: tuple[int, int] | None = None
        self.embedder: Embedder | None = None
        self.embedder_error: str | None = None  # the embedder's last failure, for the metadata
        self.meta: dict[str, str] = {}
        self.build: tuple[int, bool] | None = None  # a first run's (vectors %, still running)

    def close(self) -> None:
        """Close the store and the embedder."""
        if self._store is not None:
            self._store.close()
            self._store = None
        if self.embedder is not None:
            self.embedder.close()
            self.embedder = None

    def open(self, config: GrepLoomConfig) -> IndexStore:
        """The store, reopened when the file was replaced; the embedder, when the index changed it."""
        stamp = _file_stamp(config.db_path)
        if self._store is not None and stamp == self._stamp:
            meta = self._store.meta()
        else:
            if self._store is not None:
                self._store.close()
            self._store = IndexStore.open_existing(config.db_path, readonly=True)
            self._stamp = stamp
            meta = self._store.meta()
        if not meta.get("indexed_at"):
            raise StoreError(
                f"the index {config.db_path} was never completed (its first run failed or is still "
                f"running); run `greploom index PATH --db {config.db_path}`"
            )
        if any(meta.get(k) != self.meta.get(k) for k in IDENTITY_KEYS) or not self.meta:
            if self.embedder is not None:
                self.embedder.close()
            self.embedder, self.embedder_error = None, None
            self.embedder = query_embedder(
                config,
                recorded_identity(meta),
                meta.get("embedder_url") or None,
                one_shot=self._one_shot,
            )
        self.meta = meta
        self.build = _build_state(self._store, meta, config.db_path)
        return self._store

    def probe(self) -> list[str]:
        """What is wrong with the open index file, for an SQLite failure that names no cause."""
        return self._store.quick_check() if self._store is not None else []


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_dev)


def _build_state(store: IndexStore, meta: Mapping[str, str], db_path: Path) -> tuple[int, bool] | None:
    """How far a first run's vectors are (percent of rows), and whether it still runs; None when
    no first run is under way or stopped (greploom.shell.index_state.BUILDING)."""
    if not meta.get(BUILDING):
        return None
    have, rows = store.vector_coverage()
    return (100 * have // rows if rows else 0), run_in_progress(db_path)
