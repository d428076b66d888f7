"""What an index records about its last run, and the run that finds nothing to do.

The ``meta`` table holds the embedder identity, the CPG's digest, the
source files' fingerprint and the last run's warnings; a run whose inputs
all match it has nothing to do and says so (greploom.shell.indexing).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path

import attrs

import greploom
from greploom.core.errors import GreploomError, StoreError
from greploom.core.hashing import HASH_VERSION
from greploom.core.summary import SUMMARY_VERSION
from greploom.shell.config import GrepLoomConfig
from greploom.shell.embed_local import local_model_name
from greploom.shell.embedders import provider_for_urls
from greploom.shell.ports import Embedder, EmbedderIdentity, recorded_identity
from greploom.shell.schema import BUILDING, MODULE_NAMES, SCHEMA_VERSION
from greploom.shell.store import IndexStore

# recorded_identity lives in ports, so that a query reads it without this module; still exported here.
__all__ = ["IndexResult", "recorded_identity", "run_meta", "unchanged_run"]


@attrs.frozen
class IndexResult:
    """What an index run did."""

    total: int
    embedded: int
    unchanged: int
    repointed: int
    deleted: int
    failed: int
    seconds: float
    db_path: Path
    cpg_path: Path
    embedder: str
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what the run did beyond the counts (not problems)
    # A run that kept the rows of the files an edit cannot change: how many files it read
    # (greploom.shell.dir_rows); None when it decided every row.
    reread: int | None = None

    def summary_line(self) -> str:
        """The one line the CLI ends with."""
        return (
            f"indexed {self.total} nodes: {self.embedded} embedded, {self.unchanged} unchanged, "
            f"{self.repointed} re-pointed, {self.deleted} deleted, {self.failed} failed "
            f"in {self.seconds:.1f}s ({self.embedder}) -> {self.db_path}"
        )


def run_meta(
    meta: Mapping[str, str],
    *,
    identity: EmbedderIdentity | None,
    embedder: Embedder | None,
    config: GrepLoomConfig,
    cpg_path: Path,
    digest: str,
    source_root: Path | None,
    files_digest: str,
    treeloom_version: str,
    node_count: int,
    warnings: tuple[str, ...],
) -> dict[str, str]:
    """The metadata an index holds after this run."""
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return {
        "greploom_version": greploom.__version__,
        "schema_version": str(SCHEMA_VERSION),
        "hash_version": HASH_VERSION,
        "summary_version": SUMMARY_VERSION,
        "embedder_provider": identity.provider if identity else "none",
        "embedder_model": identity.model if identity else "",
        "embedder_dimension": str(identity.dimension if identity else 0),
        "embedder_query_prefix": identity.query_prefix if identity else "",
        "embedder_document_prefix": identity.document_prefix if identity else "",
        "embedder_url": getattr(embedder, "url", "") if embedder else "",  # HTTP embedders only
        "tier": config.tier.value,
        "cpg_path": str(cpg_path.resolve()),
        "cpg_digest": digest,
        # Size and time of the CPG file as this run read it: an unchanged source directory
        # reuses the CPG beside the index without hashing it again (built_before).
        "cpg_stamp": file_stamp(cpg_path),
        # Where the source of non-Python definitions was read (query --cpg reads it again).
        "source_root": str(source_root) if source_root else "",
        "sources_digest": files_digest,
        # Said again by a run that finds nothing changed: the files they name still are.
        "run_warnings": json.dumps(list(warnings)),
        "treeloom_version": treeloom_version,
        "created_at": meta.get("created_at", now),
        "indexed_at": now,
        "node_count": str(node_count),
    }


def file_stamp(path: Path) -> str:
    """``size:mtime_ns:inode:ctime_ns`` of a file ("" when it cannot be read): a file replaced
    by another of the same size and time has another inode, or another change time."""
    try:
        info = path.stat()
    except OSError:
        return ""
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_ctime_ns}"


def recorded_tier(db_path: Path) -> str | None:
    """The summary tier the index at ``db_path`` was built with, None when there is no index.

    A run that names no tier (no ``--tier``, no GREPLOOM_TIER, MCP ``tier`` left out)
    keeps the index's: a fast index re-indexed without the flag was made enhanced,
    every node re-embedded, and nothing said so.
    """
    if not db_path.is_file():
        return None
    try:
        with IndexStore.open_existing(db_path, readonly=True) as store:
            return store.meta().get("tier") or None
    except GreploomError:
        return None  # the run itself reports what is wrong with the file


def installed_treeloom() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("treeloom")
    except metadata.PackageNotFoundError:
        return None


def unchanged_run(
    db_path: Path,
    config: GrepLoomConfig,
    digest: str,
    files_digest: str,
    source_root: Path | None,
    *,
    force: bool,
) -> IndexResult | None:
    """The result of a run that has nothing to do, or None when there may be work.

    The same CPG file (by sha256), source root and files under it (names,
    sizes, times), tier, embedder, greploom version and summary rules
    (HASH_VERSION, SUMMARY_VERSION) as the last run means every node would hash the same:
    skip reading the CPG. The last run's warnings are said again.
    """
    if force or not db_path.is_file():
        return None
    try:
        store = IndexStore.open_existing(db_path)
    except StoreError:
        return None  # let the full run report what is wrong with the file
    try:
        meta = store.meta()
        provider = meta.get("embedder_provider", "")
        chosen = config.provider or provider or None
        provider_for_urls(config, chosen or "local", chosen=chosen is not None)
        local_model = local_model_name(config.local_model_dir)
        same = (
            meta.get("cpg_digest") == digest
            and meta.get("source_root", "") == (str(source_root) if source_root else "")
            and meta.get("sources_digest", "") == files_digest
            and meta.get("tier") == config.tier.value
            and meta.get("greploom_version") == greploom.__version__
            and meta.get("schema_version") == str(SCHEMA_VERSION)
            and meta.get("hash_version") == HASH_VERSION
            and meta.get("summary_version") == SUMMARY_VERSION
            and (config.provider is None or config.provider == provider)
            and (config.model is None or config.model == meta.get("embedder_model"))
            and (provider != "local" or meta.get("embedder_model") == local_model)
            and store.counts()["pending"] == 0
            and not meta.get(BUILDING)
            # An index from before file stamps gets them on its next run (freshness, per block).
            and (source_root is None or store.has_file_stamps())
            # ... and one from before module-level names gets those (greploom.shell.module_names).
            and (source_root is None or meta.get(MODULE_NAMES) == "1")
        )
        if not same or store.quick_check():
            return None  # work to do, or a damaged file the full run reports
        now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        with store.write():
            store.set_meta({"indexed_at": now})
        store.add_missing_indexes()
        total = int(meta.get("node_count", "0"))
    finally:
        store.close()
    identity = recorded_identity(meta)
    return IndexResult(
        total=total,
        embedded=0,
        unchanged=total,
        repointed=0,
        deleted=0,
        failed=0,
        seconds=0.0,
        db_path=db_path,
        cpg_path=Path(meta.get("cpg_path", "")),
        embedder=identity.describe() if identity else "lexical only",
        warnings=_stored_warnings(meta),
    )


def _stored_warnings(meta: Mapping[str, str]) -> tuple[str, ...]:
    try:
        stored = json.loads(meta.get("run_warnings", "[]"))
    except ValueError:
        return ()
    return tuple(w for w in stored if isinstance(w, str)) if isinstance(stored, list) else ()
