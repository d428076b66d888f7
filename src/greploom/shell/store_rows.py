"""The ``nodes`` table and its FTS5 index: writing node rows, and the lookups queries make.

One row per indexed definition, keyed by its stable key, with an INTEGER
rowid that survives updates (the FTS5 and vector rows share it). The lookups
fetch rows and leave the deciding to the core: which named definition wins
(:func:`greploom.core.ranking.order_named`), which definition a place in a
file points at (:mod:`greploom.core.locations`). Writers call these inside
:meth:`greploom.shell.store.IndexStore.write`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import apsw

from greploom.core.expand import NodeContext, NodeRef
from greploom.core.freshness import FileStamp
from greploom.core.locations import Location, Span, innermost, match_files
from greploom.core.naming import order_named
from greploom.core.plan import IndexEntry
from greploom.shell.schema import FTS_WEIGHTS, NodeRow
from greploom.shell.serde import structure_from_json, structure_to_json
from greploom.shell.store_sql import in_chunks, scalar

# -- writing -------------------------------------------------------------------


def upsert(conn: apsw.Connection, row: NodeRow) -> int:
    """Insert or update a node row by its key; its rowid."""
    values = (
        row.key, row.node_id, row.kind, row.name, row.qualname, row.file, row.line,
        row.end_line, row.summary, row.content_hash, row.source, structure_to_json(row.structure),
    )  # fmt: skip
    got = conn.execute(
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


def write_fts(conn: apsw.Connection, rowid: int, row: NodeRow) -> None:
    """(Re)write a row's full-text entry."""
    conn.execute("DELETE FROM nodes_fts WHERE rowid = ?", (rowid,))
    conn.execute(
        "INSERT INTO nodes_fts(rowid, name, qualname, path, summary, body) VALUES (?, ?, ?, ?, ?, ?)",
        (rowid, *row.fts()),
    )


def rowid_of(conn: apsw.Connection, key: str) -> int | None:
    """The rowid of a stored key, or None."""
    rowid = scalar(conn, "SELECT id FROM nodes WHERE key = ?", (key,))
    return None if rowid is None else int(rowid)


def delete_row(conn: apsw.Connection, rowid: int) -> None:
    """Drop a node row and its full-text entry (its vector is the caller's)."""
    conn.execute("DELETE FROM nodes_fts WHERE rowid = ?", (rowid,))
    conn.execute("DELETE FROM nodes WHERE id = ?", (rowid,))


def write_file_stamps(conn: apsw.Connection, files: Mapping[str, FileStamp]) -> None:
    """Replace the recorded source-file stamps (a file from before the table: nothing to do)."""
    if not _has_files_table(conn):
        return
    conn.execute("DELETE FROM files")
    conn.executemany(
        "INSERT INTO files(path, size, mtime_ns, sha256) VALUES (?, ?, ?, ?)",
        [(path, s.size, s.mtime_ns, s.sha256) for path, s in files.items()],
    )


def write_module_names(conn: apsw.Connection, rows: Iterable[NodeRow]) -> None:
    """Replace the modules' top-level names (a file from before the table: nothing to do)."""
    if not _has_table(conn, "module_names"):
        return
    conn.execute("DELETE FROM module_names")
    conn.executemany(
        "INSERT INTO module_names(name, key, line) VALUES (?, ?, ?)",
        [(name, row.key, line) for row in rows for name, line in row.names],
    )


def replace_module_names(conn: apsw.Connection, rows: Iterable[NodeRow], gone: Iterable[str]) -> None:
    """Replace the top-level names of the given rows' modules, and drop those of ``gone`` keys
    (a partial run: the other modules keep theirs)."""
    if not _has_table(conn, "module_names"):
        return
    written = list(rows)
    drop = [(r.key,) for r in written] + [(k,) for k in gone]
    conn.executemany("DELETE FROM module_names WHERE key = ?", drop)
    conn.executemany(
        "INSERT INTO module_names(name, key, line) VALUES (?, ?, ?)",
        [(name, row.key, line) for row in written for name, line in row.names],
    )


