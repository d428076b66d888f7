"""An index run's gather stage, and the rows it decides from what it gathered.

gather  the CPG (for a source directory, each changed file built by treeloom and
        kept beside the index: greploom.shell.cpg_parts) and the files it was
        built from, stamped before treeloom read them;
decide  every row of the run: the core's keys, summaries, hashes and graph
        contexts of the CPG (greploom.shell.rows), then the docs' and config's
        sections linked to them (greploom.shell.doc_rows).

greploom.shell.indexing runs these, then plans and applies the re-index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import apsw
import attrs

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.errors import GreploomError, UsageError
from greploom.core.freshness import FileStamp
from greploom.shell.config import GrepLoomConfig
from greploom.shell.cpg_parts import EMPTY_PART, PART_BATCH, PartStore, content_key, parts_path
from greploom.shell.doc_rows import doc_rows
from greploom.shell.freshness import stamp_files
from greploom.shell.index_state import installed_treeloom
from greploom.shell.ports import Progress
from greploom.shell.rows import compute_rows
from greploom.shell.schema import MODULE_NAMES, NodeRow
from greploom.shell.serde import check_cpg_file, load_cpg
from greploom.shell.source_files import SourceSet, select_sources, sources_digest, treeloom_files
from greploom.shell.store import IndexStore
from greploom.shell.treeloom import Built, build_parts


def quiet(stage: str, done: int, total: int) -> None:
    """No progress shown."""


@attrs.frozen
class Gathered:
    """What an index run reads: the CPG, and the files it was built from as they were then."""

    cpg_path: Path  # the CPG file, or for a source directory its parts (greploom.shell.cpg_parts)
    warnings: tuple[str, ...]
    selection: SourceSet | None  # None: a CPG file without a source root
    stamps: dict[str, FileStamp] | None  # taken before treeloom read the files (None: none)
    files_digest: str  # of the files, also taken before treeloom read them
    digest: str | None  # what the CPG was built from, for a source directory (None: hash the file)
    parts: PartStore | None = None  # a source directory's CPG, open for the run


def gather_cpg(
    source: Path, config: GrepLoomConfig, progress: Progress | None = None, *, force: bool = False
) -> Gathered:
    """The CPG to index (built by treeloom for a source directory) and the files it was built from.

    The files' stamps and fingerprint are taken before treeloom reads them, so
    a file edited during the build is seen as changed by the next run (and its
    blocks as stale), never recorded as indexed. A source directory is built
    file by file, and only the files whose content changed since the parts
    beside the index were built (all of them with ``force``).
    """
    if source.is_dir():
        selection = select_sources(
            source,
            config.exclude,
            include_vendored=config.include_vendored,
            include=config.include,
            within=config.within,
        )
        files_digest = sources_digest(selection)
        stamps = stamp_files(selection.root, (*selection.files, *selection.docs))
        parsed = treeloom_files(selection)
        db_path = config.db_path
        db_path.with_name(db_path.stem + ".cpg.json").unlink(missing_ok=True)  # what greploom < 0.7 kept
        parts = PartStore(parts_path(db_path), installed_treeloom() or "")
        try:
            digest = _build_parts(source, parts, parsed, stamps, progress, force=force)
        except BaseException:
            parts.close()
            raise
        said = (parts.reset_reason,) if parts.reset_reason else ()
        return Gathered(parts.path, said, selection, stamps, files_digest, digest, parts)
    check_cpg_file(source)
    source_root = config.source_root.resolve() if config.source_root else None
    if source_root is None:
        return Gathered(source, (), None, None, "", None)
    if not source_root.is_dir():
        raise UsageError(f"the source root {source_root} is not a directory")
    selection = select_sources(source_root)
    stamps = stamp_files(selection.root, (*selection.files, *selection.docs))
    return Gathered(source, (), selection, stamps, sources_digest(selection), None)


def _build_parts(
    source: Path,
    parts: PartStore,
    files: Sequence[str],
    stamps: Mapping[str, FileStamp],
    progress: Progress | None,
    *,
    force: bool,
) -> str:
    """Build the parts of the files that changed (committed in batches); the digest of them all."""
    parts.keep_only(() if force else files)
    todo = parts.to_build(files, stamps)
    say = (progress or quiet) if todo else quiet  # nothing to build: no stage to show
    say("building the CPG", 0, len(todo))
    batch: list[tuple[str, str, bytes]] = []
    stored = 0

    def flush() -> None:
        nonlocal stored
        parts.put_many(batch)
        stored += len(batch)
        batch.clear()
        say("building the CPG", stored, len(todo))

    def done(built: Built) -> None:
        batch.append((built.file, content_key(stamps.get(built.file)) or "", built.part or EMPTY_PART))
        if len(batch) >= PART_BATCH:
            flush()

    build_parts(source, todo, (k.value for k in USED_EDGE_KINDS), done)
    if batch:
        flush()
    return parts.digest(files)


def known_names(
    db_path: Path, stamps: Mapping[str, FileStamp] | None, *, force: bool
) -> dict[str, tuple[tuple[str, int], ...]]:
    """The top-level names the last run stored for the files unchanged since (same sha256)."""
    if force or not stamps or not db_path.is_file():
        return {}
    try:
        with IndexStore.open_existing(db_path, readonly=True) as store:
            if store.meta().get(MODULE_NAMES) != "1":
                return {}  # written before greploom kept them: every file is read
            recorded = store.file_stamps(stamps)
            same = [
                f
                for f, stamp in stamps.items()
                if stamp.sha256 and (was := recorded.get(f)) and was.sha256 == stamp.sha256
            ]
            return store.module_names_of(same)
    except (GreploomError, apsw.Error):
        return {}  # a damaged index is the run's to report, not this shortcut's


def decided_rows(
    gathered: Gathered, config: GrepLoomConfig, say: Progress, *, force: bool
) -> tuple[dict[str, NodeRow], dict[str, str], tuple[str, ...], str, tuple[str, ...]]:
    """Every row of the run (code, then docs and config sections linked to it), their embed
    texts, the warnings, the treeloom version and the notes of deciding them."""
    selection, cpg_path = gathered.selection, gathered.cpg_path
    say("reading the CPG", 0, 1)
    data = (
        gathered.parts.read(treeloom_files(selection), installed_treeloom() or "")
        if gathered.parts is not None and selection is not None
        else load_cpg(cpg_path, USED_EDGE_KINDS)
    )
    rows, embed_texts, warnings, treeloom_version, notes = compute_rows(
        data,
        config.tier,
        selection.root if selection is not None else None,
        walk=True,
        files=selection.files if selection else None,
        origin=cpg_path,
        known_names=known_names(config.db_path, gathered.stamps, force=force),
    )
    del data  # the graph (most of a big run's memory) is not needed past its rows: not beside the model
    say("reading the CPG", 1, 1)
    if selection is None:
        return rows, embed_texts, warnings, treeloom_version, notes
    # The docs' parses are kept beside a source directory's index (greploom.shell.doc_cache).
    cache = gathered.parts.doc_cache() if gathered.parts is not None else None
    rows, doc_texts, docs = doc_rows(selection.root, selection.docs, config.tier, rows, cache)
    return (
        rows,
        {**embed_texts, **doc_texts},
        (*warnings, *docs.warnings()),
        treeloom_version,
        (*notes, *docs.notes(selection.secret_files)),
    )
