"""The CPG of a source directory kept file by file beside the index, so a run re-parses only what changed.

Why per file, and why this file. ``treeloom build`` parses every file on every
run: numpy took minutes and 4.4 GB before greploom read a byte, for an edit of
one line. treeloom's ``CPGBuilder.rebuild(changed)`` needs the builder kept in
memory, which a one-shot CLI run does not have. So each file is built on its
own (greploom.shell.treeloom) and its part of the CPG kept here, keyed by the
file's content hash; a run builds the files whose hash changed and reads the
rest back. Nothing greploom derives from the CPG needs a whole-code-base build:
call links, imports and names are resolved by greploom itself over the parts
together (greploom.core.calls), which is what keeps cross-file facts right
after a partial rebuild. What a per-file build does not give is treeloom's
cross-file ``data_flows_to`` edges, made from its bare-name call links (which
greploom does not trust for calls either); a file's own flows are all there.
A full run is built the same way, so an index never depends on its history.

The file is a cache: SQLite (one file, atomic commits, a run killed midway
keeps what it stored), rebuilt from scratch when it is damaged, written by
another format or another treeloom. Parts are zlib-compressed JSON in
treeloom's own node and edge shapes (numpy: 18 MB for 380k nodes, against a
411 MB CPG JSON file), holding only the edge kinds greploom reads.

Reading the parts back is not enough for a run after an edit to be quick:
numpy's 239k nodes take seconds to read, resolve and summarise again. The
same file keeps, per source file, what the last run made of it
(greploom.shell.file_facts), so the next run reads only the files an edit
can change (greploom.shell.dir_rows) and keeps the index's other rows.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import apsw
import attrs

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.cpg import CpgData, CpgEdge, CpgNode
from greploom.core.freshness import FileStamp
from greploom.shell.cpg_stream import CpgCollector
from greploom.shell.doc_cache import DocParseCache
from greploom.shell.freshness import storable
from greploom.shell.serde import cpg_item_readers, with_valid_text
from greploom.shell.store_sql import in_chunks

# Part of every part's identity: a change of what is stored (the format, the
# edge kinds kept) or of the parser rebuilds them all.
# 2: literals trimmed to docstring candidates (greploom.shell.treeloom); 3: and data flows
# within one scope left out.
PARTS_FORMAT = "3:" + ",".join(sorted(k.value for k in USED_EDGE_KINDS))
PART_BATCH = 64  # parts committed together: a run killed midway keeps all but the last batch
# The part of a file treeloom could not build: greploom then outlines it from its source.
EMPTY_PART = zlib.compress(b'{"nodes":[],"edges":[]}', 1)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parts (file TEXT PRIMARY KEY, content TEXT NOT NULL, data BLOB NOT NULL);
"""


def parts_path(db_path: Path) -> Path:
    """Where the parts of the index at ``db_path`` are kept: ``NAME.parts.db`` beside it."""
    return db_path.with_name(db_path.stem + ".parts.db")


def content_key(stamp: FileStamp | None) -> str | None:
    """What identifies a file's content: its sha256, or size and time for a file too big to hash;
    None (build it every time) for a file that could not be read."""
    if stamp is None:
        return None
    return stamp.sha256 or f"stat:{stamp.size}:{stamp.mtime_ns}"


def tree_order(name: str) -> tuple[str, ...]:
    """The order treeloom parses files in (sorted as paths, so ``a/b`` before ``a-b``)."""
    return tuple(name.split("/"))