def node_rows(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, NodeRow]:
    """The stored rows of these keys, their modules' names included (missing keys are absent)."""
    wanted = sorted(set(keys))
    out: dict[str, NodeRow] = {}
    names: dict[str, list[tuple[str, int]]] = {}
    for chunk, marks in in_chunks(wanted):
        if _has_table(conn, "module_names"):
            query = f"SELECT key, name, line FROM module_names WHERE key IN ({marks}) ORDER BY rowid"
            for key, name, line in conn.execute(query, chunk):
                names.setdefault(str(key), []).append((str(name), int(line)))
        for row in conn.execute(
            "SELECT key, node_id, kind, name, qualname, file, line, end_line, summary, content_hash, "
            f"source, structure FROM nodes WHERE key IN ({marks})",
            chunk,
        ):
            key, node_id, kind, name, qualname, file, line, end_line, summary, digest, source, structure = row
            out[key] = NodeRow(
                key=key,
                node_id=node_id,
                kind=kind,
                name=name,
                qualname=qualname,
                file=file,
                line=line,
                end_line=end_line,
                summary=summary,
                content_hash=digest,
                source=source,
                structure=structure_from_json(structure),
                names=tuple(names.get(key, ())),
            )
    return out


def module_names_of(conn: apsw.Connection, files: Iterable[str]) -> dict[str, tuple[tuple[str, int], ...]]:
    """file -> the top-level names the last run stored for its module (none: an empty tuple)."""
    wanted = sorted(set(files))
    out: dict[str, list[tuple[str, int]]] = {f: [] for f in wanted}
    if not wanted or not _has_table(conn, "module_names"):
        return {}
    for chunk, marks in in_chunks(wanted):
        query = (
            "SELECT n.file, m.name, m.line FROM module_names m JOIN nodes n ON n.key = m.key "
            f"WHERE n.kind = 'module' AND n.file IN ({marks}) ORDER BY m.rowid"
        )
        for file, name, line in conn.execute(query, chunk):
            out[str(file)].append((str(name), int(line)))
    return {f: tuple(names) for f, names in out.items()}


def _has_table(conn: apsw.Connection, name: str) -> bool:
    return bool(scalar(conn, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))


