"""Sessions kept beside the index: what each named session remembers between its queries.

``query --session NAME`` and the MCP tools' ``session`` argument name a
session; its memory (greploom.core.followup.Memory: weights of the
definitions its answers held, the keys it sent whole) is kept in
``NAME.sessions.db`` beside the index, an SQLite file of its own: queries
only read the index, and a session write must not wait on an index run.
A session unused for :data:`SESSION_TTL_S` is forgotten (expired rows are
deleted on the next write). Why a name and not the MCP connection: on the
current MCP protocol every request is its own connection (fastmcp's
``session_id`` changes per call), so a client that wants follow-ups says so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import apsw

from greploom.core.errors import UsageError
from greploom.core.followup import Memory

SESSION_TTL_S = 3600.0  # an hour without a query forgets a session
MAX_SESSION_NAME = 200
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sessions(name TEXT PRIMARY KEY, used REAL NOT NULL, memory TEXT NOT NULL)"
)


def sessions_path(db_path: Path) -> Path:
    """Where the sessions of the index at ``db_path`` are kept."""
    return db_path.with_name(db_path.stem + ".sessions.db")


def check_name(name: str) -> str:
    """A session name, or a usage error for an empty or overlong one."""
    if not name.strip() or len(name) > MAX_SESSION_NAME or any(ord(c) < 32 for c in name):
        raise UsageError(
            f"a session name is 1-{MAX_SESSION_NAME} printable characters (any name: the same one "
            "across related queries)"
        )
    return name


def load(db_path: Path, name: str, now: float | None = None) -> Memory:
    """The memory of a session (empty when new, expired, or the file unreadable)."""
    path = sessions_path(db_path)
    if not path.is_file():
        return Memory()
    now = time.time() if now is None else now
    try:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            rows = conn.execute("SELECT used, memory FROM sessions WHERE name = ?", (name,)).fetchall()
        finally:
            conn.close()
    except apsw.Error:
        return Memory()  # a damaged file is a forgotten session, never a failed query
    used = rows[0][0] if rows else None
    if not isinstance(used, (int, float)) or now - used > SESSION_TTL_S:
        return Memory()
    return _memory(str(rows[0][1]))


def save(db_path: Path, name: str, memory: Memory, now: float | None = None) -> None:
    """Store a session's memory (and forget the expired ones); a file that cannot be written
    loses the session, not the answer."""
    now = time.time() if now is None else now
    try:
        conn = apsw.Connection(str(sessions_path(db_path)))
        try:
            conn.set_busy_timeout(2000)
            conn.execute(_SCHEMA)
            with conn:
                conn.execute("DELETE FROM sessions WHERE used < ?", (now - SESSION_TTL_S,))
                conn.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?)", (name, now, _json(memory)))
        finally:
            conn.close()
    except apsw.Error:
        return


def _json(memory: Memory) -> str:
    return json.dumps(
        {"weights": [list(p) for p in memory.weights], "shown": sorted(memory.shown), "turns": memory.turns}
    )


def _memory(text: str) -> Memory:
    try:
        raw = json.loads(text)
        weights = tuple((str(k), float(w)) for k, w in raw.get("weights", ()))
        return Memory(weights, frozenset(str(k) for k in raw.get("shown", ())), int(raw.get("turns", 0)))
    except (ValueError, TypeError, AttributeError):
        return Memory()
