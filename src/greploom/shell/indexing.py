"""The index use case: gather the CPG and the stored state, let the core plan, apply it.

gather  read the CPG (for a source directory, building it with treeloom from
        the files its ignore rules keep) and decide its rows and the docs'
        (greploom.shell.index_gather), read the stored (key, hash) pairs and the
        recorded embedder;
decide  the re-index plan (core);
act     embed what changed in batches (each committed to ``pending``), then
        switch everything in one transaction.

A run that fails or is killed before the switch leaves the previous index
exactly as it was; the vectors it computed wait in ``pending`` for the next
run. An OS file lock next to the index keeps two runs from interleaving.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import apsw
import attrs

from greploom.core.errors import CorruptIndexError, CpgError, EmbedderError, UsageError
from greploom.core.freshness import FileStamp
from greploom.core.ignore import IgnoreRules, left_out_counts
from greploom.core.plan import ReindexPlan, plan_reindex
from greploom.shell.assets import sha256_of
from greploom.shell.config import BATCH_TIMEOUT_S, GrepLoomConfig
from greploom.shell.embedders import make_embedder, provider_for_urls
from greploom.shell.faults import damaged_index, storage_faults
from greploom.shell.index_decide import Decided, decided_rows
from greploom.shell.index_embed import EMBED_BATCH, embed_run, searchable_first
from greploom.shell.index_gather import Gathered, gather_cpg, quiet
from greploom.shell.index_state import (
    IndexResult,
    recorded_identity,
    run_meta,
    unchanged_run,
)
from greploom.shell.lock import index_lock
from greploom.shell.ports import Embedder, EmbedderIdentity, Progress
from greploom.shell.schema import BUILDING, MODULE_NAMES
from greploom.shell.source_files import SourceSet
from greploom.shell.store import IndexStore

__all__ = ["EMBED_BATCH", "IndexResult", "run_index", "set_aside"]  # IndexResult: greploom's public API


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
    if not source.is_dir() and (config.exclude or config.include_vendored or config.include):
        flag = "--exclude" if config.exclude else "--include" if config.include else "--include-vendored"
        raise UsageError(
            f"{flag} chooses the files of a source directory, and {source} is a CPG file: "
            "pass the directory, or choose the files when running `treeloom build`"
        )
    if config.exclude or config.include:  # a bad pattern is bad usage, before anything is written
        IgnoreRules.create(config.exclude, include=config.include)
    db_path = config.db_path
    with storage_faults(db_path, "write the index"), rare_collections():
        make_index_dir(db_path.parent)
        with index_lock(db_path):
            return _locked_run(source, config, progress, force=force, started=started)


# An index run builds a graph of hundreds of thousands of objects (numpy: 380k CPG
# nodes) that it keeps until its rows are decided: Python's cyclic collector, run every
# 700 allocations, walks all of it again and again. A run lets it start every
# GC_ALLOCATIONS instead. The graph holds no reference cycle (greploom.core.calls breaks
# the one it had), so it is freed when the run lets go of it, before the model loads,
# without a collection. Measured on numpy, edit one file: 22.0 s -> 17.4 s with a full
# collection after the graph (1.5M objects in a cycle then), 10.2-11.0 s and 550 MB once
# the cycle was gone and that collection with it (no collector at all: 16.6 s, 780 MB,
# before).
GC_ALLOCATIONS = 1_000_000


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """Run the cyclic collector every :data:`GC_ALLOCATIONS` allocations within the block."""
    saved = gc.get_threshold()
    gc.set_threshold(GC_ALLOCATIONS, *saved[1:])
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def make_index_dir(folder: Path) -> None:
    """Create the index's folder when it is missing, with a ``.gitignore`` of ``*`` in it,
    so that it never shows in ``git status``; an existing folder is left as it is."""
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with (folder / ".gitignore").open("x", encoding="utf-8") as handle:
            handle.write("# created by greploom: the index is not source\n*\n")
    except FileExistsError:
        pass


def _locked_run(
    source: Path, config: GrepLoomConfig, progress: Progress | None, *, force: bool, started: float
) -> IndexResult:
    """The run itself, holding the index's lock."""
    gathered = gather_cpg(source, config, progress, force=force)
    try:
        return _index_gathered(gathered, source, config, progress, force=force, started=started)
    finally:
        if gathered.parts is not None:
            gathered.parts.close()


