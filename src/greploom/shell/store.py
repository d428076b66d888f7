"""The index file: one SQLite database (APSW + sqlite-vec + FTS5) per indexed code base.

The schema and the reasons behind it are in :mod:`greploom.shell.schema`.
Every connection gets WAL, a busy timeout and sqlite-vec; every statement
uses bindings. Writers take ``BEGIN IMMEDIATE``; readers see the last commit.
"""

from __future__ import annotations

import contextlib
import json
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from greploom.core.errors import StoreError
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.locations import Location, Span, innermost, match_files
from greploom.core.plan import IndexEntry, ReindexPlan
from greploom.core.ranking import order_named
from greploom.shell.schema import (
    APPLICATION_ID,
    FILE_INDEX,
    FTS_WEIGHTS,
    NAME_INDEX,
    SCHEMA,
    SCHEMA_VERSION,
    NodeRow,
)
from greploom.shell.serde import structure_from_json, structure_to_json

BUSY_TIMEOUT_MS = 10_000  # a writer's commit takes well under this; readers wait, never fail


def connect(path: Path, *, create: bool) -> apsw.Connection:
    """A configured connection: WAL, busy timeout, sqlite-vec loaded."""
    flags = apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
    try:
        conn = apsw.Connection(str(path), flags=flags)
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except apsw.NotADBError as exc:
        raise StoreError(f"{path} is not a greploom index (not an SQLite database)") from exc
    except apsw.CantOpenError as exc:
        raise StoreError(f"cannot open the index {path}: check the path and permissions") from exc
    except apsw.BusyError as exc:
        raise StoreError(f"the index {path} is busy; try again in a moment") from exc
    return conn


