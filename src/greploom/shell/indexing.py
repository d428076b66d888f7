"""The index use case: gather the CPG and the stored state, let the core plan, apply it.

gather  read the CPG (building it with treeloom for a source directory),
        read the stored (key, hash) pairs and the recorded embedder;
decide  keys, summaries, hashes, graph contexts and the re-index plan (core);
act     embed what changed in batches (each committed to ``pending``), then
        switch everything in one transaction.

A run that fails or is killed before the switch leaves the previous index
exactly as it was; the vectors it computed wait in ``pending`` for the next
run. An OS file lock next to the index keeps two runs from interleaving.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Mapping
from pathlib import Path

import apsw
import attrs

import greploom
from greploom.core.context import USED_EDGE_KINDS, resolve_contexts
from greploom.core.cpg import CpgGraph
from greploom.core.errors import CorruptIndexError, CpgError, EmbedderError, StoreError, UsageError
from greploom.core.hashing import HASH_VERSION, content_hash
from greploom.core.keys import node_identities
from greploom.core.lexical import code_tokens, identifier_tokens
from greploom.core.plan import plan_reindex
from greploom.core.summary import Tier, summarize_node
from greploom.shell.assets import sha256_of
from greploom.shell.config import BATCH_TIMEOUT_S, GrepLoomConfig
from greploom.shell.embed_local import local_model_name
from greploom.shell.embedders import make_embedder, provider_for_urls
from greploom.shell.faults import damaged_index, storage_faults
from greploom.shell.lock import index_lock
from greploom.shell.ports import Embedder, EmbedderIdentity, Progress
from greploom.shell.schema import SCHEMA_VERSION, NodeRow
from greploom.shell.serde import check_cpg_file, load_cpg
from greploom.shell.sources import read_sources
from greploom.shell.store import IndexStore
from greploom.shell.treeloom import build_cpg_with_treeloom

EMBED_BATCH = 256  # texts per committed batch: bounds the work a killed run loses


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

    def summary_line(self) -> str:
        """The one line the CLI ends with."""
        return (
            f"indexed {self.total} nodes: {self.embedded} embedded, {self.unchanged} unchanged, "
            f"{self.repointed} re-pointed, {self.deleted} deleted, {self.failed} failed "
            f"in {self.seconds:.1f}s ({self.embedder}) -> {self.db_path}"
        )


def recorded_identity(meta: Mapping[str, str]) -> EmbedderIdentity | None:
    """The embedder an index was built with (None for none or a new index)."""
    provider = meta.get("embedder_provider")
    if not provider or provider == "none":
        return None
    return EmbedderIdentity(
        provider=provider,
        model=meta.get("embedder_model", ""),
        dimension=int(meta.get("embedder_dimension", "0") or 0),
        query_prefix=meta.get("embedder_query_prefix", ""),
        document_prefix=meta.get("embedder_document_prefix", ""),
    )


def compute_rows(
    cpg_path: Path, tier: Tier, source_root: Path | None = None
) -> tuple[dict[str, NodeRow], dict[str, str], tuple[str, ...], str]:
    """Decide, with the core, every row an index of this CPG holds (plus embed texts).

    ``source_root`` is the directory treeloom built: the files under it give
    the source of definitions the CPG holds none for (greploom.shell.sources).
    """
    data, report = read_sources(load_cpg(cpg_path, USED_EDGE_KINDS), source_root)
    graph = CpgGraph(data)
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    summaries: dict[str, str] = {}
    embed_texts: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None
        summary = summarize_node(graph, node, qualnames, tier)
        source = node.attr("source_text")
        summaries[ident.key] = summary.text
        embed_texts[ident.key] = summary.embed_text
        hashes[ident.key] = content_hash(
            summary.embed_text, source if isinstance(source, str) else None, tier
        )
    rows: dict[str, NodeRow] = {}
    for ctx in resolve_contexts(graph, idents, summaries):
        ident_key = ctx.ref.key
        rows[ident_key] = NodeRow(
            key=ident_key,
            node_id=ctx.node_id,
            kind=ctx.ref.kind,
            name=ctx.ref.name,
            qualname=ctx.qualname,
            file=ctx.ref.file,
            line=ctx.ref.line,
            end_line=ctx.end_line,
            summary=ctx.summary,
            content_hash=hashes[ident_key],
            source=ctx.source,
            structure=ctx.structure,
            fts=(
                " ".join(identifier_tokens(ctx.ref.name)),
                " ".join(identifier_tokens(ctx.qualname)),
                " ".join(identifier_tokens(ctx.ref.file.replace("/", " ").replace("-", "_"))),
                " ".join(identifier_tokens(ctx.summary)),
                # The whole source, docstring included: the summary keeps only the
                # docstring's first paragraph, and indexing the rest lifted questions
                # from 0.688 to 0.720 NDCG@10 (benchmarks/quality/REPORT.md).
                " ".join(code_tokens(ctx.source or "")),
            ),
        )
    warnings = list(report.warnings(source_root))
    if data.skipped_nodes or data.skipped_edges:
        warnings.append(
            f"skipped {data.skipped_nodes} nodes and {data.skipped_edges} edges of kinds this "
            "greploom does not know (a newer treeloom?)"
        )
    if graph.dangling_edges:
        warnings.append(f"ignored {graph.dangling_edges} edges that name missing nodes")
    if graph.duplicate_ids:
        warnings.append(f"ignored {graph.duplicate_ids} nodes with duplicate ids (kept the first)")
    if not rows:
        warnings.append(f"the CPG {cpg_path} holds no function, class or module nodes")
    return rows, embed_texts, tuple(warnings), data.treeloom_version


def run_index(
    path: str | Path,
    config: GrepLoomConfig,
    progress: Progress | None = None,
    *,
    force: bool = False,
) -> IndexResult:
    """Index a CPG JSON file or a source directory into ``config.db_path``."""
    started = time.monotonic()
    source = Path(path)
    if not source.exists():
        raise CpgError(f"nothing to index at {source}: no such file or directory")
    db_path = config.db_path
    with storage_faults(db_path, "write the index"), index_lock(db_path):
        return _locked_run(source, config, progress, force=force, started=started)


def _locked_run(
    source: Path, config: GrepLoomConfig, progress: Progress | None, *, force: bool, started: float
) -> IndexResult:
    """The run itself, holding the index's lock."""
    db_path = config.db_path
    if source.is_dir():
        cpg_path, built_warnings = build_cpg_with_treeloom(
            source, db_path.with_name(db_path.stem + ".cpg.json")
        )
        source_root: Path | None = source.resolve()
    else:
        cpg_path = source
        source_root = config.source_root.resolve() if config.source_root else None
        built_warnings = ()
        check_cpg_file(cpg_path)
    if source_root is not None and not source_root.is_dir():
        raise UsageError(f"the source root {source_root} is not a directory")
    digest = sha256_of(cpg_path)
    unchanged = _unchanged_run(db_path, config, digest, source_root, force=force)
    if unchanged is not None:
        return attrs.evolve(
            unchanged, cpg_path=cpg_path, seconds=time.monotonic() - started, warnings=built_warnings
        )
    rows, embed_texts, warnings, treeloom_version = compute_rows(cpg_path, config.tier, source_root)
    warnings = (*built_warnings, *warnings)
    if source.is_dir() and not rows:
        warnings = (*warnings, f"treeloom found no supported source files in {source}")
    store, set_aside = _open_for_run(db_path, source, force=force)
    if set_aside is not None:
        warnings = (*warnings, f"the index was damaged: moved it to {set_aside} and built a new one")
    try:
        meta = store.meta()
        recorded = recorded_identity(meta)
        embedder = _choose_embedder(config, meta, force=force)
        # With no vector table yet (a first run, or one after a lexical-only or an
        # empty index) every row needs its vector, not only the changed ones.
        full = force or (embedder is not None and (recorded is None or store.vector_width() == 0))
        plan = plan_reindex(store.stored_entries(), (r.entry() for r in rows.values()), force=full)
        vectors: dict[str, list[float]] | None = None
        identity = embedder.identity if embedder else None
        try:
            if embedder is not None:
                vectors, width = _embed(
                    store,
                    embedder=embedder,
                    keys=plan.embed,
                    rows=rows,
                    embed_texts=embed_texts,
                    progress=progress,
                    deadline=started + config.index_timeout,
                )
                identity = embedder.identity
                if not identity.dimension:
                    # Nothing was sent: the width is the pending vectors' or the index's,
                    # never the 0 of an embedder that has not answered yet.
                    known = recorded.dimension if recorded and recorded.space() == identity.space() else 0
                    identity = attrs.evolve(identity, dimension=width or known)
                if not full and recorded is not None and recorded.dimension not in (0, identity.dimension):
                    raise EmbedderError(
                        f"the embedder now returns {identity.dimension}-dim vectors, the index holds "
                        f"{recorded.dimension}-dim ones; pass --force to re-embed everything"
                    )
        finally:
            if embedder is not None:
                embedder.close()
        new_meta = _run_meta(
            meta,
            identity=identity,
            embedder=embedder,
            config=config,
            cpg_path=cpg_path,
            digest=digest,
            source_root=source_root,
            treeloom_version=treeloom_version,
            node_count=len(rows),
        )
        store.switch(
            plan,
            rows,
            vectors,
            identity.dimension if identity else 0,
            new_meta,
            reset_vectors=full and vectors is not None,
        )
    finally:
        store.close()
    return IndexResult(
        total=len(rows),
        embedded=len(plan.embed),
        unchanged=len(plan.unchanged),
        repointed=len(plan.repoint),
        deleted=len(plan.delete),
        failed=0,
        seconds=time.monotonic() - started,
        db_path=db_path,
        cpg_path=cpg_path,
        embedder=identity.describe() if identity else "lexical only",
        warnings=warnings,
    )


