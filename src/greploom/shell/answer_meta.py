"""The metadata an answer states: what was asked, how it was searched, which index answered, how old.

Both the text header and the JSON envelope are drawn from this one mapping;
the packing adds its own counts to it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import greploom
from greploom.shell.config import GrepLoomConfig
from greploom.shell.ports import recorded_identity
from greploom.shell.schema import SCHEMA_VERSION
from greploom.shell.search import SearchHit

__all__ = ["query_metadata"]


def _age(indexed_at: str | None, now: dt.datetime) -> tuple[int | None, str]:
    if not indexed_at:
        return None, "unknown"
    try:
        then = dt.datetime.fromisoformat(indexed_at)
    except ValueError:
        return None, "unknown"
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return seconds, f"{seconds // size}{unit}"
    return seconds, f"{seconds}s"


def query_metadata(
    index_meta: Mapping[str, str],
    embedder_error: str | None,
    *,
    config: GrepLoomConfig,
    text: str,
    node_ids: Sequence[str],
    mode: str,
    hits: Sequence[SearchHit],
    unknown: Sequence[str],
    cpg_path: Path | None,
    places_not_found: Sequence[str] = (),
    freshness: str = "unknown",
    build: tuple[int, bool] | None = None,
) -> dict[str, Any]:
    """The metadata of one answer, from the index's recorded meta and the query as run."""
    now = dt.datetime.now(dt.timezone.utc)
    age_seconds, age = _age(index_meta.get("indexed_at"), now)
    identity = recorded_identity(index_meta)
    return {
        "query": text or None,
        "node_ids": list(node_ids),
        "search_mode": mode,
        "embedder": identity.describe() if identity else None,
        "embedder_error": embedder_error if mode == "lexical-only" else None,
        "greploom_version": greploom.__version__,
        "index_greploom_version": index_meta.get("greploom_version"),
        "index_schema_version": SCHEMA_VERSION,
        "treeloom_version": index_meta.get("treeloom_version"),
        "tier": index_meta.get("tier"),
        "index_created_at": index_meta.get("created_at"),
        "index_indexed_at": index_meta.get("indexed_at"),
        "index_age_seconds": age_seconds,
        "index_age": age,
        "index_path": str(config.db_path),
        "graph": f"cpg:{cpg_path}" if cpg_path else "index",
        "top_k": config.top_k,
        "ranking": config.ranking,
        "context": "adaptive" if config.context == "adaptive" and not node_ids else "fixed",
        "depth": config.depth,
        "budget": config.budget,
        "tokenizer": "cl100k_base",
        "hits": len(hits),
        "unknown_nodes": list(unknown),
        "places_not_found": list(places_not_found),
        # Whether the blocks' files were compared with the index's stamps ("checked"),
        # or could not be ("unknown": a CPG indexed without its source directory).
        "freshness": freshness,
        # A first index run made the index searchable before its vectors: how far they
        # are, and whether that run still goes on ("building") or stopped ("stopped").
        "vectors": f"{build[0]}%" if build else None,
        "build": ("building" if build[1] else "stopped") if build else None,
    }
