"""The status use case: what an index holds, without changing it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from greploom.shell.faults import storage_faults
from greploom.shell.schema import BUILDING
from greploom.shell.store import IndexStore


def index_status(db_path: Path) -> dict[str, Any]:
    """Counts, embedder, tier, CPG and age of the index at ``db_path``."""
    with (
        storage_faults(db_path, "read the index"),
        IndexStore.open_existing(db_path, readonly=True) as store,
        store.snapshot(),
    ):
        meta = store.meta()
        counts = store.counts()
    indexed_at = meta.get("indexed_at")
    age = None
    if indexed_at:
        try:
            then = dt.datetime.fromisoformat(indexed_at)
            age = int((dt.datetime.now(dt.timezone.utc) - then).total_seconds())
        except ValueError:
            age = None
    provider = meta.get("embedder_provider", "none")
    return {
        "index": str(db_path),
        "nodes": counts["nodes"],
        "modules": counts.get("kind:module", 0),
        "classes": counts.get("kind:class", 0),
        "functions": counts.get("kind:function", 0),
        "vectors": counts["vectors"],
        "pending_vectors": counts["pending"],
        "embedder": f"{provider}:{meta.get('embedder_model', '')}"
        if provider != "none"
        else "none (lexical only)",
        "dimension": int(meta.get("embedder_dimension", "0") or 0),
        "tier": meta.get("tier"),
        "cpg": meta.get("cpg_path"),
        "cpg_digest": meta.get("cpg_digest"),
        "treeloom_version": meta.get("treeloom_version"),
        "greploom_version": meta.get("greploom_version"),
        "schema_version": meta.get("schema_version"),
        "created_at": meta.get("created_at"),
        "indexed_at": indexed_at,
        # False: the first run failed, stopped or is still running (searchable meanwhile:
        # words, names and graph, and the vectors finished so far).
        "complete": bool(indexed_at) and not meta.get(BUILDING),
        "build": _build(db_path, meta),
        "age_seconds": age,
        "server": _server(db_path),
        "watch": _watch(db_path),
    }


def _build(db_path: Path, meta: dict[str, str]) -> str:
    """A first run that made the index searchable before its vectors: still running, or stopped."""
    if not meta.get(BUILDING):
        return "done" if meta.get("indexed_at") else "never finished"
    from greploom.shell.lock import run_in_progress

    return "building" if run_in_progress(db_path) else "stopped (run greploom index to finish it)"


def _watch(db_path: Path) -> str:
    """The ``greploom watch`` keeping this index fresh, if one runs: pending changes, last refresh."""
    from greploom.shell.watch import describe, read_state

    return describe(read_state(db_path))


def _server(db_path: Path) -> str:
    """The ``greploom serve`` answering CLI queries for this index (resident mode), if one does."""
    from greploom.shell.resident_client import server_status

    found = server_status(str(db_path))
    if found is None:
        return "none (queries run cold)"
    return f"pid {found.get('pid')} since {found.get('started')}, {found.get('queries')} CLI queries answered"
