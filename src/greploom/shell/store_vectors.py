"""The vector table and the pending vectors of an unfinished index run.

``vectors`` is a vec0 table (cosine distance) whose rows share the ``nodes``
rowid; its width is the embedder's and is read back from the table's own
definition. ``pending`` holds vectors an index run computed but has not
switched in yet, by content hash, and only ever one embedder's
(``PENDING_IDENTITY`` in ``meta`` says whose): another embedder's, or
another width's, are never handed out. Writers call these inside
:meth:`greploom.shell.store.IndexStore.write`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Mapping, Sequence

import apsw

from greploom.core.errors import EmbedderError
from greploom.shell.schema import VECTOR_CHUNK, NodeRow
from greploom.shell.store_sql import in_chunks, read_meta, scalar, write_meta

PENDING_IDENTITY = "pending_embedder"  # meta key: whose vectors wait in `pending`


def float32_blob(vector: Sequence[float]) -> bytes:
    """A vector as sqlite-vec's raw float32 bytes: ``sqlite_vec.serialize_float32``'s very bytes.

    Written here because importing ``sqlite_vec`` imports numpy (0.1 s), which
    a lexical or node query never needs.
    """
    return struct.pack(f"{len(vector)}f", *vector)


def has_vectors(conn: apsw.Connection) -> bool:
    """Whether the vector table exists."""
    return bool(scalar(conn, "SELECT count(*) FROM sqlite_master WHERE name = 'vectors'"))


def vector_width(conn: apsw.Connection) -> int:
    """The width the vector table was created with (0 when there is none)."""
    sql = scalar(conn, "SELECT sql FROM sqlite_master WHERE name = 'vectors'")
    if not isinstance(sql, str):
        return 0
    found = re.search(r"float\[(\d+)\]", sql)
    return int(found.group(1)) if found else 0


def search_vector(conn: apsw.Connection, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
    """Keys by cosine distance to ``vector`` (nearest first)."""
    width = vector_width(conn)
    if not width:
        return []
    if len(vector) != width:
        raise EmbedderError(
            f"the embedder answered a {len(vector)}-dim query vector, the index holds {width}-dim ones"
        )
    return [
        (key, distance)
        for key, distance in conn.execute(
            "SELECT n.key, v.distance FROM (SELECT rowid, distance FROM vectors "
            "WHERE embedding MATCH ? AND k = ?) v JOIN nodes n ON n.id = v.rowid "
            "ORDER BY v.distance, n.key",
            (float32_blob(list(vector)), limit),
        )
    ]


def vector_of(conn: apsw.Connection, rowid: int) -> list[float] | None:
    """The stored vector of a row (None: no vector table, or no vector for that row)."""
    if not has_vectors(conn):
        return None
    blob = scalar(conn, "SELECT embedding FROM vectors WHERE rowid = ?", (rowid,))
    return _floats(blob) if isinstance(blob, bytes) else None


def pending_vectors(
    conn: apsw.Connection, hashes: Iterable[str], identity: str, width: int
) -> dict[str, list[float]]:
    """Vectors an unfinished run of the same embedder computed, by content hash (0: any width)."""
    if read_meta(conn).get(PENDING_IDENTITY) != identity:
        return {}
    out: dict[str, list[float]] = {}
    wanted = list(dict.fromkeys(hashes))
    for chunk, marks in in_chunks(wanted):
        for h, blob in conn.execute(
            f"SELECT content_hash, vector FROM pending WHERE content_hash IN ({marks})", chunk
        ):
            vector = _floats(blob)
            if width and len(vector) != width:
                return {}  # not this embedder's after all: embed everything again
            width = len(vector)
            out[h] = vector
    return out


def add_pending(conn: apsw.Connection, vectors: Mapping[str, Sequence[float]], identity: str) -> None:
    """Store one batch of ``identity``'s vectors, dropping any other embedder's first."""
    if read_meta(conn).get(PENDING_IDENTITY) != identity:
        conn.execute("DELETE FROM pending")
        write_meta(conn, {PENDING_IDENTITY: identity})
    conn.executemany(
        "INSERT OR REPLACE INTO pending(content_hash, vector) VALUES (?, ?)",
        [(h, float32_blob(list(v))) for h, v in vectors.items()],
    )


def clear_pending(conn: apsw.Connection) -> None:
    """Forget the pending vectors and whose they were (a run has switched them in)."""
    conn.execute("DELETE FROM pending")
    conn.execute("DELETE FROM meta WHERE key = ?", (PENDING_IDENTITY,))


def switch_width(
    conn: apsw.Connection,
    rows: Mapping[str, NodeRow],
    vectors: Mapping[str, Sequence[float]] | None,
    dimension: int,
    *,
    reset: bool,
) -> tuple[int, bool]:
    """The width a switch stores vectors at, and whether it rebuilds the vector table.

    Raises before anything is written when a vector has another width, or when
    the table must be rebuilt and some row's vector is missing.
    """
    width = int(dimension)
    if vectors is not None and width == 0 and not vectors:
        width = vector_width(conn)  # nothing embedded and no width known: keep the table's
    if vectors is not None:
        wrong = sum(len(v) != width for v in vectors.values())
        if wrong:
            raise EmbedderError(
                f"refusing to store {wrong} vectors of another width than the index's {width}; "
                "the previous index is unchanged"
            )
    rebuild = reset or (vectors is not None and vector_width(conn) not in (0, width))
    if rebuild and vectors is not None:
        missing = sum(row.content_hash not in vectors for row in rows.values())
        if missing:
            raise EmbedderError(
                f"the vector table must be rebuilt but {missing} vectors are missing; "
                "pass --force to re-embed everything"
            )
    return width, rebuild


def reshape(conn: apsw.Connection, *, embedded: bool, width: int, rebuild: bool) -> bool:
    """Drop and create the vector table as a switch needs; whether one exists after.

    ``embedded``: the switch stores vectors (False for a lexical-only index).
    """
    if has_vectors(conn) and (rebuild or not embedded):
        conn.execute("DROP TABLE IF EXISTS vectors")
    if embedded and width > 0 and not has_vectors(conn):
        conn.execute(
            f"CREATE VIRTUAL TABLE vectors USING vec0(embedding float[{width}] distance_metric=cosine, "
            f"chunk_size={VECTOR_CHUNK})"
        )
    return has_vectors(conn)


def put_vector(conn: apsw.Connection, rowid: int, vector: Sequence[float]) -> None:
    """Store a row's vector, replacing any it had."""
    conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
    conn.execute(
        "INSERT INTO vectors(rowid, embedding) VALUES (?, ?)",
        (rowid, float32_blob(list(vector))),
    )


def delete_vector(conn: apsw.Connection, rowid: int) -> None:
    """Drop a row's vector."""
    conn.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))


def _floats(blob: bytes) -> list[float]:
    return list(struct.unpack(f"{len(blob) // 4}f", blob))