def _index_gathered(
    gathered: Gathered,
    source: Path,
    config: GrepLoomConfig,
    progress: Progress | None,
    *,
    force: bool,
    started: float,
) -> IndexResult:
    """Decide the rows of the gathered CPG and apply them (the run's part after treeloom)."""
    say = progress or quiet
    db_path = config.db_path
    cpg_path, built_warnings, selection = gathered.cpg_path, gathered.warnings, gathered.selection
    source_root = selection.root if selection is not None else None
    note = selection.note() if selection is not None and source.is_dir() else None
    left_out = (note,) if note else ()
    digest = gathered.digest or sha256_of(cpg_path)
    files_digest = gathered.files_digest
    unchanged = unchanged_run(db_path, config, digest, files_digest, source_root, force=force)
    if unchanged is not None:
        return attrs.evolve(
            unchanged,
            cpg_path=cpg_path,
            seconds=time.monotonic() - started,
            warnings=(*built_warnings, *unchanged.warnings),
            notes=left_out,
        )
    stamps = gathered.stamps
    decided: Decided | None = None
    if gathered.parts is None:  # a CPG file: read (and checked) before the index is opened
        decided = decided_rows(gathered, config, say, force=force, store=db_path)
    store, set_aside = _open_for_run(db_path, source, force=force)
    try:
        meta = store.meta()
        recorded = recorded_identity(meta)
        embedder = _choose_embedder(config, meta, force=force)
        # With no vector table yet (a first run, or one after a lexical-only or an
        # empty index) every row needs its vector, not only the changed ones.
        # ... and so does every row after a first run that stopped before its end (BUILDING).
        unfinished = bool(meta.get(BUILDING)) or recorded is None
        full = force or (embedder is not None and (unfinished or store.vector_width() == 0))
        if decided is None:
            try:
                decided = decided_rows(
                    gathered,
                    config,
                    say,
                    force=force,
                    store=store,
                    partial=_keeps_rows(store, meta, full=full),
                )
            except BaseException:
                if embedder is not None:
                    embedder.close()
                raise
        warnings = (*built_warnings, *decided.warnings)
        notes = (*left_out, *decided.notes)
        if set_aside is not None:
            warnings = (*warnings, f"the index was damaged: moved it to {set_aside} and built a new one")
        stored = store.stored_entries()
        current = decided.entries(stored)
        if source.is_dir() and not current:
            warnings = (*warnings, _nothing_found(source, selection))
        plan = plan_reindex(stored, current, force=full)
        meta_for = functools.partial(
            run_meta,
            meta,
            embedder=embedder,
            config=config,
            cpg_path=cpg_path,
            digest=digest,
            source_root=source_root,
            files_digest=files_digest,
            treeloom_version=decided.treeloom_version,
            node_count=len(current),
            warnings=warnings,
        )
        identity = _embed_and_switch(
            store,
            embedder,
            decided,
            plan,
            meta_for,
            meta=meta,
            config=config,
            progress=progress,
            deadline=started + config.index_timeout,
            full=full,
            stamps=stamps,
        )
    finally:
        store.close()
    return IndexResult(
        total=len(current),
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
        notes=notes,
        reread=decided.reread,
    )


def _embed_and_switch(
    store: IndexStore,
    embedder: Embedder | None,
    decided: Decided,
    plan: ReindexPlan,
    meta_for: Callable[..., dict[str, str]],
    *,
    meta: Mapping[str, str],
    config: GrepLoomConfig,
    progress: Progress | None,
    deadline: float,
    full: bool,
    stamps: Mapping[str, FileStamp] | None,
) -> EmbedderIdentity | None:
    """Embed what the plan says, switch the index to the decided rows in one transaction, and
    keep the decision's facts beside it; the embedder the index records."""
    say = progress or quiet
    rows = decided.rows
    vectors: dict[str, list[float]] | None = None
    identity = embedder.identity if embedder else None
    if embedder is not None:
        # A first run (or one after a first run that stopped) is searchable before
        # its vectors are: rows, words and graph now, each batch's vectors as it ends.
        first = searchable_first(store, meta, plan, rows, embedder, meta_for=meta_for, stamps=stamps)
        vectors, identity = embed_run(
            store,
            embedder,
            plan=plan,
            rows=rows,
            embed_texts=decided.embed_texts,
            progress=progress,
            deadline=deadline,
            recorded=recorded_identity(meta),
            keep_width=not full,
            fill=first,
        )
    new_meta = meta_for(identity=identity) | {BUILDING: "", MODULE_NAMES: "1"}
    say("writing the index", 0, len(rows))
    store.switch(
        plan,
        rows,
        vectors,
        identity.dimension if identity else 0,
        new_meta,
        reset_vectors=full and vectors is not None,
        files=stamps,
        partial=decided.rebuilt is not None,
    )
    say("writing the index", len(rows), len(rows))
    decided.keep(new_meta)
    return identity


def _keeps_rows(store: IndexStore, meta: Mapping[str, str], *, full: bool) -> Mapping[str, str] | None:
    """The index's meta when this run may keep its rows (greploom.shell.dir_rows): a run that
    keeps its vectors, over an index a run completed, that was not set aside and lacks no table
    whose rows a full run makes."""
    if full or not meta.get("indexed_at") or store.added:
        return None
    return meta


def _nothing_found(source: Path, selection: SourceSet | None) -> str:
    """Why a source directory gave no node: no code files, or the rules left them all out."""
    if selection is not None and not selection.files and selection.left_out:
        total = sum(n for _why, n in selection.left_out)
        counts = left_out_counts(dict(selection.left_out), selection.vendored)
        return f"found no source files to index in {source}; the ignore rules left out all {total}: {counts}"
    return f"found no supported source files in {source}"


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
