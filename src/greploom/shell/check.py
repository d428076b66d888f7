"""The check use case: is this index sound, and if not, the one command that repairs it.

Read-only, like a query: it opens the file without writing, so it works on
read-only media and never changes what it examines. It looks at what a failed
or killed run, a damaged disk or a hand edit can leave:

- the file: an SQLite database, greploom's, of a schema this greploom reads;
- its structure: SQLite's integrity check and the FTS5 index's own;
- completeness: a first run that never switched leaves an empty index;
- vectors: the recorded embedder, the vector table's width and row count;
- pending vectors: whose they are (a later run of another embedder drops them).

Every problem comes with the repair; the repair of them all is one
``greploom index PATH --db DB --force`` (it sets a damaged file aside first).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw
import attrs

from greploom.core.errors import GreploomError, StoreError
from greploom.shell.cpg_parts import parts_path
from greploom.shell.faults import from_sqlite_error
from greploom.shell.schema import BUILDING
from greploom.shell.store import PENDING_IDENTITY, IndexStore


@attrs.frozen
class CheckReport:
    """What ``greploom check`` found: facts, problems, and the command that fixes them."""

    db_path: Path
    facts: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    fix: str | None
    exit_code: int

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (``--format json``)."""
        return {
            "index": str(self.db_path),
            "ok": self.ok,
            "facts": dict(self.facts),
            "problems": list(self.problems),
            "fix": self.fix,
        }

    def text(self) -> str:
        """The text form: facts, then each problem, then the fix."""
        lines = [f"{key}: {value}" for key, value in self.facts]
        lines += [f"problem: {p}" for p in self.problems]
        lines.append(f"fix: {self.fix}" if self.fix else "ok: the index is sound")
        return "\n".join(lines) + "\n"


def _repair(db_path: Path, meta: dict[str, str]) -> str:
    """The re-index command: of the source directory when one was indexed, else of the CPG."""
    cpg = meta.get("cpg_path", "")
    beside = str(parts_path(db_path.resolve()))  # a directory run's CPG
    source = meta.get("source_root") if meta.get("source_root") and cpg == beside else cpg
    return f"greploom index {source or 'PATH'} --db {db_path} --force"


def check_index(db_path: Path) -> CheckReport:
    """Examine the index at ``db_path`` without writing to it."""
    try:
        store = IndexStore.open_existing(db_path, readonly=True)
    except StoreError as exc:
        missing = not db_path.exists()
        fix = f"greploom index PATH --db {db_path}" + ("" if missing else " --force")
        if "not a greploom index" in str(exc) or "newer than" in str(exc):
            fix = "choose another --db, or upgrade greploom" if "newer" in str(exc) else "choose another --db"
        return CheckReport(db_path, (), (str(exc),), fix, exc.exit_code)
    except GreploomError as exc:
        return CheckReport(db_path, (), (str(exc),), None, exc.exit_code)
    with store:
        try:
            return _examine(store, db_path)
        except apsw.Error as exc:
            error = from_sqlite_error(exc, db_path, "read the index")
            problem = str(error) if error else f"SQLite: {exc}"
            code = error.exit_code if error else 4
            return CheckReport(db_path, (), (problem,), f"greploom index PATH --db {db_path} --force", code)


def _examine(store: IndexStore, db_path: Path) -> CheckReport:
    meta = store.meta()
    counts = store.counts()
    problems = [f"damaged: {p}" for p in store.integrity_problems()[:5]]
    facts: list[tuple[str, str]] = [
        ("schema", meta.get("schema_version", "?")),
        ("nodes", str(counts["nodes"])),
        ("vectors", str(counts["vectors"])),
        ("pending vectors", str(counts["pending"])),
        ("embedder", _embedder(meta)),
        ("indexed at", meta.get("indexed_at") or "never"),
    ]
    if not meta.get("indexed_at"):
        problems.append("incomplete: no run has finished on this index (the first one failed or is running)")
    elif meta.get(BUILDING):
        problems.append(
            "incomplete: the first run's vectors are not all computed (it stopped, or is still running); "
            "words, names and the graph answer meanwhile"
        )
    provider = meta.get("embedder_provider", "none")
    recorded_width = int(meta.get("embedder_dimension", "0") or 0)
    width = store.vector_width()
    if provider != "none" and counts["nodes"]:
        if width == 0:
            problems.append(f"vectors: the index records {_embedder(meta)} but holds no vector table")
        elif width != recorded_width:
            problems.append(f"vectors: the table is {width}-dim, the recorded embedder {recorded_width}-dim")
        if counts["vectors"] != counts["nodes"]:
            problems.append(f"vectors: {counts['vectors']} vectors for {counts['nodes']} nodes")
    elif provider == "none" and width:
        problems.append("vectors: a lexical-only index holds a vector table")
    if counts["pending"]:
        owner = meta.get(PENDING_IDENTITY)
        whose = _space(owner) if owner else "an unknown embedder (an older greploom); a run re-embeds them"
        facts.append(("pending from", whose))
    fix = _repair(db_path, meta) if problems else None
    return CheckReport(db_path, tuple(facts), tuple(problems), fix, 4 if problems else 0)


def _embedder(meta: dict[str, str]) -> str:
    provider = meta.get("embedder_provider", "none")
    if provider == "none":
        return "none (lexical only)"
    return f"{provider}:{meta.get('embedder_model', '')} ({meta.get('embedder_dimension', '0')}-dim)"


def _space(owner: str) -> str:
    try:
        provider, model, *_ = json.loads(owner)
    except (ValueError, TypeError):
        return owner[:80]
    return f"{provider}:{model} (an unfinished run; the next run of it goes on from them)"
