"""The index file's schema (version 1) and the row the index keeps per node.

Schema (version 1; ``PRAGMA user_version``; ``application_id`` marks the file
as greploom's). Hard to change later, so the reasons are written here:

- ``nodes``: one row per function/class/module, keyed by the stable key
  (UNIQUE) with an INTEGER rowid that survives updates, so the FTS5 and
  vec0 rows that share the rowid never need renumbering. The resolved graph
  around the node (``structure``, JSON of :class:`StructuralContext`) lives
  in the row: a query reads a handful of rows and never the CPG.
- ``nodes_fts``: FTS5 over pre-tokenised name, qualified name, path, summary
  and body (identifier parts from :mod:`greploom.core.lexical`; the body is
  the whole source, keywords dropped), porter-stemmed, each column weighted
  for bm25. Contentless (``content=''``, ``contentless_delete=1``): it keeps
  the index and not a second copy of every body (on requests 389 of 5,930 kB
  were that copy); queries read text from ``nodes``, never from here. Files
  written before this keep a table with content, which answers the same.
- ``vectors``: vec0 with cosine distance; its width comes from the embedder
  and is recorded in ``meta``; absent for a lexical-only index. Chunks of
  ``VECTOR_CHUNK`` rows: vec0's default of 1,024 allocates a chunk whole, so
  a 300-definition code base stored 1,024 vectors' bytes (3.1 MB at 768
  wide); 128 wastes at most 127 rows' and costs 3.5 ms more per search on
  18,000 vectors (13.3 -> 16.8 ms). Files written before keep their chunks.
- ``files``: each source file the run read, as it was before treeloom read
  it (path under ``meta.source_root``, size, modification time in ns,
  sha256): a query flags a block whose file changed since as stale
  (:mod:`greploom.core.freshness`). Empty when the run had no source
  directory (a CPG file without ``--source-root``): freshness is then
  unknown, and said so. Added like ``nodes_by_name`` (``FILES_TABLE``); a
  file without it answers as one with it empty.
- ``auto_vacuum = INCREMENTAL`` (set when the file is made, before WAL:
  :func:`greploom.shell.store_file.connect`): a run's
  pending vectors and replaced rows leave free pages (on flask, 442 of
  1,267 pages after three runs); each run that changed the index gives
  them back at its end (``PRAGMA incremental_vacuum``), so the file is the
  size of what it holds. Files made before keep theirs for SQLite to reuse.
- ``pending``: vectors an index run has computed but not yet switched in,
  keyed by content hash, committed batch by batch: a killed run loses no
  embedding work and never touches what queries read.
- ``meta``: key/value text (versions, embedder identity, tier, CPG, times).
- ``nodes_by_name``: names without case, for the lookup of the definitions a
  query names (a table scan reads every row's source: 11-12 ms on numpy's
  18,089 nodes). Added after version 1 shipped, so it is not required: an
  index run adds it to an older file (``NAME_INDEX``), and until then the
  lookup scans and gives the same answer.
- ``nodes_by_file``: file and line, for the definitions a place in a query
  points at (``adapters.py:412``): without it the file list and each file's
  definitions are table scans, 11 and 10 ms on numpy's 18,089 nodes. Added
  like ``nodes_by_name`` (``FILE_INDEX``), and as optional.
- ``module_names``: the names each module binds at its top level by
  assignment (``g = LocalProxy(...)``, ``export const router = ...``), with
  the module row's key and the assignment's line, so that a symbol query
  naming one finds its module (greploom.shell.module_names). Rewritten by
  each run; added like ``files`` (``MODULE_NAMES_TABLE``): a file without it
  finds no such names, as before.
"""

from __future__ import annotations

import attrs

from greploom.core.expand import StructuralContext
from greploom.core.lexical import code_tokens, identifier_tokens
from greploom.core.plan import IndexEntry

SCHEMA_VERSION = 1
# Meta key: a run that made its index searchable before its vectors (a first run,
# greploom.shell.index_embed.searchable_first) is still at it, or stopped before its
# end: "1" until that run's switch, then "". The next run embeds every row again
# (finished batches come back from ``pending``), and no run is skipped as unchanged.
BUILDING = "building"
# Meta key: "1" once a run wrote ``module_names``; a run may then reuse the names of
# files unchanged since (greploom.shell.indexing), which an older run never stored.
MODULE_NAMES = "module_names"
APPLICATION_ID = 0x67726C6D  # "grlm": tells a greploom index from any other SQLite file
FTS_TOKENIZER = "porter unicode61 tokenchars '_'"
# bm25 column weights: a hit on the name matters most, the body least.
FTS_WEIGHTS = (10.0, 5.0, 2.0, 1.0, 0.5)

VECTOR_CHUNK = 128
FILES_TABLE = (
    "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, "
    "mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL)"
)
MODULE_NAMES_TABLE = (
    "CREATE TABLE IF NOT EXISTS module_names(name TEXT NOT NULL, key TEXT NOT NULL, line INTEGER NOT NULL)"
)
MODULE_NAMES_INDEX = "CREATE INDEX IF NOT EXISTS module_names_by_name ON module_names(name COLLATE NOCASE)"
NAME_INDEX = "CREATE INDEX IF NOT EXISTS nodes_by_name ON nodes(name COLLATE NOCASE)"
FILE_INDEX = "CREATE INDEX IF NOT EXISTS nodes_by_file ON nodes(file, line)"
SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nodes(
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER,
    summary TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    source TEXT,
    structure TEXT NOT NULL
);
CREATE INDEX nodes_by_node_id ON nodes(node_id);
{NAME_INDEX};
{FILE_INDEX};
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    name, qualname, path, summary, body, tokenize="{FTS_TOKENIZER}",
    content='', contentless_delete=1
);
CREATE TABLE pending(content_hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
{FILES_TABLE};
{MODULE_NAMES_TABLE};
{MODULE_NAMES_INDEX};
PRAGMA user_version = {SCHEMA_VERSION};
PRAGMA application_id = {APPLICATION_ID};
"""


@attrs.frozen
class NodeRow:
    """Everything stored for one indexable node."""

    key: str
    node_id: str
    kind: str
    name: str
    qualname: str
    file: str
    line: int
    end_line: int | None
    summary: str
    content_hash: str
    source: str | None
    structure: StructuralContext
    # A module's top-level names bound by assignment, with their lines (module_names).
    names: tuple[tuple[str, int], ...] = ()

    def fts(self) -> tuple[str, str, str, str, str]:
        """The full-text columns, pre-tokenised: name, qualname, path, summary, body.

        Computed when the row's text entry is written, not with the row: a run
        writes the entries of changed rows only, and tokenising every body was a
        quarter of an edit-one-file run on numpy.
        """
        return (
            " ".join(identifier_tokens(self.name)),
            " ".join(identifier_tokens(self.qualname)),
            " ".join(identifier_tokens(self.file.replace("/", " ").replace("-", "_"))),
            " ".join(identifier_tokens(self.summary)),
            # The whole source, docstring included: the summary keeps only the
            # docstring's first paragraph, and indexing the rest lifted questions
            # from 0.688 to 0.720 NDCG@10 (benchmarks/quality/REPORT.md).
            " ".join(code_tokens(self.source or "")),
        )

    def entry(self) -> IndexEntry:
        """The plan's view of this row."""
        return IndexEntry(self.key, self.content_hash, self.node_id, self.file, self.line, self.end_line)