def _has_files_table(conn: apsw.Connection) -> bool:
    found = scalar(conn, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'files'")
    return bool(found)


# -- reading -------------------------------------------------------------------


def rows_with_hashes(conn: apsw.Connection, hashes: Iterable[str]) -> list[tuple[int, str]]:
    """(rowid, content hash) of every row whose content hash is one of ``hashes``."""
    wanted = sorted(set(hashes))
    out: list[tuple[int, str]] = []
    for chunk, marks in in_chunks(wanted):
        out.extend(
            (int(rowid), str(h))
            for rowid, h in conn.execute(
                f"SELECT id, content_hash FROM nodes WHERE content_hash IN ({marks})", chunk
            )
        )
    return out


def has_file_stamps(conn: apsw.Connection) -> bool:
    """Whether any source-file stamps are recorded."""
    return _has_files_table(conn) and scalar(conn, "SELECT count(*) FROM files LIMIT 1") != 0


def file_stamps(conn: apsw.Connection, files: Iterable[str]) -> dict[str, FileStamp]:
    """The recorded stamps of these files, where there are any."""
    wanted = sorted(set(files))
    if not wanted or not _has_files_table(conn):
        return {}
    out: dict[str, FileStamp] = {}
    for chunk, marks in in_chunks(wanted):
        for path, size, mtime, digest in conn.execute(
            f"SELECT path, size, mtime_ns, sha256 FROM files WHERE path IN ({marks})", chunk
        ):
            out[path] = FileStamp(int(size), int(mtime), str(digest))
    return out


def stored_entries(conn: apsw.Connection) -> list[IndexEntry]:
    """The (key, hash, id, place) of every stored node."""
    return [
        IndexEntry(key, h, node_id, file, line, end_line)
        for key, h, node_id, file, line, end_line in conn.execute(
            "SELECT key, content_hash, node_id, file, line, end_line FROM nodes"
        )
    ]


def search_lexical(conn: apsw.Connection, match: str, limit: int) -> list[tuple[str, float]]:
    """Keys by BM25 (best first) for an FTS5 expression built by the core."""
    weights = ", ".join(str(w) for w in FTS_WEIGHTS)
    return [
        (key, -score)
        for key, score in conn.execute(
            f"SELECT n.key, bm25(nodes_fts, {weights}) AS s FROM nodes_fts "
            "JOIN nodes n ON n.id = nodes_fts.rowid WHERE nodes_fts MATCH ? "
            "ORDER BY s, n.key LIMIT ?",
            (match, limit),
        )
    ]


def contexts(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, NodeContext]:
    """Stored contexts for the given keys (missing keys are absent)."""
    wanted = list(dict.fromkeys(keys))
    out: dict[str, NodeContext] = {}
    for chunk, marks in in_chunks(wanted):
        for row in conn.execute(
            "SELECT key, node_id, kind, name, qualname, file, line, end_line, summary, source, "
            f"structure FROM nodes WHERE key IN ({marks})",
            chunk,
        ):
            key, node_id, kind, name, qualname, file, line, end_line, summary, source, structure = row
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


def describe(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, tuple[str, str, str, str]]:
    """(name, qualname, file, kind) for each stored key given, in key order."""
    wanted = sorted(set(keys))
    out: dict[str, tuple[str, str, str, str]] = {}
    for chunk, marks in in_chunks(wanted):
        for key, name, qualname, file, kind in conn.execute(
            f"SELECT key, name, qualname, file, kind FROM nodes WHERE key IN ({marks}) ORDER BY key", chunk
        ):
            out[key] = (name, qualname, file, kind)
    return out


def sources(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, str]:
    """The stored source of each key given that has one."""
    out: dict[str, str] = {}
    for chunk, marks in in_chunks(sorted(set(keys))):
        for key, source in conn.execute(
            f"SELECT key, source FROM nodes WHERE key IN ({marks}) AND source IS NOT NULL", chunk
        ):
            out[str(key)] = str(source)
    return out


def definitions_near(conn: apsw.Connection, file: str, line: int, limit: int) -> list[NodeRef]:
    """The definitions of ``file`` (its modules left out), nearest ``line`` first, then by key."""
    return [
        NodeRef(key, name, kind, file, at, qualname)
        for key, name, qualname, kind, at in conn.execute(
            "SELECT key, name, qualname, kind, line FROM nodes WHERE file = ? AND kind != 'module' "
            "ORDER BY abs(line - ?), key LIMIT ?",
            (file, line, limit),
        )
    ]


def definitions_with_names(
    conn: apsw.Connection, names: Iterable[str]
) -> list[tuple[str, str, str, str, str]]:
    """(key, name, qualname, file, kind) of every definition whose name is one of ``names`` (exact)."""
    wanted = set(names)
    rows: list[tuple[str, str, str, str, str]] = []
    for chunk, marks in in_chunks(sorted(wanted)):
        # Through the name index (case-folded), then exact.
        query = f"SELECT key, name, qualname, file, kind FROM nodes WHERE name COLLATE NOCASE IN ({marks})"
        rows.extend(row for row in conn.execute(query, chunk) if row[1] in wanted)
    return rows


def definitions_named(conn: apsw.Connection, symbols: Sequence[str], limit: int) -> list[str]:
    """Keys of the definitions the symbols name, best first (``core.ranking.order_named``).

    Rows are fetched by the last part of each symbol through the name
    index; a package's qualified name is its folder's, while its name is
    ``__init__``, so those rows come too. The core decides which match.
    """
    if not symbols or limit <= 0:
        return []
    names = sorted({s.rsplit(".", 1)[-1] for s in symbols} | {"__init__"})
    marks = ",".join("?" * len(names))
    rows = list(
        conn.execute(f"SELECT key, name, qualname FROM nodes WHERE name COLLATE NOCASE IN ({marks})", names)
    )
    # A module's top-level names (``g = LocalProxy(...)``) name the module, as qualname.name.
    rows += [(key, name, qualname) for key, name, qualname, _line in _module_names(conn, names)]
    return list(dict.fromkeys(order_named(symbols, rows)))[:limit]


def module_name_lines(conn: apsw.Connection, symbols: Sequence[str]) -> list[tuple[str, int]]:
    """(module key, line) of the top-level assignments the symbols name."""
    if not symbols:
        return []
    names = sorted({s.rsplit(".", 1)[-1] for s in symbols})
    found = _module_names(conn, names)
    chosen = set(order_named(symbols, [(key, name, qualname) for key, name, qualname, _ in found]))
    return [(key, line) for key, _name, _qualname, line in found if key in chosen]


def _module_names(conn: apsw.Connection, names: Sequence[str]) -> list[tuple[str, str, str, int]]:
    """(module key, name, module qualname + name, line) of the top-level names among ``names``."""
    if not names or not _has_table(conn, "module_names"):
        return []
    marks = ",".join("?" * len(names))
    query = (
        "SELECT m.key, m.name, n.qualname || '.' || m.name, m.line FROM module_names m "
        f"JOIN nodes n ON n.key = m.key WHERE m.name COLLATE NOCASE IN ({marks})"
    )
    return [(str(k), str(n), str(q), int(line)) for k, n, q, line in conn.execute(query, list(names))]


def locate(conn: apsw.Connection, locations: Sequence[Location]) -> list[tuple[Location, tuple[str, ...]]]:
    """Each place with the keys of the definitions it points at (``core.locations``).

    A path several files match equally well (``app.py``) points into
    each; a place naming no indexed file points at nothing.
    """
    if not locations:
        return []
    files = [file for (file,) in conn.execute("SELECT DISTINCT file FROM nodes")]
    out: list[tuple[Location, tuple[str, ...]]] = []
    for location in locations:
        keys: list[str] = []
        for file in match_files(location.path, files):
            spans = [
                Span(key, kind, line, end)
                for key, kind, line, end in conn.execute(
                    "SELECT key, kind, line, end_line FROM nodes WHERE file = ?", (file,)
                )
            ]
            found = innermost(spans, location.line)
            if found is not None:
                keys.append(found.key)
        out.append((location, tuple(keys)))
    return out


def resolve_ids(conn: apsw.Connection, ids: Iterable[str]) -> dict[str, str]:
    """Map each given stable key or CPG id to a stable key, where one matches.

    A parameter's key (``function:f.py:send(url)``) and an import's
    (``import:f.py:import time``), which answers hand out for their leaf
    blocks, map to the definition that holds them: its block shows them.
    """
    out: dict[str, str] = {}
    for ident in ids:
        key = scalar(conn, "SELECT key FROM nodes WHERE key = ?", (ident,))
        if key is None:
            key = scalar(conn, "SELECT key FROM nodes WHERE node_id = ?", (ident,))
        if key is None and ident.endswith(")") and "(" in ident:
            key = scalar(conn, "SELECT key FROM nodes WHERE key = ?", (ident[: ident.rindex("(")],))
        if key is None and ident.startswith("import:"):
            file = ident[len("import:") :].split(":", 1)[0]
            key = scalar(
                conn,
                "SELECT key FROM nodes WHERE file = ? AND kind = 'module' ORDER BY line, key LIMIT 1",
                (file,),
            )
        if key is not None:
            out[ident] = key
    return out


def named_candidates(conn: apsw.Connection, name: str) -> list[tuple[str, str]]:
    """``(key, qualname)`` of the definitions whose qualified name is ``name`` or ends with ``.name``.

    Case-sensitive (``=`` and ``substr``, not ``LIKE``); which of them the name
    names is :func:`greploom.core.names.named`'s to decide.
    """
    rows = conn.execute(
        "SELECT key, qualname FROM nodes WHERE qualname = ?1 OR "
        "(length(qualname) > length(?1) AND substr(qualname, -length(?1) - 1) = '.' || ?1)",
        (name,),
    )
    return [(str(key), str(qual)) for key, qual in rows]
