"""An index run's decide stage: the rows of what greploom.shell.index_gather gathered.

decide  the code's rows (for a source directory greploom.shell.dir_rows:
        every file's, or after an edit those it can change; for a CPG file
        greploom.shell.rows), then the docs' and config's sections linked to
        them (greploom.shell.doc_rows).

greploom.shell.indexing plans and applies the re-index from the decision,
then lets it keep the facts of the files beside the index
(:attr:`Decided.keep`), once the index holds the rows they are of.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import apsw
import attrs

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.errors import GreploomError
from greploom.core.freshness import FileStamp
from greploom.core.plan import IndexEntry
from greploom.shell.config import GrepLoomConfig
from greploom.shell.dir_read import Reader
from greploom.shell.dir_rows import DirRows, Kept, Run, decide_all, decide_partly, keeps_facts
from greploom.shell.doc_rows import CodeTarget, doc_rows, documented
from greploom.shell.fact_records import encode
from greploom.shell.file_facts import FactStore, RunFacts, run_of, same_rules
from greploom.shell.index_gather import Gathered
from greploom.shell.index_state import installed_treeloom
from greploom.shell.ports import Progress
from greploom.shell.rows import compute_rows
from greploom.shell.schema import MODULE_NAMES, NodeRow
from greploom.shell.serde import load_cpg
from greploom.shell.store import IndexStore


def _nothing(meta: Mapping[str, str]) -> None:
    """Nothing to keep beside the index."""


@attrs.frozen(eq=False)
class Decided:
    """The rows an index run writes, with their embed texts, warnings, treeloom version and notes.

    ``rebuilt``: None when ``rows`` are every row of the index; else the code
    files whose rows they are, besides the docs' (the index keeps every other
    row, and rows of other files whose docs changed are among ``rows``).
    ``keep``: call with the index's new meta once it holds the rows.
    """

    rows: dict[str, NodeRow]
    embed_texts: dict[str, str]
    warnings: tuple[str, ...]
    treeloom_version: str
    notes: tuple[str, ...]
    rebuilt: frozenset[str] | None = None
    keep: Callable[[Mapping[str, str]], None] = _nothing
    reread: int | None = None  # a partial decision: how many code files it read

    def entries(self, stored: Sequence[IndexEntry]) -> list[IndexEntry]:
        """Every current row's plan entry: the decided rows', and the stored ones a partial run keeps."""
        mine = [r.entry() for r in self.rows.values()]
        if self.rebuilt is None:
            return mine
        gone = self.rebuilt
        kept = [e for e in stored if e.key not in self.rows and e.file not in gone and not _prose(e.key)]
        return kept + mine


def _prose(key: str) -> bool:
    """A docs' or config's section (greploom.core.doc_sections keys): every run decides them all."""
    return key.startswith(("doc:", "config:"))


def known_names(
    store: IndexStore | Path | None,
    stamps: Mapping[str, FileStamp] | None,
    files: Sequence[str],
    *,
    force: bool,
) -> dict[str, tuple[tuple[str, int], ...]]:
    """The top-level names the last run stored for the files unchanged since (same sha256);
    ``store``: the index open for the run, or its path (opened to read them)."""
    if force or not stamps or store is None:
        return {}
    if isinstance(store, Path):
        if not store.is_file():
            return {}
        try:
            with IndexStore.open_existing(store, readonly=True) as opened:
                return known_names(opened, stamps, files, force=force)
        except (GreploomError, apsw.Error):
            return {}  # a damaged index is the run's to report, not this shortcut's
    try:
        if store.meta().get(MODULE_NAMES) != "1" or "module_names" in store.added:
            return {}  # written before greploom kept them (the table is new): every file is read
        mine = {f: stamps[f] for f in files if f in stamps}
        recorded = store.file_stamps(mine)
        same = [
            f
            for f, stamp in mine.items()
            if stamp.sha256 and (was := recorded.get(f)) and was.sha256 == stamp.sha256
        ]
        return store.module_names_of(same)
    except (GreploomError, apsw.Error):
        return {}  # a damaged index is the run's to report, not this shortcut's


def decided_rows(
    gathered: Gathered,
    config: GrepLoomConfig,
    say: Progress,
    *,
    force: bool,
    store: IndexStore | Path | None,
    partial: Mapping[str, str] | None = None,
) -> Decided:
    """Every row of the run (code, then docs and config sections linked to it), or with
    ``partial`` (the index's meta, when the run may keep its rows) those that can differ.
    ``store``: the index, open for the run (its stored names, and rows whose docs changed),
    or its path (a CPG file's run reads the CPG before it opens the index)."""
    selection, cpg_path, stamps = gathered.selection, gathered.cpg_path, gathered.stamps
    say("reading the CPG", 0, 1)
    if gathered.parts is None or selection is None:
        data = load_cpg(cpg_path, USED_EDGE_KINDS)
        files = selection.files if selection else None
        rows, embed_texts, warnings, treeloom_version, notes = compute_rows(
            data,
            config.tier,
            selection.root if selection is not None else None,
            walk=True,
            files=files,
            origin=cpg_path,
            known_names=known_names(store, stamps, files or sorted(stamps or ()), force=force),
        )
        del data  # the graph (most of a big run's memory) is not needed past its rows: not beside the model
        say("reading the CPG", 1, 1)
        if selection is None:
            return Decided(rows, embed_texts, warnings, treeloom_version, notes)
        targets = [CodeTarget.of_row(r) for r in rows.values()]
        docs, doc_texts, named, report = doc_rows(selection.root, selection.docs, config.tier, targets)
        rows = {k: documented(r, named) for k, r in rows.items()}
        return Decided(
            {**rows, **docs},
            {**embed_texts, **doc_texts},
            (*warnings, *report.warnings()),
            treeloom_version,
            (*notes, *report.notes(selection.secret_files)),
        )
    parts = gathered.parts
    facts = FactStore(parts.connection(), parts.identity)
    version = installed_treeloom() or ""

    def names(files: Sequence[str]) -> Mapping[str, tuple[tuple[str, int], ...]]:
        return known_names(store, stamps, files, force=force)

    reader = Reader(parts, selection.root, gathered.treeloom, version, names)
    run = Run(selection.files, stamps or {}, config.tier, cpg_path)
    usable = keeps_facts(selection.files)
    early = gathered.prefetch.result() if gathered.prefetch is not None else None
    last = (early[0] if early else facts.run()) if usable and partial is not None else None
    code: DirRows | None = None
    if (
        last is not None
        and partial is not None
        and last.run == run_of(partial)
        and same_rules(partial, config.tier.value)
    ):
        kept = early[1] if early else facts.read()
        if kept is not None:
            code = decide_partly(reader, run, Kept(kept, last.root, facts.links, facts.body))
    if code is None:
        code, last = decide_all(reader, run), None
    say("reading the CPG", 1, 1)
    # The docs' parses are kept beside a source directory's index (greploom.shell.doc_cache).
    targets = [
        CodeTarget(i.key, i.name, i.declared or i.kind.value, i.qualname, i.file, i.line)
        for i in code.definitions
    ]
    docs, doc_texts, named, report = doc_rows(
        selection.root, selection.docs, config.tier, targets, parts.doc_cache()
    )
    rows = {k: documented(r, named) for k, r in code.rows.items()}
    if last is not None and isinstance(store, IndexStore):
        # Rows kept from the last run whose docs changed are written again, with the new ones.
        before = dict(last.documented)
        moved = {k for k in before.keys() | named.keys() if before.get(k) != named.get(k) and k not in rows}
        for key, row in store.rows(moved).items():
            structure = attrs.evolve(row.structure, documented_by=named.get(key, ()))
            rows[key] = attrs.evolve(row, structure=structure)
    # Kept as bytes until the index holds the rows: the records' values are many (numpy: a
    # node per definition), their bytes a few MB.
    records = [encode(f) for f in code.facts] if usable else []
    root, dropped, every = code.root, code.dropped, code.rebuilt is None

    def keep(meta: Mapping[str, str]) -> None:
        if not usable:
            facts.forget()
            return
        shared = RunFacts(run_of(meta), root, tuple(sorted(named.items())))
        facts.write(records, shared, drop=dropped, every=every)

    return Decided(
        {**rows, **docs},
        {**code.embed_texts, **doc_texts},
        (*code.warnings, *report.warnings()),
        code.treeloom_version,
        (*code.notes, *report.notes(selection.secret_files)),
        code.rebuilt,
        keep,
        code.reread,
    )
