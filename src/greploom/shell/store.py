"""The index file: one SQLite database (APSW + sqlite-vec + FTS5) per indexed code base.

The schema and the reasons behind it are in :mod:`greploom.shell.schema`.
Every connection gets WAL, a busy timeout and sqlite-vec; every statement
uses bindings. Writers take ``BEGIN IMMEDIATE``; readers see the last commit.

:class:`IndexStore` is the one handle the rest of greploom holds: it opens the
file and owns its transactions, and hands each statement to the part of the
store it concerns: :mod:`~greploom.shell.store_file` (opening the file,
recognising it, SQLite's checks), :mod:`~greploom.shell.store_rows` (node rows
and the lookups queries make), :mod:`~greploom.shell.store_vectors` (the
vector table and pending vectors) and :mod:`~greploom.shell.store_sql`
(statements they share).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import apsw

from greploom.core import names
from greploom.core.errors import StoreError
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.freshness import FileStamp
from greploom.core.locations import Location
from greploom.core.plan import IndexEntry, ReindexPlan
from greploom.shell import store_calls, store_file, store_rows, store_vectors
from greploom.shell.faults import storage_faults
from greploom.shell.schema import (
    FILE_INDEX,
    FILES_TABLE,
    MODULE_NAMES_INDEX,
    MODULE_NAMES_TABLE,
    NAME_INDEX,
    SCHEMA,
    NodeRow,
)
from greploom.shell.store_file import BUSY_TIMEOUT_MS, SQLITE_MAGIC, connect
from greploom.shell.store_sql import IN_CHUNK, read_meta, scalar, write_meta
from greploom.shell.store_vectors import PENDING_IDENTITY

__all__ = ["BUSY_TIMEOUT_MS", "IN_CHUNK", "PENDING_IDENTITY", "SQLITE_MAGIC", "IndexStore", "connect"]


class IndexStore:
    """One index file. Open with :meth:`open_existing` (queries) or :meth:`open_or_create`."""

    def __init__(self, path: Path, conn: apsw.Connection) -> None:
        self.path = path
        self.conn = conn
        # Tables an older file lacked, added when it was opened for writing: their rows are
        # made by the next full run (a partial one keeps the others' rows: greploom.shell.dir_rows).
        self.added: frozenset[str] = frozenset()

    # -- opening -----------------------------------------------------------
    @classmethod
    def open_existing(cls, path: Path, *, readonly: bool = False) -> IndexStore:
        """Open an index that must exist; never creates a file. ``readonly`` for queries."""
        if not path.exists():
            raise StoreError(f"no index at {path}; run `greploom index PATH --db {path}` first")
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not an index file")
        store = cls(path, connect(path, create=False, readonly=readonly))
        try:
            with storage_faults(path, "read the index"):
                store_file.check_schema(store.conn, path, allow_empty=False)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_or_create(cls, path: Path) -> IndexStore:
        """Open an index, creating the file and schema when absent."""
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not an index file")
        with storage_faults(path.parent, "create the folder"):
            path.parent.mkdir(parents=True, exist_ok=True)
        store = cls(path, connect(path, create=True))
        try:
            with storage_faults(path, "write the index"):
                if store_file.check_schema(store.conn, path, allow_empty=True):
                    with store.write():
                        store.conn.execute(SCHEMA)
                else:
                    store.add_missing_indexes()
        except BaseException:
            store.close()
            raise
        return store

    def add_missing_indexes(self) -> None:
        """Add the indexes a file from an older greploom lacks (writers only; idempotent)."""
        names = {str(n) for (n,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.added = frozenset({"files", "module_names"} - names)
        with self.write():
            self.conn.execute(NAME_INDEX)
            self.conn.execute(FILE_INDEX)
            self.conn.execute(FILES_TABLE)
            self.conn.execute(MODULE_NAMES_TABLE)
            self.conn.execute(MODULE_NAMES_INDEX)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> IndexStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ------------------------------------------------------
    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error)."""
        with storage_faults(self.path, "write the index"):
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except apsw.BusyError as exc:
                raise StoreError(f"the index {self.path} is busy (another writer); try again") from exc
            try:
                yield
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if isinstance(exc, apsw.Error):
                    exc.greploom_errno = self.conn.system_errno  # type: ignore[attr-defined]
                # SQLite rolls back by itself after a full disk or an I/O error; a second
                # ROLLBACK would then replace the real reason with "no transaction is active".
                if self.conn.in_transaction:
                    with contextlib.suppress(apsw.Error):
                        self.conn.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: every read inside sees one committed state."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    # -- metadata and the file's health ------------------------------------
    def meta(self) -> dict[str, str]:
        """All metadata as text."""
        return read_meta(self.conn)

    def set_meta(self, values: Mapping[str, Any]) -> None:
        """Write metadata values (inside a :meth:`write` transaction)."""
        write_meta(self.conn, values)

    def counts(self) -> dict[str, int]:
        """Rows per kind, vectors and pending vectors."""
        out = {
            f"kind:{kind}": n
            for kind, n in self.conn.execute("SELECT kind, count(*) FROM nodes GROUP BY kind")
        }
        out["nodes"] = int(scalar(self.conn, "SELECT count(*) FROM nodes"))
        out["vectors"] = int(scalar(self.conn, "SELECT count(*) FROM vectors")) if self.has_vectors() else 0
        out["pending"] = int(scalar(self.conn, "SELECT count(*) FROM pending"))
        return out

    def quick_check(self) -> list[str]:
        """SQLite's quick check of the file's structure: empty when sound (one pass over the file)."""
        return store_file.quick_check(self.conn)

    def integrity_problems(self) -> list[str]:
        """Every structural problem SQLite finds; since SQLite 3.44 that includes the FTS5 index's."""
        return store_file.integrity_problems(self.conn)

    # -- vectors -----------------------------------------------------------
    def has_vectors(self) -> bool:
        """Whether the vector table exists."""
        return store_vectors.has_vectors(self.conn)

    def vector_width(self) -> int:
        """The width the vector table was created with (0 when there is none)."""
        return store_vectors.vector_width(self.conn)

    def pending_vectors(self, hashes: Iterable[str], identity: str, width: int) -> dict[str, list[float]]:
        """Vectors an unfinished run of the same embedder computed, by content hash.

        ``identity`` is the embedder's full identity (``EmbedderIdentity.key``):
        vectors another embedder left behind are never handed out, and neither
        are vectors of another width than ``width`` (0: any single width).
        """
        return store_vectors.pending_vectors(self.conn, hashes, identity, width)

    def add_pending(self, vectors: Mapping[str, Sequence[float]], identity: str) -> None:
        """Commit one batch of freshly computed vectors (not yet visible to queries).

        The batch belongs to ``identity``; batches another embedder left are
        dropped in the same transaction, so ``pending`` only ever holds one
        embedder's vectors.
        """
        with self.write():
            store_vectors.add_pending(self.conn, vectors, identity)

    def fill_vectors(self, vectors: Mapping[str, Sequence[float]]) -> None:
        """Make a first run's finished vectors searchable now (searchable first).

        Every stored row whose content hash has a vector gets it, in one
        transaction; the vector table is made at the first batch's width.
        Only for an index no run has completed: a complete one changes at its
        run's switch alone.
        """
        if not vectors:
            return
        width = len(next(iter(vectors.values())))
        with self.write():
            if not store_vectors.has_vectors(self.conn):
                store_vectors.reshape(self.conn, embedded=True, width=width, rebuild=False)
            for rowid, content_hash in store_rows.rows_with_hashes(self.conn, vectors):
                store_vectors.put_vector(self.conn, rowid, vectors[content_hash])

    def vector_coverage(self) -> tuple[int, int]:
        """(rows with a vector, rows): how far a first run's embedding has come."""
        vectors = int(scalar(self.conn, "SELECT count(*) FROM vectors")) if self.has_vectors() else 0
        return vectors, int(scalar(self.conn, "SELECT count(*) FROM nodes"))

    # -- index runs --------------------------------------------------------
    def stored_entries(self) -> list[IndexEntry]:
        """The (key, hash, id, place) of every stored node."""
        return store_rows.stored_entries(self.conn)

    def switch(
        self,
        plan: ReindexPlan,
        rows: Mapping[str, NodeRow],
        vectors: Mapping[str, Sequence[float]] | None,
        dimension: int,
        meta: Mapping[str, Any],
        *,
        reset_vectors: bool = False,
        files: Mapping[str, FileStamp] | None = None,
        keep_pending: bool = False,
        partial: bool = False,
    ) -> None:
        """Apply a plan in one transaction: after it, queries see the new index, before it the old.

        ``vectors`` maps content hash to vector for every embedded key (None
        for a lexical-only index); ``rows`` holds every current key, or with
        ``partial`` those a partial run decided (every key to embed among them:
        the other rows stay as they are); ``files`` the stamps of the source
        files the run read (None: no source directory, freshness unknown).
        ``keep_pending``: a first run's early switch, before its vectors (the
        batches an earlier run finished stay).
        """
        conn = self.conn
        width, rebuild = store_vectors.switch_width(conn, rows, vectors, dimension, reset=reset_vectors)
        if partial and rebuild:
            raise StoreError("a partial index run cannot rebuild the vector table; run it with --force")
        with self.write():
            embedded = vectors is not None
            if not store_vectors.reshape(conn, embedded=embedded, width=width, rebuild=rebuild):
                vectors = None  # lexical only, or nothing embedded yet and no width known
            for key in plan.delete:
                rowid = store_rows.rowid_of(conn, key)
                if rowid is None:
                    continue
                if vectors is not None:
                    store_vectors.delete_vector(conn, rowid)
                store_rows.delete_row(conn, rowid)
            embed = set(plan.embed)
            for key, row in rows.items():
                rowid = store_rows.upsert(conn, row)
                if key in embed or rebuild:
                    store_rows.write_fts(conn, rowid, row)
                    if vectors is not None:
                        store_vectors.put_vector(conn, rowid, vectors[row.content_hash])
            if not keep_pending:
                store_vectors.clear_pending(conn)
            store_rows.write_file_stamps(conn, files or {})
            if partial:
                store_rows.replace_module_names(conn, rows.values(), plan.delete)
            else:
                store_rows.write_module_names(conn, rows.values())
            self.set_meta(meta)
        with storage_faults(self.path, "write the index"):
            # Every step frees one page: run it to the end (schema.py: auto_vacuum).
            conn.execute("PRAGMA incremental_vacuum").fetchall()

    # -- queries -----------------------------------------------------------
    def search_lexical(self, match: str, limit: int) -> list[tuple[str, float]]:
        """Keys by BM25 (best first) for an FTS5 expression built by the core."""
        return store_rows.search_lexical(self.conn, match, limit)

    def search_vector(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        """Keys by cosine distance to ``vector`` (nearest first)."""
        return store_vectors.search_vector(self.conn, vector, limit)

    def vector_of(self, key: str) -> list[float] | None:
        """The stored vector of the definition ``key`` (None: the index or the row has none)."""
        rowid = store_rows.rowid_of(self.conn, key)
        return None if rowid is None else store_vectors.vector_of(self.conn, rowid)

    def contexts(self, keys: Iterable[str]) -> dict[str, NodeContext]:
        """Stored contexts for the given keys (missing keys are absent)."""
        return store_rows.contexts(self.conn, keys)

    def describe(self, keys: Iterable[str]) -> dict[str, tuple[str, str, str, str]]:
        """(name, qualname, file, kind) for each stored key given, in key order."""
        return store_rows.describe(self.conn, keys)

    def sources(self, keys: Iterable[str]) -> dict[str, str]:
        """The stored source of each key given that has one."""
        return store_rows.sources(self.conn, keys)

    def calls_among(self, keys: Iterable[str]) -> dict[str, list[str]]:
        """The calls between these keys, either end storing the edge: caller -> sorted callees."""
        return store_calls.calls_among(self.conn, keys)

    def has_file_stamps(self) -> bool:
        """Whether the last run recorded its source files' stamps."""
        return store_rows.has_file_stamps(self.conn)

    def file_stamps(self, files: Iterable[str]) -> dict[str, FileStamp]:
        """The stamps the last run recorded of these files (none for a file it did not read)."""
        return store_rows.file_stamps(self.conn, files)

    def definitions_with_names(self, names: Iterable[str]) -> list[tuple[str, str, str, str, str]]:
        """(key, name, qualname, file, kind) of every definition bearing one of ``names`` exactly."""
        return store_rows.definitions_with_names(self.conn, names)

    def definitions_near(self, file: str, line: int, limit: int) -> list[NodeRef]:
        """The definitions of ``file`` other than its modules, nearest ``line`` first."""
        return store_rows.definitions_near(self.conn, file, line, limit)

    def definition_count(self) -> int:
        """How many definitions the index holds."""
        return int(scalar(self.conn, "SELECT count(*) FROM nodes"))

    def rows(self, keys: Iterable[str]) -> dict[str, NodeRow]:
        """The stored rows of these keys (missing keys are absent)."""
        return store_rows.node_rows(self.conn, keys)

    def module_names_of(self, files: Iterable[str]) -> dict[str, tuple[tuple[str, int], ...]]:
        """file -> the top-level names the last run stored for its module (empty when none)."""
        return store_rows.module_names_of(self.conn, files)

    def module_name_lines(self, symbols: Sequence[str]) -> list[tuple[str, int]]:
        """(module key, line) of the top-level assignments the symbols name (``core.names`` rules)."""
        return store_rows.module_name_lines(self.conn, symbols)

    def definitions_named(self, symbols: Sequence[str], limit: int) -> list[str]:
        """Keys of the definitions the symbols name, best first (``core.ranking.order_named``)."""
        return store_rows.definitions_named(self.conn, symbols, limit)

    def locate(self, locations: Sequence[Location]) -> list[tuple[Location, tuple[str, ...]]]:
        """Each place with the keys of the definitions it points at (``core.locations``).

        A path several files match equally well (``app.py``) points into
        each; a place naming no indexed file points at nothing.
        """
        return store_rows.locate(self.conn, locations)

    def definitions_at(self, locations: Sequence[Location]) -> list[str]:
        """Keys of the definitions the places point at, in the places' order, each once."""
        return list(dict.fromkeys(key for _, keys in self.locate(locations) for key in keys))

    def resolve_ids(self, ids: Iterable[str]) -> dict[str, str]:
        """Map each given stable key or CPG id to a stable key, where one matches.

        A parameter's key (``function:f.py:send(url)``) and an import's
        (``import:f.py:import time``), which answers hand out for their leaf
        blocks, map to the definition that holds them: its block shows them.
        """
        return store_rows.resolve_ids(self.conn, ids)

    def named(self, name: str) -> tuple[str, ...]:
        """Keys of the definitions a qualified name or a dotted suffix of one names (``core.names``)."""
        return names.named(name, store_rows.named_candidates(self.conn, name))
