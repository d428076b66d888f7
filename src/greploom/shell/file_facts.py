"""What an index run keeps of each source file beside the index, so the next run may leave it alone.

For every code file of a source directory (greploom.shell.dir_rows), the
last run's:

- identities (greploom.core.keys): the definitions the file's rows are of;
- scopes (greploom.core.call_scopes): what resolving any file's calls reads of it;
- links: each linked call, the definition holding it and the one it invokes;
- reads: what resolving the file's calls looked at (greploom.core.calls.Linked);
- its share of the run's report (greploom.shell.sources) and of the parts' faults.

With these, a run after an edit decides which files can have other rows
(greploom.core.relink) and reads only those; every other row stays as the
index holds it.

Kept in the parts file (greploom.shell.cpg_parts), table ``facts``, one
zlib-compressed JSON record per file keyed by its content key. Why there and
why so: the records are a cache of the index, not a part of it; losing them
costs one full run, never a wrong row. So they follow the rules of a cache:
a record is used only when its file's content key still matches, and the
whole set only when its ``run`` (the digests and tier of the run that wrote
it) is the index's last run and its ``identity`` (this format, greploom's
version and summary rules, the grammars installed) is this greploom's. They
are written after the index's switch: a run killed in between leaves
records of an older run, which the ``run`` check refuses.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Iterable, Mapping
from importlib.util import find_spec
from pathlib import Path

import apsw
import attrs

import greploom
from greploom.core.call_scopes import FileScopes
from greploom.core.expand import NodeRef
from greploom.core.hashing import HASH_VERSION
from greploom.core.relink import Link
from greploom.core.summary import SUMMARY_VERSION
from greploom.shell.fact_records import (
    FileFacts,
    UnreadableFacts,
    decode,
    decode_body,
    decode_links,
    ref_json,
    ref_of,
)
from greploom.shell.outline import _GRAMMARS
from greploom.shell.store_sql import in_chunks

# The records' layout: a change of what they hold or mean makes every run full until one
# has written them again (an older record is never read as a newer one).
# 2: a file's links apart from the rest (read only where a run needs them), ids without the file;
# 3: and its scopes apart from their head (read only when a lookup comes to the file).
FACTS_FORMAT = "3"
_COLUMNS = ("file", "content", "data", "body", "links")
_SCHEMA = (
    "CREATE TABLE facts (file TEXT PRIMARY KEY, content TEXT NOT NULL, data BLOB NOT NULL, "
    "body BLOB NOT NULL, links BLOB NOT NULL)"
)


@attrs.frozen
class RunFacts:
    """What the records of one run share: which run, the build root's package name, the docs' links."""

    run: str  # the digests and tier of the run (see :func:`run_of`)
    root: tuple[bool, str | None]  # greploom.core.calls.Linked.root
    documented: tuple[tuple[str, tuple[NodeRef, ...]], ...] = ()  # code key -> doc sections naming it


_RUN_KEYS = ("cpg_digest", "sources_digest", "tier", "greploom_version", "summary_version", "hash_version")


def run_of(meta: Mapping[str, str]) -> str:
    """What identifies an index's last run, from its meta: a record of another run is not used."""
    return json.dumps([meta.get(k, "") for k in _RUN_KEYS])


def same_rules(meta: Mapping[str, str], tier: str) -> bool:
    """Whether the index's last run made its rows as this run would: same tier, same greploom,
    same summary and hash rules (a row kept from another would say what this run would not)."""
    now = {"tier": tier, "greploom_version": greploom.__version__}
    now |= {"summary_version": SUMMARY_VERSION, "hash_version": HASH_VERSION}
    return all(meta.get(k) == v for k, v in now.items())