def _open_for_run(db_path: Path, source: Path, *, force: bool) -> tuple[IndexStore, Path | None]:
    """The index to write, checked first; a damaged one is refused, or with --force set aside.

    The check is SQLite's quick check: one pass over the file (6.5 ms on the
    2.4 MB index of greploom's own 484 definitions), small next to a run.
    """
    try:
        store = IndexStore.open_or_create(db_path)
        try:
            problems = store.quick_check()
        except apsw.Error as exc:
            problems = [str(exc)]
        if not problems:
            return store, None
        store.close()
        more = f", +{len(problems) - 1} more" if len(problems) > 1 else ""
        error = damaged_index(db_path, problems[0][:120] + more, str(source))
    except CorruptIndexError as exc:
        error = exc
    if not force:
        raise error
    aside = set_aside(db_path)
    return IndexStore.open_or_create(db_path), aside


def set_aside(db_path: Path) -> Path:
    """Move a damaged index (with its WAL files) to ``NAME.damaged``, keeping it for a look."""
    aside = db_path.with_name(db_path.name + ".damaged")
    for suffix in ("", "-wal", "-shm"):
        moved = Path(str(db_path) + suffix)
        if moved.exists():
            os.replace(moved, Path(str(aside) + suffix))
        else:
            Path(str(aside) + suffix).unlink(missing_ok=True)
    return aside


