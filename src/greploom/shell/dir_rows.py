"""The code rows of a source directory's index: every file's, or, after an edit, only those it can change.

A full decision reads every file (greploom.shell.dir_read), links every call
(greploom.core.calls) and makes every row, and keeps each file's facts
(greploom.shell.file_facts) for the next run. After an edit, a partial one:

1. finds the files whose content changed since the facts were kept (edited,
   added, deleted);
2. reads them, and from what they contributed to the code-base-wide tables
   before and after, finds the files whose calls can link otherwise
   (greploom.core.relink.to_resolve);
3. reads those, and links their calls over their graph and every other
   file's scopes (greploom.core.call_scopes): the links a full decision gives;
4. finds the files whose rows can differ (relink.to_rebuild: their calls,
   their callers or a definition named in them changed), reads the ones not
   read yet, and makes their rows;
5. says the run's warnings from every file's report, kept or new.

Every other row is the one the index holds, which is what a full decision
would make again: the same file, read the same, with the same links. A
partial decision gives up (None: decide all) when the facts are not this
index's, when many files changed, when a name could make keys of two files
meet, or when the build root's package name changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from greploom.core.call_scopes import FileScopes, file_scopes, head_of
from greploom.core.calls import CallLinks, Linked, link_calls
from greploom.core.cpg import CpgData, CpgGraph
from greploom.core.freshness import FileStamp
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.relink import Link, contribution, links_by_file, ref_of, to_rebuild, to_resolve, touched
from greploom.core.summary import Tier
from greploom.shell.cpg_parts import PartFaults, content_key, tree_order
from greploom.shell.dir_read import (
    Processed,
    Reader,
    build_rows,
    by_file,
    callers_of,
    joined,
    run_warnings,
)
from greploom.shell.fact_records import FileFacts, UnreadableFacts
from greploom.shell.schema import NodeRow
from greploom.shell.serde import valid_text

# A partial decision is for edits, not for a checkout of another branch: past this share of
# changed files (or of files to link again), deciding everything costs about the same.
PARTIAL_SHARE = 0.25
PARTIAL_MIN = 32  # ... but this many changed files are always decided partially


@attrs.frozen(eq=False)
class DirRows:
    """The code rows decided, and the facts to keep once the index holds them.

    ``rebuilt``: None when ``rows`` are every row; else the files whose rows
    they are (the index keeps the others'). ``definitions``: every definition
    of the code base (a row each), for the docs' links (greploom.shell.doc_rows).
    """

    rows: dict[str, NodeRow]
    embed_texts: dict[str, str]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    treeloom_version: str
    definitions: tuple[NodeIdentity, ...]
    rebuilt: frozenset[str] | None
    facts: tuple[FileFacts, ...]  # to write: every file's (full) or those read again (partial)
    dropped: tuple[str, ...]  # files whose facts go
    root: tuple[bool, str | None]
    reread: int | None = None  # a partial decision: how many files it read


def keeps_facts(files: Sequence[str]) -> bool:
    """Whether facts may be kept of these files: keys embed file names, and a name with ``:`` or
    ``#`` (or not UTF-8) could make the keys of two files meet, which only a whole run sees."""
    return all(":" not in f and "#" not in f and valid_text(f) == f for f in files)


@attrs.frozen
class Run:
    """What a decision reads besides the files: their stamps, the tier, where the CPG came from."""

    files: tuple[str, ...]  # the code files the walk chose
    stamps: Mapping[str, FileStamp]
    tier: Tier
    origin: Path  # the CPG (its parts), for the warnings


def decide_all(reader: Reader, run: Run) -> DirRows:
    """Every code row, from every file."""
    proc = reader.read(run.files, every=True)
    graph = CpgGraph(proc.data)
    idents = node_identities(graph)
    scopes = file_scopes(graph, idents)
    linked = link_calls(graph, idents, _in_order(scopes))
    links = links_by_file(graph, linked.links, {i.node_id: i for i in idents})
    by_key = {i.key: i for i in idents}
    callers = callers_of((x for v in links.values() for x in v), by_key, by_key)
    rows, texts = build_rows(graph, idents, (), linked.links, callers=callers, tier=run.tier)
    reads = dict(linked.reads)
    grouped = by_file(idents)
    facts = tuple(
        _facts(run, f, _Made(grouped.get(f, ()), scopes.get(f), links.get(f, ()), reads.get(f)), proc, by_key)
        for f in run.files
    )
    warnings, notes = run_warnings(
        proc.reports.values(), proc.faults.values(), reader.root, run.origin, empty=not rows
    )
    return DirRows(rows, texts, warnings, notes, reader.version, idents, None, facts, (), linked.root)


LinksOf = Callable[[Iterable[str]], Mapping[str, tuple[Link, ...]] | None]


@attrs.frozen(eq=False)
class Kept:
    """The last run's facts: every file's, read without their scopes and links (``bodies``
    reads a file's scopes, ``links`` the links of some files; None: one did not decode), and
    its build root's package name (greploom.core.calls.Linked.root)."""

    facts: Mapping[str, FileFacts]
    root: tuple[bool, str | None]
    links: LinksOf
    bodies: Callable[[str], FileScopes]


def decide_partly(reader: Reader, run: Run, kept: Kept) -> DirRows | None:
    """The rows an edit can change (None: decide all instead), from the last run's facts."""
    present = frozenset(run.files)
    last = kept.facts
    changed = {
        f for f in run.files if (was := last.get(f)) is None or was.content != content_key(run.stamps.get(f))
    }
    changed |= last.keys() - present
    limit = max(PARTIAL_MIN, int(len(present) * PARTIAL_SHARE))
    if len(changed) > limit:
        return None
    step = _Partial(reader, run, kept, present, frozenset(changed))
    resolve = step.to_resolve()
    if len(resolve) > max(limit, len(present) // 2):
        return None
    try:
        linked = step.link(resolve)
        if linked.root != kept.root:
            return None  # every absolute import reads it
        return step.rows(resolve, linked)
    except UnreadableFacts:
        return None


class _Partial:
    """The steps of a partial decision, over what the earlier ones read."""

    def __init__(
        self, reader: Reader, run: Run, kept: Kept, present: frozenset[str], changed: frozenset[str]
    ) -> None:
        self.reader, self.run, self.kept, self.last = reader, run, kept.facts, kept
        self.present, self.changed = present, changed
        self.first = reader.read(sorted(changed & present))
        self.proc = self.first
        self.mine = _Read.of(self.first)

    def links(self, files: Iterable[str]) -> Mapping[str, tuple[Link, ...]]:
        """The kept links of these files."""
        found = self.last.links(files)
        if found is None:
            raise UnreadableFacts("a record's links do not decode")
        return found

    def to_resolve(self) -> frozenset[str]:
        """1-2. The changed files, and those whose calls read what they contribute."""
        hit: set[str] = set()
        now = self.mine
        for f in self.changed:
            was = self.kept.get(f)
            before = contribution(was.the_head(), was.identities) if was else contribution(None)
            mine = now.scopes.get(f)
            after = (
                contribution(head_of(mine, now.ids), now.idents.get(f, ())) if mine else contribution(None)
            )
            hit |= touched(before, after)
        others = {f: k.reads for f, k in self.kept.items() if f not in self.changed and f in self.present}
        return to_resolve(self.changed, hit, others)

    def link(self, resolve: frozenset[str]) -> Linked:
        """3. The calls of ``resolve``, over their graph and the other files' scopes."""
        more = self.reader.read(sorted((resolve - self.changed) & self.present))
        self.proc = joined((self.first, more), self.reader.version)
        self.mine = _Read.of(self.proc)
        self.keep = {f: k for f, k in self.kept.items() if f in self.present and f not in resolve}
        self.everyone = [*self.mine.all, *(i for k in self.keep.values() for i in k.identities)]
        self.mixed = CpgGraph(CpgData(self.proc.data.nodes, ()))
        heads = [self.keep[f].the_head() for f in sorted(self.keep, key=tree_order)]
        return link_calls(
            self.mixed, self.everyone, _in_order(self.mine.scopes), heads=heads, bodies=self.last.bodies
        )

    def rows(self, resolve: frozenset[str], linked: Linked) -> DirRows:
        """4-5. The rows of the files whose rows can differ, and what the run says."""
        kept, present, changed = self.kept, self.present, self.changed
        by_key = {i.key: i for i in self.everyone}
        new_links = links_by_file(self.mixed, linked.links, {i.node_id: i for i in self.everyone})
        rebuild = self._to_rebuild(resolve, by_key, new_links)
        extra = self.reader.read(sorted(rebuild - resolve))
        read = joined((self.proc, extra), self.reader.version)
        graph = CpgGraph(read.data)
        own = [i for i in node_identities(graph) if i.file in rebuild]
        targets = list(linked.links.targets)
        for file_links in self.links(rebuild - resolve).values():
            targets += [(x.call, by_key[x.target].node_id) for x in file_links if x.target in by_key]
        # The callers of the rebuilt definitions: the links into their files, kept or new.
        into = [f for f, k in self.keep.items() if not k.linked.isdisjoint(rebuild)]
        all_links = [x for v in self.links(into).values() for x in v]
        all_links += [x for v in new_links.values() for x in v]
        callers = callers_of(all_links, {i.key: i for i in own}, by_key)
        links = CallLinks(tuple(sorted(targets)))
        rows, texts = build_rows(graph, own, self.everyone, links, callers=callers, tier=self.run.tier)
        reads = dict(linked.reads)
        facts = tuple(
            _facts(
                self.run,
                f,
                _Made(
                    self.mine.idents.get(f, ()), self.mine.scopes.get(f), new_links.get(f, ()), reads.get(f)
                ),
                read,
                by_key,
            )
            for f in sorted(resolve & present)
        )
        again = (resolve | rebuild) & present
        reports = {f: k.report for f, k in kept.items() if f in present and f not in again}
        reports.update({f: read.reports.get(f) for f in again})
        faults = {f: k.faults for f, k in kept.items() if f in present and f not in again}
        faults.update({f: read.faults.get(f, PartFaults()) for f in again})
        warnings, notes = run_warnings(
            [r for r in reports.values() if r is not None],
            faults.values(),
            self.reader.root,
            self.run.origin,
            empty=not self.everyone,
        )
        return DirRows(
            rows,
            texts,
            warnings,
            notes,
            self.reader.version,
            tuple(self.everyone),
            frozenset(rebuild | changed),
            facts,
            tuple(sorted(changed - present)),
            linked.root,
            len(again),
        )

    def _to_rebuild(
        self,
        resolve: frozenset[str],
        by_key: Mapping[str, NodeIdentity],
        new_links: Mapping[str, tuple[Link, ...]],
    ) -> frozenset[str]:
        kept, changed = self.kept, self.changed
        old = {i.key: i for f in changed if f in kept for i in kept[f].identities}
        new = {i.key: i for i in self.mine.all if i.file in changed}
        refs_changed = {
            k
            for k in old.keys() | new.keys()
            if k not in old or k not in new or ref_of(old[k]) != ref_of(new[k])
        }

        def file_of(key: str) -> str | None:
            found = by_key.get(key) or old.get(key)
            return found.file if found is not None else None

        before = {f: frozenset(v) for f, v in self.links(resolve & kept.keys()).items()}
        after = {f: frozenset(new_links.get(f, ())) for f in resolve if f in self.present}
        return to_rebuild(changed, before, after, refs_changed, file_of) & self.present


@attrs.frozen(eq=False)
class _Read:
    """The identities and scopes of files read, by file."""

    all: tuple[NodeIdentity, ...]
    idents: dict[str, list[NodeIdentity]]
    scopes: dict[str, FileScopes]
    ids: frozenset[str]  # of the identities

    @classmethod
    def of(cls, proc: Processed) -> _Read:
        graph = CpgGraph(proc.data)
        idents = node_identities(graph)
        return cls(idents, by_file(idents), file_scopes(graph, idents), frozenset(i.node_id for i in idents))


def _in_order(scopes: Mapping[str, FileScopes]) -> list[FileScopes]:
    """The files' scopes in treeloom's file order: the order a full decision merges them in."""
    return [scopes[f] for f in sorted(scopes, key=tree_order)]


@attrs.frozen(eq=False)
class _Made:
    """What a decision made of one file: its identities, scopes, links and reads."""

    identities: Sequence[NodeIdentity]
    scopes: FileScopes | None
    links: Sequence[Link]
    reads: frozenset[str] | None


def _facts(
    run: Run, file: str, made: _Made, proc: Processed, by_key: Mapping[str, NodeIdentity]
) -> FileFacts:
    return FileFacts(
        file,
        content_key(run.stamps.get(file)) or "",
        tuple(made.identities),
        made.scopes or FileScopes(file),
        tuple(made.links),
        made.reads or frozenset(),
        proc.reports.get(file),
        proc.faults.get(file, PartFaults()),
        frozenset(by_key[x.target].file for x in made.links if x.target in by_key),
    )
