"""The index file as an SQLite database: opening it, knowing it for an index, SQLite's checks.

Every connection gets WAL, a busy timeout and sqlite-vec; a read-only one
falls back to ``immutable=1`` where no shared-memory file can be made. A file
is a greploom index when its ``application_id`` says so and its schema is not
newer than this greploom's; :func:`quick_check` and :func:`integrity_problems`
report what SQLite's own structural checks find.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw

from greploom.core.errors import StoreError
from greploom.shell.faults import damaged_index, storage_faults
from greploom.shell.schema import APPLICATION_ID, SCHEMA_VERSION
from greploom.shell.store_sql import scalar

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
            if create and scalar(conn, "PRAGMA page_count") == 0:
                # A new file: only now, before WAL and the first table, can this be set.
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except apsw.NotADBError as exc:
            conn.close()
            raise not_an_index(path) from exc
        except apsw.BusyError as exc:
            conn.close()
            raise StoreError(f"the index {path} is busy; try again in a moment") from exc
        except apsw.Error as exc:
            exc.greploom_errno = conn.system_errno  # type: ignore[attr-defined]
            conn.close()
            raise
        return conn


@functools.cache
def vec_extension() -> str:
    """The path of sqlite-vec's loadable extension, as ``sqlite_vec.loadable_path()`` gives it.

    Found without importing the package, whose ``__init__`` imports numpy
    (0.1 s) for a helper greploom does not use.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:  # not a plain package folder: ask the package itself
        import sqlite_vec

        return str(sqlite_vec.loadable_path())
    return os.path.normpath(os.path.join(folders[0], "vec0"))


def _configure(conn: apsw.Connection) -> None:
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.enable_load_extension(True)
    conn.load_extension(vec_extension())
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
            raise not_an_index(path) from exc
        except (apsw.CantOpenError, apsw.ReadOnlyError):
            conn.close()
            if query == "?immutable=1":
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def not_an_index(path: Path) -> StoreError:
    """A file that is no SQLite database at all, or one whose header is damaged."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError:
        head = b""
    if head == SQLITE_MAGIC:
        return damaged_index(path, "its header is unreadable")
    return StoreError(f"{path} is not a greploom index (not an SQLite database)")


def check_schema(conn: apsw.Connection, path: Path, *, allow_empty: bool) -> bool:
    """Validate the file; True when it is an empty database needing a schema."""
    try:
        app_id = scalar(conn, "PRAGMA application_id")
        version = scalar(conn, "PRAGMA user_version")
        tables = scalar(conn, "SELECT count(*) FROM sqlite_master")
    except apsw.NotADBError as exc:
        raise not_an_index(path) from exc
    if app_id == 0 and version == 0 and tables == 0:
        if allow_empty:
            return True
        raise StoreError(f"{path} is an empty database, not a greploom index; run `greploom index` first")
    if app_id != APPLICATION_ID:
        raise StoreError(f"{path} is an SQLite database but not a greploom index")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has index schema {version}, newer than this greploom's "
            f"{SCHEMA_VERSION}; upgrade greploom"
        )
    return False


def quick_check(conn: apsw.Connection) -> list[str]:
    """SQLite's quick check of the file's structure: empty when sound (one pass over the file)."""
    return _problems(conn.execute("PRAGMA quick_check"))


def integrity_problems(conn: apsw.Connection) -> list[str]:
    """Every structural problem SQLite finds; since SQLite 3.44 that includes the FTS5 index's."""
    return _problems(conn.execute("PRAGMA integrity_check"))


def _problems(rows: Iterable[tuple[Any, ...]]) -> list[str]:
    """The lines of an SQLite check, without its "ok" and its "*** in database main ***" banners."""
    lines = (line.strip() for (message,) in rows for line in str(message).splitlines())
    return [line for line in lines if line and line != "ok" and not line.startswith("***")]
