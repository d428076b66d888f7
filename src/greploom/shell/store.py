"""The index file: one SQLite database (APSW + sqlite-vec + FTS5) per indexed code base.

The schema and the reasons behind it are in :mod:`greploom.shell.schema`.
Every connection gets WAL, a busy timeout and sqlite-vec; every statement
uses bindings. Writers take ``BEGIN IMMEDIATE``; readers see the last commit.
"""

from __future__ import annotations

import contextlib
import json
import re
import struct
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from greploom.core.errors import EmbedderError, StoreError
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.locations import Location, Span, innermost, match_files
from greploom.core.plan import IndexEntry, ReindexPlan
from greploom.core.ranking import order_named
from greploom.shell.faults import damaged_index, storage_faults
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

PENDING_IDENTITY = "pending_embedder"  # meta key: whose vectors wait in `pending`
BUSY_TIMEOUT_MS = 10_000  # a writer's commit takes well under this; readers wait, never fail


SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def connect(path: Path, *, create: bool, readonly: bool = False) -> apsw.Connection:
    """A configured connection: WAL, busy timeout, sqlite-vec loaded.

    ``readonly`` opens without any write (queries, status, check): on a
    read-only mount or in a folder this user cannot write, SQLite cannot
    create the WAL's shared-memory file, so the file is then opened as
    immutable, which is exact there because nothing can change it.
    """
    doing = "read the index" if readonly else "open the index"
    with storage_faults(path, doing):
        if readonly:
            return _connect_readonly(path)
        flags = apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if create else 0)
        conn = apsw.Connection(str(path), flags=flags)
        try:
            _configure(conn)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except apsw.NotADBError as exc:
            conn.close()
            raise _not_an_index(path) from exc
        except apsw.BusyError as exc:
            conn.close()
            raise StoreError(f"the index {path} is busy; try again in a moment") from exc
        except apsw.Error as exc:
            exc.greploom_errno = conn.system_errno  # type: ignore[attr-defined]
            conn.close()
            raise
        return conn


def _configure(conn: apsw.Connection) -> None:
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)