def identity(parts: str) -> str:
    """This greploom's records: the format, version and rules, the parts' identity (their
    format and treeloom's version: greploom.shell.cpg_parts) and the grammars installed
    (which decide what the outlines of files add)."""
    grammars = sorted({module for module, _ in _GRAMMARS.values() if _installed(module)})
    return json.dumps([FACTS_FORMAT, greploom.__version__, SUMMARY_VERSION, HASH_VERSION, parts, grammars])


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class FactStore:
    """The records in the parts file, open for a run (which holds the index's lock)."""

    def __init__(self, conn: apsw.Connection, parts: str, *, readonly: bool = False) -> None:
        self._conn = conn
        self._identity = identity(parts)
        columns = tuple(str(row[1]) for row in conn.execute("PRAGMA table_info(facts)"))
        self._usable = columns == _COLUMNS
        if not self._usable and not readonly:  # none yet, or another layout's: records are a cache
            with conn:
                conn.execute("DROP TABLE IF EXISTS facts")
                conn.execute("DELETE FROM meta WHERE key LIKE 'facts_%'")
                conn.execute(_SCHEMA)
            self._usable = True

    def run(self) -> RunFacts | None:
        """The run the records are of, when they are this greploom's (None: none usable)."""
        if not self._usable:
            return None
        meta = dict(self._conn.execute("SELECT key, value FROM meta WHERE key LIKE 'facts_%'"))
        if meta.get("facts_identity") != self._identity or "facts_run" not in meta:
            return None
        try:
            raw = json.loads(meta["facts_run"])
            documented = tuple((str(k), tuple(ref_of(r) for r in refs)) for k, refs in raw["documented"])
            return RunFacts(str(raw["run"]), (bool(raw["root"][0]), raw["root"][1]), documented)
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def contents(self) -> dict[str, str]:
        """file -> the content key of its record."""
        return {str(f): str(c) for f, c in self._conn.execute("SELECT file, content FROM facts")}

    def read(self) -> dict[str, FileFacts] | None:
        """Every record, its links left out (:meth:`links`); None when one does not decode.
        A damaged record could not say which definitions its file's calls linked to, whose
        rows name them as callers: only a full run makes those right again."""
        out: dict[str, FileFacts] = {}
        for file, content, blob in self._conn.execute("SELECT file, content, data FROM facts"):
            try:
                out[str(file)] = decode(str(file), str(content), bytes(blob))
            except (ValueError, KeyError, TypeError, IndexError, zlib.error):
                return None
        return out

    def body(self, file: str) -> FileScopes:
        """The scopes of a file's record (raises :class:`UnreadableFacts` when it has none or
        they do not decode; the run then decides every row)."""
        try:
            row = self._conn.execute("SELECT body FROM facts WHERE file = ?", (file,)).fetchone()
            if row is None:
                raise UnreadableFacts(f"no record of {file}")
            return decode_body(file, bytes(row[0]))
        except (ValueError, KeyError, TypeError, IndexError, zlib.error, apsw.Error) as exc:
            raise UnreadableFacts(f"the record of {file} does not decode") from exc

    def links(self, files: Iterable[str]) -> dict[str, tuple[Link, ...]] | None:
        """The links of these files' records (None: one does not decode)."""
        out: dict[str, tuple[Link, ...]] = {}
        for chunk, marks in in_chunks(sorted(set(files))):
            query = f"SELECT file, links FROM facts WHERE file IN ({marks})"
            for file, blob in self._conn.execute(query, chunk):
                try:
                    out[str(file)] = decode_links(str(file), bytes(blob))
                except (ValueError, KeyError, TypeError, IndexError, zlib.error):
                    return None
        return out

    def write(
        self,
        facts: Iterable[tuple[str, str, bytes, bytes, bytes]],
        run: RunFacts,
        *,
        drop: Iterable[str] = (),
        every: bool,
    ) -> None:
        """Store records (:func:`encode`'s) and the run they are of in one transaction;
        ``every``: they are all the records (the others are dropped), else ``drop`` names the
        files whose records go."""
        rows = list(facts)
        with self._conn:
            if every:
                self._conn.execute("DELETE FROM facts")
            self._conn.executemany("DELETE FROM facts WHERE file = ?", ((f,) for f in drop))
            self._conn.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?)", rows)
            meta = {
                "run": run.run,
                "root": list(run.root),
                "documented": [[k, [ref_json(r) for r in refs]] for k, refs in run.documented],
            }
            for key, value in (("facts_identity", self._identity), ("facts_run", json.dumps(meta))):
                self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def forget(self) -> None:
        """Drop every record (a run that cannot keep them, so that none is used later)."""
        with self._conn:
            self._conn.execute("DELETE FROM facts")
            self._conn.execute("DELETE FROM meta WHERE key LIKE 'facts_%'")


class Prefetch:
    """The last run's records, read in a thread of their own while treeloom builds the files an
    edit changed (a process of its own): the two wait for nothing of each other.

    Its own read-only connection; any failure leaves nothing read, and the run reads them itself.
    """

    def __init__(self, path: Path, parts: str) -> None:
        self._read: tuple[RunFacts | None, dict[str, FileFacts] | None] | None = None
        self._thread = threading.Thread(target=self._run, args=(path, parts), daemon=True)
        self._thread.start()

    def _run(self, path: Path, parts: str) -> None:
        try:
            conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        except apsw.Error:
            return
        try:
            conn.set_busy_timeout(10_000)
            store = FactStore(conn, parts, readonly=True)
            last = store.run()
            self._read = (last, store.read() if last is not None else None)
        except apsw.Error:
            pass
        finally:
            conn.close()

    def result(self) -> tuple[RunFacts | None, dict[str, FileFacts] | None] | None:
        """(the run, every record without its links) as read, or None when the thread read nothing."""
        self._thread.join()
        return self._read


# -- the record's JSON -----------------------------------------------------------