class PartStore:
    """The parts of one index, open for a run (which holds the index's lock)."""

    def __init__(self, path: Path, treeloom_version: str) -> None:
        self.path = path
        self.identity = f"{PARTS_FORMAT};treeloom {treeloom_version}"
        self.reset_reason: str | None = None  # why the stored parts were dropped, when they were
        # Parts of files whose names SQLite cannot hold (not UTF-8 on disk): built on every run.
        self._transient: dict[str, bytes] = {}
        self._conn = self._open()

    def _open(self) -> apsw.Connection:
        try:
            conn = self._connect()
            stored = conn.execute("SELECT value FROM meta WHERE key = 'identity'").fetchall()
            if stored and stored[0][0] != self.identity:
                with conn:
                    conn.execute("DELETE FROM parts")
                    conn.execute("UPDATE meta SET value = ? WHERE key = 'identity'", (self.identity,))
            elif not stored:
                with conn:
                    conn.execute("INSERT INTO meta VALUES ('identity', ?)", (self.identity,))
            return conn
        except apsw.Error as exc:  # damaged, or not ours: it is a cache, so start it again
            self.reset_reason = f"the CPG cache {self.path} was unreadable ({exc}); rebuilt it"
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            conn = self._connect()
            with conn:
                conn.execute("INSERT INTO meta VALUES ('identity', ?)", (self.identity,))
            return conn

    def _connect(self) -> apsw.Connection:
        conn = apsw.Connection(str(self.path))
        conn.set_busy_timeout(10_000)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(_SCHEMA)
        return conn

    def connection(self) -> apsw.Connection:
        """The file's connection, for the other caches kept in it (greploom.shell.file_facts)."""
        return self._conn

    def doc_cache(self) -> DocParseCache:
        """The parses of the docs and config files, kept in this file too (greploom.shell.doc_cache)."""
        return DocParseCache(self._conn)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> PartStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def contents(self) -> dict[str, str]:
        """file -> the content key its stored part was built from."""
        return {str(f): str(c) for f, c in self._conn.execute("SELECT file, content FROM parts")}

    def to_build(self, files: Sequence[str], stamps: Mapping[str, FileStamp]) -> list[str]:
        """The files whose stored part is missing or was built from other content."""
        stored = self.contents()
        return [f for f in files if (key := content_key(stamps.get(f))) is None or stored.get(f) != key]

    def keep_only(self, files: Iterable[str]) -> int:
        """Drop the parts of files no longer selected; how many were dropped."""
        gone = set(self.contents()) - set(files)
        with self._conn:
            self._conn.executemany("DELETE FROM parts WHERE file = ?", ((f,) for f in gone))
        return len(gone)

    def put_many(self, parts: Sequence[tuple[str, str, bytes]]) -> None:
        """Store (file, content key, compressed part) triples in one transaction."""
        kept = []
        for file, key, blob in parts:
            if key and storable(file):
                kept.append((file, key, blob))
            else:
                self._transient[file] = blob
        with self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO parts VALUES (?, ?, ?)", kept)

    def digest(self, files: Sequence[str]) -> str:
        """One hash of what the parts of ``files`` were built from (the CPG's identity for a run)."""
        stored = self.contents()
        # A part built this run only (a name SQLite cannot hold) counts by what it holds.
        stored.update((f, hashlib.sha256(blob).hexdigest()) for f, blob in self._transient.items())
        hasher = hashlib.sha256(self.identity.encode())
        for name in sorted(files, key=tree_order):
            hasher.update(f"\0{name}\0{stored.get(name, '')}".encode("utf-8", "surrogateescape"))
        return "parts:" + hasher.hexdigest()

    def read(self, files: Sequence[str], treeloom_version: str) -> CpgData:
        """The CPG of ``files`` (those with a stored part), in treeloom's file order."""
        return self.read_files(files, treeloom_version)[0]

    def read_files(
        self, files: Sequence[str], treeloom_version: str, *, every: bool = True
    ) -> tuple[CpgData, dict[str, PartFaults]]:
        """:meth:`read`, with what each part holds that the graph leaves out: nodes and edges of
        kinds this greploom does not know, edges naming missing nodes, repeated ids. ``every``:
        ``files`` is (nearly) every stored part, read in one pass; else they are looked up."""
        make_node, make_edge = cpg_item_readers()
        whole = CpgCollector(make_node, make_edge, USED_EDGE_KINDS)
        faults: dict[str, PartFaults] = {}
        for file, blob in self._blobs(set(files), every=every):
            text = zlib.decompress(blob)
            # A part with escaped surrogates (lone ones from names that are not UTF-8, or
            # pairs that json writes for emoji) has its strings made valid on its own:
            # validating the whole of numpy for one such part took 10 s.
            escaped = bool(_SURROGATE_ESCAPE.search(text))
            collector = CpgCollector(make_node, make_edge, USED_EDGE_KINDS) if escaped else whole
            raw = json.loads(text)
            nodes_at, edges_at = len(whole.nodes), len(whole.edges)
            skipped = (whole.skipped_nodes, whole.skipped_edges)
            for i, item in enumerate(raw.get("nodes", ())):
                collector.add_node(item, i)
            for i, item in enumerate(raw.get("edges", ())):
                collector.add_edge(item, i)
            if escaped:
                valid = with_valid_text(collector.data(treeloom_version))
                whole.nodes.extend(valid.nodes)
                whole.edges.extend(valid.edges)
                whole.skipped_nodes += valid.skipped_nodes
                whole.skipped_edges += valid.skipped_edges
                whole.renamed.update(valid.renamed_files)
            faults[file] = _faults(
                whole.nodes[nodes_at:],
                whole.edges[edges_at:],
                whole.skipped_nodes - skipped[0],
                whole.skipped_edges - skipped[1],
            )
        return whole.data(treeloom_version), faults

    def _blobs(self, wanted: set[str], *, every: bool = True) -> Iterator[tuple[str, bytes]]:
        if every:
            stored = self._conn.execute("SELECT file, data FROM parts")
            rows = [(str(f), bytes(d)) for f, d in stored if f in wanted]
        else:
            rows = []
            for chunk, marks in in_chunks(sorted(wanted)):
                query = f"SELECT file, data FROM parts WHERE file IN ({marks})"
                rows += [(str(f), bytes(d)) for f, d in self._conn.execute(query, chunk)]
        rows += [(f, d) for f, d in self._transient.items() if f in wanted]
        rows.sort(key=lambda row: tree_order(row[0]))
        yield from rows


@attrs.frozen
class PartFaults:
    """What one part holds that the graph leaves out (the run's warnings count them)."""

    skipped_nodes: int = 0  # of kinds this greploom does not know
    skipped_edges: int = 0
    dangling_edges: int = 0  # naming a node the part does not hold
    duplicate_ids: int = 0  # nodes after the first of their id


def _faults(
    nodes: Sequence[CpgNode], edges: Sequence[CpgEdge], skipped_nodes: int, skipped_edges: int
) -> PartFaults:
    """A part's faults. A part is one file's build, whose edges join its own nodes only, so the
    graph of all parts counts the sum of these (greploom.core.cpg.CpgGraph)."""
    ids: set[str] = set()
    duplicates = 0
    for node in nodes:
        if node.id in ids:
            duplicates += 1
        ids.add(node.id)
    dangling = sum(1 for e in edges if e.source not in ids or e.target not in ids)
    return PartFaults(skipped_nodes, skipped_edges, dangling, duplicates)