def _choose_embedder(config: GrepLoomConfig, meta: Mapping[str, str], *, force: bool) -> Embedder | None:
    """The embedder for this run; one unlike the index's is refused unless forced."""
    recorded = recorded_identity(meta)
    embedder_was = meta.get("embedder_provider")
    chosen = config.provider or embedder_was
    provider = provider_for_urls(config, chosen or "local", chosen=chosen is not None)
    same_provider = recorded is not None and recorded.provider == provider
    # A local index's recorded model name selects nothing (the bundled model or
    # GREPLOOM_LOCAL_MODEL_DIR does); the identity check below catches a change.
    recorded_model = recorded.model if same_provider and recorded and provider != "local" else None
    model = config.model or recorded_model
    # The width answers must have is the index's, unless this run may change it.
    keep_width = recorded is not None and same_provider and model == recorded.model and not force
    embedder = make_embedder(
        config,
        provider,
        model,
        meta.get("embedder_url") if same_provider else None,
        dimension=recorded.dimension if keep_width and recorded else 0,
        deadline_s=min(BATCH_TIMEOUT_S, config.index_timeout),
    )
    wanted = embedder.identity.describe() if embedder else "none (lexical only)"
    had = recorded.describe() if recorded else "none (lexical only)"
    if embedder_was is not None and not force and wanted != had:
        if embedder is not None:
            embedder.close()
        raise EmbedderError(
            f"this index was embedded with {had}, not {wanted}; pass --force to "
            "re-embed everything with the new embedder"
        )
    return embedder