def _connect_readonly(path: Path) -> apsw.Connection:
    base = "file:" + urllib.parse.quote(str(path.absolute()))
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    # mode=ro first; where no -shm can be made, nothing can write this file either,
    # so immutable=1 reads it exactly.
    for query in ("?mode=ro", "?immutable=1"):
        conn = apsw.Connection(base + query, flags=flags)
        try:
            _configure(conn)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
            return conn
        except apsw.NotADBError as exc:
            conn.close()
            raise _not_an_index(path) from exc
        except (apsw.CantOpenError, apsw.ReadOnlyError):
            conn.close()
            if query == "?immutable=1":
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _not_an_index(path: Path) -> StoreError:
    """A file that is no SQLite database at all, or one whose header is damaged."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError:
        head = b""
    if head == SQLITE_MAGIC:
        return damaged_index(path, "its header is unreadable")
    return StoreError(f"{path} is not a greploom index (not an SQLite database)")


class IndexStore:
    """One index file. Open with :meth:`open_existing` (queries) or :meth:`open_or_create`."""

    def __init__(self, path: Path, conn: apsw.Connection) -> None:
        self.path = path
        self.conn = conn

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
                store._check_schema(allow_empty=False)
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
                if store._check_schema(allow_empty=True):
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
            raise _not_an_index(self.path) from exc
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

    def pending_vectors(self, hashes: Iterable[str], identity: str, width: int) -> dict[str, list[float]]:
        """Vectors an unfinished run of the same embedder computed, by content hash.

        ``identity`` is the embedder's full identity (``EmbedderIdentity.key``):
        vectors another embedder left behind are never handed out, and neither
        are vectors of another width than ``width`` (0: any single width).
        """
        if self.meta().get(PENDING_IDENTITY) != identity:
            return {}
        out: dict[str, list[float]] = {}
        wanted = list(dict.fromkeys(hashes))
        for chunk, marks in _in_chunks(wanted):
            for h, blob in self.conn.execute(
                f"SELECT content_hash, vector FROM pending WHERE content_hash IN ({marks})", chunk
            ):
                vector = _floats(blob)
                if width and len(vector) != width:
                    return {}  # not this embedder's after all: embed everything again
                width = len(vector)
                out[h] = vector
        return out

    def add_pending(self, vectors: Mapping[str, Sequence[float]], identity: str) -> None:
        """Commit one batch of freshly computed vectors (not yet visible to queries).

        The batch belongs to ``identity``; batches another embedder left are
        dropped in the same transaction, so ``pending`` only ever holds one
        embedder's vectors.
        """
        with self.write():
            if self.meta().get(PENDING_IDENTITY) != identity:
                self.conn.execute("DELETE FROM pending")
                self.set_meta({PENDING_IDENTITY: identity})
            self.conn.executemany(
                "INSERT OR REPLACE INTO pending(content_hash, vector) VALUES (?, ?)",
                [(h, sqlite_vec.serialize_float32(list(v))) for h, v in vectors.items()],
            )

    def vector_width(self) -> int:
        """The width the vector table was created with (0 when there is none)."""
        sql = self._scalar("SELECT sql FROM sqlite_master WHERE name = 'vectors'")
        if not isinstance(sql, str):
            return 0
        found = re.search(r"float\[(\d+)\]", sql)
        return int(found.group(1)) if found else 0

    def quick_check(self) -> list[str]:
        """SQLite's quick check of the file's structure: empty when sound (one pass over the file)."""
        return _problems(self.conn.execute("PRAGMA quick_check"))

    def integrity_problems(self) -> list[str]:
        """Every structural problem SQLite finds; since SQLite 3.44 that includes the FTS5 index's."""
        return _problems(self.conn.execute("PRAGMA integrity_check"))

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
        width = int(dimension)
        if vectors is not None and width == 0 and not vectors:
            width = self.vector_width()  # nothing embedded and no width known: keep the table's
        if vectors is not None:
            wrong = sum(len(v) != width for v in vectors.values())
            if wrong:
                raise EmbedderError(
                    f"refusing to store {wrong} vectors of another width than the index's {width}; "
                    "the previous index is unchanged"
                )
        rebuild = reset_vectors or (vectors is not None and self.vector_width() not in (0, width))
        if rebuild and vectors is not None:
            missing = sum(row.content_hash not in vectors for row in rows.values())
            if missing:
                raise EmbedderError(
                    f"the vector table must be rebuilt but {missing} vectors are missing; "
                    "pass --force to re-embed everything"
                )
        with self.write():
            conn = self.conn
            if self.has_vectors() and (rebuild or vectors is None):
                conn.execute("DROP TABLE IF EXISTS vectors")
            if vectors is not None and width > 0 and not self.has_vectors():
                conn.execute(
                    "CREATE VIRTUAL TABLE vectors USING "
                    f"vec0(embedding float[{width}] distance_metric=cosine)"
                )
            if not self.has_vectors():
                vectors = None  # lexical only, or nothing embedded yet and no width known
            reset_vectors = rebuild
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
            conn.execute("DELETE FROM meta WHERE key = ?", (PENDING_IDENTITY,))
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
        width = self.vector_width()
        if not width:
            return []
        if len(vector) != width:
            raise EmbedderError(
                f"the embedder answered a {len(vector)}-dim query vector, the index holds {width}-dim ones"
            )
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
        """Map each given stable key or CPG id to a stable key, where one matches.

        A parameter's key (``function:f.py:send(url)``) and an import's
        (``import:f.py:import time``), which answers hand out for their leaf
        blocks, map to the definition that holds them: its block shows them.
        """
        out: dict[str, str] = {}
        for ident in ids:
            key = self._scalar("SELECT key FROM nodes WHERE key = ?", (ident,))
            if key is None:
                key = self._scalar("SELECT key FROM nodes WHERE node_id = ?", (ident,))
            if key is None and ident.endswith(")") and "(" in ident:
                key = self._scalar("SELECT key FROM nodes WHERE key = ?", (ident[: ident.rindex("(")],))
            if key is None and ident.startswith("import:"):
                file = ident[len("import:") :].split(":", 1)[0]
                key = self._scalar(
                    "SELECT key FROM nodes WHERE file = ? AND kind = 'module' ORDER BY line, key LIMIT 1",
                    (file,),
                )
            if key is not None:
                out[ident] = key
        return out


def _problems(rows: Iterable[tuple[Any, ...]]) -> list[str]:
    """The lines of an SQLite check, without its "ok" and its "*** in database main ***" banners."""
    lines = (line.strip() for (message,) in rows for line in str(message).splitlines())
    return [line for line in lines if line and line != "ok" and not line.startswith("***")]


def _floats(blob: bytes) -> list[float]:
    return list(struct.unpack(f"{len(blob) // 4}f", blob))


IN_CHUNK = 500  # keys per `IN (...)` list: far below SQLite's bound-parameter limit


def _in_chunks(keys: Sequence[str]) -> Iterator[tuple[Sequence[str], str]]:
    """Slices of ``keys`` with the matching ``?, ?, ...`` placeholder list."""
    for start in range(0, len(keys), IN_CHUNK):
        chunk = keys[start : start + IN_CHUNK]
        yield chunk, ",".join("?" * len(chunk))