class IndexStore:
    """One index file. Open with :meth:`open_existing` (queries) or :meth:`open_or_create`."""

    def __init__(self, path: Path, conn: apsw.Connection) -> None:
        self.path = path
        self.conn = conn

    # -- opening -----------------------------------------------------------
    @classmethod
    def open_existing(cls, path: Path) -> IndexStore:
        """Open an index that must exist; never creates a file."""
        if not path.exists():
            raise StoreError(f"no index at {path}; run `greploom index PATH --db {path}` first")
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not an index file")
        store = cls(path, connect(path, create=False))
        store._check_schema(allow_empty=False)
        return store

    @classmethod
    def open_or_create(cls, path: Path) -> IndexStore:
        """Open an index, creating the file and schema when absent."""
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not an index file")
        path.parent.mkdir(parents=True, exist_ok=True)
        store = cls(path, connect(path, create=True))
        if store._check_schema(allow_empty=True):
            with store.write():
                store.conn.execute(SCHEMA)
        else:
            store.add_missing_indexes()
        return store

    def add_missing_indexes(self) -> None:
        """Add the indexes a file from an older greploom lacks (writers only; idempotent)."""
        with self.write():
            self.conn.execute(NAME_INDEX)
            self.conn.execute(FILE_INDEX)

    def _check_schema(self, *, allow_empty: bool) -> bool:
        """Validate the file; True when it is an empty database needing a schema."""
        try:
            app_id = self._scalar("PRAGMA application_id")
            version = self._scalar("PRAGMA user_version")
            tables = self._scalar("SELECT count(*) FROM sqlite_master")
        except apsw.NotADBError as exc:
            raise StoreError(f"{self.path} is not a greploom index (not an SQLite database)") from exc
        if app_id == 0 and version == 0 and tables == 0:
            if allow_empty:
                return True
            raise StoreError(
                f"{self.path} is an empty database, not a greploom index; run `greploom index` first"
            )
        if app_id != APPLICATION_ID:
            raise StoreError(f"{self.path} is an SQLite database but not a greploom index")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has index schema {version}, newer than this greploom's "
                f"{SCHEMA_VERSION}; upgrade greploom"
            )
        return False

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> IndexStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -----------------------------------------------------------
    def _scalar(self, sql: str, bindings: Sequence[Any] = ()) -> Any:
        row = self.conn.execute(sql, bindings).fetchone()
        return row[0] if row else None

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except apsw.BusyError as exc:
            raise StoreError(f"the index {self.path} is busy (another writer); try again") from exc
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: every read inside sees one committed state."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    # -- metadata ----------------------------------------------------------
    def meta(self) -> dict[str, str]:
        """All metadata as text."""
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def set_meta(self, values: Mapping[str, Any]) -> None:
        """Write metadata values (inside a :meth:`write` transaction)."""
        for key, value in values.items():
            text = value if isinstance(value, str) else json.dumps(value)
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, text),
            )

    def has_vectors(self) -> bool:
        """Whether the vector table exists."""
        return bool(self._scalar("SELECT count(*) FROM sqlite_master WHERE name = 'vectors'"))

    def counts(self) -> dict[str, int]:
        """Rows per kind, vectors and pending vectors."""
        out = {
            f"kind:{kind}": n
            for kind, n in self.conn.execute("SELECT kind, count(*) FROM nodes GROUP BY kind")
        }
        out["nodes"] = int(self._scalar("SELECT count(*) FROM nodes"))
        out["vectors"] = int(self._scalar("SELECT count(*) FROM vectors")) if self.has_vectors() else 0
        out["pending"] = int(self._scalar("SELECT count(*) FROM pending"))
        return out

    # -- index runs --------------------------------------------------------
    def stored_entries(self) -> list[IndexEntry]:
        """The (key, hash, id, place) of every stored node."""
        return [
            IndexEntry(key, h, node_id, file, line, end_line)
            for key, h, node_id, file, line, end_line in self.conn.execute(
                "SELECT key, content_hash, node_id, file, line, end_line FROM nodes"
            )
        ]

    def pending_vectors(self, hashes: Iterable[str]) -> dict[str, list[float]]:
        """Vectors a previous, unfinished run already computed, by content hash."""
        out: dict[str, list[float]] = {}
        wanted = list(dict.fromkeys(hashes))
        for chunk, marks in _in_chunks(wanted):
            for h, blob in self.conn.execute(
                f"SELECT content_hash, vector FROM pending WHERE content_hash IN ({marks})", chunk
            ):
                out[h] = _floats(blob)
        return out

    def add_pending(self, vectors: Mapping[str, Sequence[float]]) -> None:
        """Commit one batch of freshly computed vectors (not yet visible to queries)."""
        with self.write():
            self.conn.executemany(
                "INSERT OR REPLACE INTO pending(content_hash, vector) VALUES (?, ?)",
                [(h, sqlite_vec.serialize_float32(list(v))) for h, v in vectors.items()],
            )

    def switch(
        self,
        plan: ReindexPlan,
        rows: Mapping[str, NodeRow],
        vectors: Mapping[str, Sequence[float]] | None,
        dimension: int,
        meta: Mapping[str, Any],
        *,
        reset_vectors: bool = False,
    ) -> None:
        """Apply a plan in one transaction: after it, queries see the new index, before it the old.

        ``vectors`` maps content hash to vector for every embedded key (None
        for a lexical-only index); ``rows`` holds every current key.
        """
        with self.write():
            conn = self.conn
            if reset_vectors or (vectors is None and self.has_vectors()):
                conn.execute("DROP TABLE IF EXISTS vectors")
            if vectors is not None and not self.has_vectors():
                width = int(dimension)
                conn.execute(
                    "CREATE VIRTUAL TABLE vectors USING "
                    f"vec0(embedding float[{width}] distance_metric=cosine)"
                )
            for key in plan.delete:
                rowid = self._scalar("SELECT id FROM nodes WHERE key = ?", (key,))
                if rowid is None:
                    continue
                conn.execute("DELETE FROM nodes_fts WHERE rowid = ?", (rowid,))
                if vectors is not None:
                    conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
                conn.execute("DELETE FROM nodes WHERE id = ?", (rowid,))
            embed = set(plan.embed)
            for key, row in rows.items():
                rowid = self._upsert(row)
                if key in embed or reset_vectors:
                    conn.execute("DELETE FROM nodes_fts WHERE rowid = ?", (rowid,))
                    conn.execute(
                        "INSERT INTO nodes_fts(rowid, name, qualname, path, summary, body) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (rowid, *row.fts),
                    )
                    if vectors is not None:
                        conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
                        conn.execute(
                            "INSERT INTO vectors(rowid, embedding) VALUES (?, ?)",
                            (rowid, sqlite_vec.serialize_float32(list(vectors[row.content_hash]))),
                        )
            conn.execute("DELETE FROM pending")
            self.set_meta(meta)

    def _upsert(self, row: NodeRow) -> int:
        values = (
            row.key, row.node_id, row.kind, row.name, row.qualname, row.file, row.line,
            row.end_line, row.summary, row.content_hash, row.source, structure_to_json(row.structure),
        )  # fmt: skip
        got = self.conn.execute(
            "INSERT INTO nodes(key, node_id, kind, name, qualname, file, line, end_line, summary, "
            "content_hash, source, structure) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET node_id = excluded.node_id, kind = excluded.kind, "
            "name = excluded.name, qualname = excluded.qualname, file = excluded.file, "
            "line = excluded.line, end_line = excluded.end_line, summary = excluded.summary, "
            "content_hash = excluded.content_hash, source = excluded.source, "
            "structure = excluded.structure RETURNING id",
            values,
        ).fetchone()
        assert got is not None  # RETURNING always yields the row
        return int(got[0])

    # -- queries -----------------------------------------------------------
    def search_lexical(self, match: str, limit: int) -> list[tuple[str, float]]:
        """Keys by BM25 (best first) for an FTS5 expression built by the core."""
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        return [
            (key, -score)
            for key, score in self.conn.execute(
                f"SELECT n.key, bm25(nodes_fts, {weights}) AS s FROM nodes_fts "
                "JOIN nodes n ON n.id = nodes_fts.rowid WHERE nodes_fts MATCH ? "
                "ORDER BY s, n.key LIMIT ?",
                (match, limit),
            )
        ]

    def search_vector(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        """Keys by cosine distance to ``vector`` (nearest first)."""
        if not self.has_vectors():
            return []
        return [
            (key, distance)
            for key, distance in self.conn.execute(
                "SELECT n.key, v.distance FROM (SELECT rowid, distance FROM vectors "
                "WHERE embedding MATCH ? AND k = ?) v JOIN nodes n ON n.id = v.rowid "
                "ORDER BY v.distance, n.key",
                (sqlite_vec.serialize_float32(list(vector)), limit),
            )
        ]

    def contexts(self, keys: Iterable[str]) -> dict[str, NodeContext]:
        """Stored contexts for the given keys (missing keys are absent)."""
        wanted = list(dict.fromkeys(keys))
        out: dict[str, NodeContext] = {}
        for chunk, marks in _in_chunks(wanted):
            for row in self.conn.execute(
                "SELECT key, node_id, kind, name, qualname, file, line, end_line, summary, source, "
                f"structure FROM nodes WHERE key IN ({marks})",
                chunk,
            ):
                (
                    key,
                    node_id,
                    kind,
                    name,
                    qualname,
                    file,
                    line,
                    end_line,
                    summary,
                    source,
                    structure,
                ) = row
                out[key] = NodeContext(
                    ref=NodeRef(key, name, kind, file, line, qualname),
                    qualname=qualname,
                    summary=summary,
                    source=source,
                    end_line=end_line,
                    node_id=node_id,
                    structure=structure_from_json(structure),
                )
        return out

    def describe(self, keys: Iterable[str]) -> dict[str, tuple[str, str, str]]:
        """(name, qualname, file) for each stored key given, in key order."""
        wanted = sorted(set(keys))
        out: dict[str, tuple[str, str, str]] = {}
        for chunk, marks in _in_chunks(wanted):
            for key, name, qualname, file in self.conn.execute(
                f"SELECT key, name, qualname, file FROM nodes WHERE key IN ({marks}) ORDER BY key", chunk
            ):
                out[key] = (name, qualname, file)
        return out

    def definitions_named(self, symbols: Sequence[str], limit: int) -> list[str]:
        """Keys of the definitions the symbols name, best first (``core.ranking.order_named``).

        Rows are fetched by the last part of each symbol through the name
        index; a package's qualified name is its folder's, while its name is
        ``__init__``, so those rows come too. The core decides which match.
        """
        if not symbols or limit <= 0:
            return []
        names = sorted({s.rsplit(".", 1)[-1] for s in symbols} | {"__init__"})
        marks = ",".join("?" * len(names))
        rows = self.conn.execute(
            f"SELECT key, name, qualname FROM nodes WHERE name COLLATE NOCASE IN ({marks})", names
        )
        return list(order_named(symbols, rows)[:limit])

    def locate(self, locations: Sequence[Location]) -> list[tuple[Location, tuple[str, ...]]]:
        """Each place with the keys of the definitions it points at (``core.locations``).

        A path several files match equally well (``app.py``) points into
        each; a place naming no indexed file points at nothing.
        """
        if not locations:
            return []
        files = [file for (file,) in self.conn.execute("SELECT DISTINCT file FROM nodes")]
        out: list[tuple[Location, tuple[str, ...]]] = []
        for location in locations:
            keys: list[str] = []
            for file in match_files(location.path, files):
                spans = [
                    Span(key, kind, line, end)
                    for key, kind, line, end in self.conn.execute(
                        "SELECT key, kind, line, end_line FROM nodes WHERE file = ?", (file,)
                    )
                ]
                found = innermost(spans, location.line)
                if found is not None:
                    keys.append(found.key)
            out.append((location, tuple(keys)))
        return out

    def definitions_at(self, locations: Sequence[Location]) -> list[str]:
        """Keys of the definitions the places point at, in the places' order, each once."""
        return list(dict.fromkeys(key for _, keys in self.locate(locations) for key in keys))

    def resolve_ids(self, ids: Iterable[str]) -> dict[str, str]:
        """Map each given stable key or CPG id to a stable key, where one matches."""
        out: dict[str, str] = {}
        for ident in ids:
            key = self._scalar("SELECT key FROM nodes WHERE key = ?", (ident,))
            if key is None:
                key = self._scalar("SELECT key FROM nodes WHERE node_id = ?", (ident,))
            if key is not None:
                out[ident] = key
        return out


def _floats(blob: bytes) -> list[float]:
    return list(struct.unpack(f"{len(blob) // 4}f", blob))


IN_CHUNK = 500  # keys per `IN (...)` list: far below SQLite's bound-parameter limit


def _in_chunks(keys: Sequence[str]) -> Iterator[tuple[Sequence[str], str]]:
    """Slices of ``keys`` with the matching ``?, ?, ...`` placeholder list."""
    for start in range(0, len(keys), IN_CHUNK):
        chunk = keys[start : start + IN_CHUNK]
        yield chunk, ",".join("?" * len(chunk))