def _run_meta(
    meta: Mapping[str, str],
    *,
    identity: EmbedderIdentity | None,
    embedder: Embedder | None,
    config: GrepLoomConfig,
    cpg_path: Path,
    digest: str,
    source_root: Path | None,
    treeloom_version: str,
    node_count: int,
) -> dict[str, str]:
    """The metadata an index holds after this run."""
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    return {
        "greploom_version": greploom.__version__,
        "schema_version": str(SCHEMA_VERSION),
        "hash_version": HASH_VERSION,
        "embedder_provider": identity.provider if identity else "none",
        "embedder_model": identity.model if identity else "",
        "embedder_dimension": str(identity.dimension if identity else 0),
        "embedder_query_prefix": identity.query_prefix if identity else "",
        "embedder_document_prefix": identity.document_prefix if identity else "",
        "embedder_url": getattr(embedder, "url", "") if embedder else "",  # HTTP embedders only
        "tier": config.tier.value,
        "cpg_path": str(cpg_path.resolve()),
        "cpg_digest": digest,
        # Where the source of non-Python definitions was read (query --cpg reads it again).
        "source_root": str(source_root) if source_root else "",
        "treeloom_version": treeloom_version,
        "created_at": meta.get("created_at", now),
        "indexed_at": now,
        "node_count": str(node_count),
    }


def _unchanged_run(
    db_path: Path, config: GrepLoomConfig, digest: str, source_root: Path | None, *, force: bool
) -> IndexResult | None:
    """The result of a run that has nothing to do, or None when there may be work.

    The same CPG file (by sha256), source root, tier, embedder, greploom
    version and summary rules (HASH_VERSION) as the last run means every node
    would hash the same: skip reading the CPG.
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
            and meta.get("tier") == config.tier.value
            and meta.get("greploom_version") == greploom.__version__
            and meta.get("schema_version") == str(SCHEMA_VERSION)
            and meta.get("hash_version") == HASH_VERSION
            and (config.provider is None or config.provider == provider)
            and (config.model is None or config.model == meta.get("embedder_model"))
            and (provider != "local" or meta.get("embedder_model") == local_model)
            and store.counts()["pending"] == 0
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
        warnings=(),
    )


def _embed(
    store: IndexStore,
    *,
    embedder: Embedder,
    keys: tuple[str, ...],
    rows: Mapping[str, NodeRow],
    embed_texts: Mapping[str, str],
    progress: Progress | None,
    deadline: float,
) -> tuple[dict[str, list[float]], int]:
    """Vectors by content hash for every key to embed, and their width (0: none embedded).

    Vectors an unfinished run of this same embedder left in ``pending`` are
    reused; another embedder's never are (``IndexStore.pending_vectors``).
    """
    by_hash: dict[str, str] = {}
    for key in keys:
        by_hash.setdefault(rows[key].content_hash, embed_texts[key])
    space = embedder.identity.space()
    width = embedder.identity.dimension
    vectors = store.pending_vectors(by_hash, space, width)
    todo = [h for h in by_hash if h not in vectors]
    done = len(by_hash) - len(todo)
    if progress:
        progress("embedding", done, len(by_hash))
    for start in range(0, len(todo), EMBED_BATCH):
        batch = todo[start : start + EMBED_BATCH]
        kept = (
            f"embedded {done} of {len(by_hash)} nodes, the previous index is unchanged "
            "and the finished batches are kept for the next run"
        )
        if time.monotonic() > deadline:
            raise EmbedderError(
                f"the index run reached its time limit (GREPLOOM_INDEX_TIMEOUT); {kept}: run it again "
                "to go on"
            )
        try:
            got = embedder.embed_documents([by_hash[h] for h in batch])
        except EmbedderError as exc:
            raise EmbedderError(f"{exc}; {kept}") from exc
        if not width:
            width = len(got[0])
            # Pending vectors of another width are not this embedder's after all.
            stale = [h for h, v in vectors.items() if len(v) != width]
            if stale:
                raise EmbedderError(
                    f"the embedder answers {width}-dim vectors where an earlier run of the same name "
                    "stored others; pass --force to re-embed everything"
                )
        fresh = dict(zip(batch, got, strict=True))
        store.add_pending(fresh, space)
        vectors.update(fresh)
        done += len(batch)
        if progress:
            progress("embedding", done, len(by_hash))
    if not width and vectors:
        width = len(next(iter(vectors.values())))
    return vectors, width
