"""Statements every part of the index store shares: one value, chunked ``IN`` lists, ``meta``.

All of them take the connection and use bindings; none opens a transaction
(writers call them inside :meth:`greploom.shell.store.IndexStore.write`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import apsw

IN_CHUNK = 500  # keys per `IN (...)` list: far below SQLite's bound-parameter limit


def scalar(conn: apsw.Connection, sql: str, bindings: Sequence[Any] = ()) -> Any:
    """The first column of the first row a statement yields, or None when it yields none."""
    row = conn.execute(sql, bindings).fetchone()
    return row[0] if row else None


def in_chunks(keys: Sequence[str]) -> Iterator[tuple[Sequence[str], str]]:
    """Slices of ``keys`` with the matching ``?, ?, ...`` placeholder list."""
    for start in range(0, len(keys), IN_CHUNK):
        chunk = keys[start : start + IN_CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def read_meta(conn: apsw.Connection) -> dict[str, str]:
    """All metadata as text."""
    return dict(conn.execute("SELECT key, value FROM meta"))


def write_meta(conn: apsw.Connection, values: Mapping[str, Any]) -> None:
    """Write metadata values: text as it is, anything else as JSON."""
    for key, value in values.items():
        text = value if isinstance(value, str) else json.dumps(value)
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, text),
        )
