"""What the parsers found in each doc and config file, kept by content beside the index.

An index run reads every doc and config file again (they are small), but
parsing them is not free: docutils took 1.8 s of a run on flask's 81
reStructuredText files, the same on every run that edits one line of code
(a watch refreshes on each save). So each file's parse (its headings and
code spans: greploom.shell.doc_parse.ParsedDoc) is kept in the index's
parts file (greploom.shell.cpg_parts, a cache already), in a table of its
own, keyed by the file's content hash and ``PARSE_VERSION``: an edited
file, or a greploom that parses differently, parses again. A cache entry
that cannot be read is parsed again, never trusted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

import apsw

from greploom.core.doc_sections import Heading
from greploom.shell.doc_parse import PARSE_VERSION, ParsedDoc
from greploom.shell.freshness import storable

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS doc_parses (file TEXT PRIMARY KEY, content TEXT NOT NULL, data TEXT NOT NULL)"
)


def content_of(raw: bytes) -> str:
    """The key a file's parse is kept under: the parser's version and the file's sha256."""
    return f"{PARSE_VERSION}:{hashlib.sha256(raw).hexdigest()}"


class DocParseCache:
    """The kept parses of one index's docs, on the parts file's connection (the run's lock held)."""

    def __init__(self, conn: apsw.Connection) -> None:
        self._conn = conn
        conn.execute(_SCHEMA)
        self._stored = {str(f): (str(c), str(d)) for f, c, d in conn.execute("SELECT * FROM doc_parses")}
        self._new: dict[str, tuple[str, str]] = {}

    def get(self, file: str, content: str) -> ParsedDoc | None:
        """The kept parse of ``file`` when it was made from this content."""
        kept = self._stored.get(file)
        if kept is None or kept[0] != content:
            return None
        try:
            raw = json.loads(kept[1])
            headings = tuple(Heading(int(h[0]), str(h[1]), int(h[2]), int(h[3])) for h in raw["h"])
            spans = tuple((int(line), str(text)) for line, text in raw["s"])
            return ParsedDoc(headings, spans, bool(raw["r"]))
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def put(self, file: str, content: str, parsed: ParsedDoc) -> None:
        """Keep a parse (written by :meth:`save`)."""
        if storable(file):
            data = {
                "h": [[h.line, h.title, h.level, h.lines] for h in parsed.headings],
                "s": [list(s) for s in parsed.code_spans],
                "r": parsed.refused,
            }
            self._new[file] = (content, json.dumps(data, separators=(",", ":")))

    def save(self, files: Iterable[str]) -> None:
        """Write the new parses and drop those of files no longer read, in one transaction."""
        keep = set(files)
        gone = [f for f in self._stored if f not in keep]
        with self._conn:
            self._conn.executemany("DELETE FROM doc_parses WHERE file = ?", ((f,) for f in gone))
            new = ((f, c, d) for f, (c, d) in self._new.items())
            self._conn.executemany("INSERT OR REPLACE INTO doc_parses VALUES (?, ?, ?)", new)
        self._stored.update(self._new)
        self._new.clear()
