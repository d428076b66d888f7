"""An index run's gather stage: the CPG and the files it was built from.

gather  the CPG (for a source directory, each changed file built by treeloom and
        kept beside the index: greploom.shell.cpg_parts) and the files it was
        built from, stamped before treeloom read them.

greploom.shell.index_decide decides the rows from what it gathered;
greploom.shell.indexing runs both, then plans and applies the re-index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import attrs

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.errors import UsageError
from greploom.core.freshness import FileStamp
from greploom.shell.config import GrepLoomConfig
from greploom.shell.cpg_parts import EMPTY_PART, PART_BATCH, PartStore, content_key, parts_path
from greploom.shell.file_facts import Prefetch
from greploom.shell.freshness import stamp_files
from greploom.shell.index_state import installed_treeloom
from greploom.shell.ports import Progress
from greploom.shell.serde import check_cpg_file
from greploom.shell.source_files import SourceSet, select_sources, sources_digest, treeloom_files
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
    treeloom: tuple[str, ...] = ()  # the files of a source directory treeloom builds
    prefetch: Prefetch | None = None  # the last run's facts, read while treeloom built (file_facts)


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
        db_path = config.db_path
        db_path.with_name(db_path.stem + ".cpg.json").unlink(missing_ok=True)  # what greploom < 0.7 kept
        parts = PartStore(parts_path(db_path), installed_treeloom() or "")
        try:
            # A file whose part was built from this very content (its sha256) was one treeloom
            # builds, and still is: what decides it (size, text) is the content.
            built = parts.contents()
            parsed = treeloom_files(selection, known=lambda f: _built_from(stamps.get(f), built.get(f)))
            prefetch: list[Prefetch] = []

            def meanwhile() -> None:  # a run after an edit needs the last run's facts next
                if not force:
                    prefetch.append(Prefetch(parts.path, parts.identity))

            digest = _build_parts(source, parts, parsed, stamps, progress, force=force, meanwhile=meanwhile)
        except BaseException:
            parts.close()
            raise
        said = (parts.reset_reason,) if parts.reset_reason else ()
        early = prefetch[0] if prefetch else None
        return Gathered(
            parts.path, said, selection, stamps, files_digest, digest, parts, tuple(parsed), early
        )
    check_cpg_file(source)
    source_root = config.source_root.resolve() if config.source_root else None
    if source_root is None:
        return Gathered(source, (), None, None, "", None)
    if not source_root.is_dir():
        raise UsageError(f"the source root {source_root} is not a directory")
    selection = select_sources(source_root)
    stamps = stamp_files(selection.root, (*selection.files, *selection.docs))
    return Gathered(source, (), selection, stamps, sources_digest(selection), None)


def _built_from(stamp: FileStamp | None, part: str | None) -> bool:
    """Whether a file's stored part was built from its content as stamped now: the same sha256
    (not size and time, which a file too big to hash is known by)."""
    return stamp is not None and bool(stamp.sha256) and stamp.sha256 == part


def _build_parts(
    source: Path,
    parts: PartStore,
    files: Sequence[str],
    stamps: Mapping[str, FileStamp],
    progress: Progress | None,
    *,
    force: bool,
    meanwhile: Callable[[], None] = lambda: None,
) -> str:
    """Build the parts of the files that changed (committed in batches); the digest of them all.
    ``meanwhile`` is called when there is something to build, before treeloom starts."""
    parts.keep_only(() if force else files)
    todo = parts.to_build(files, stamps)
    if todo:
        meanwhile()
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
