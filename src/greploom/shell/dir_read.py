"""Reading some files of a source directory, and the rows of their definitions.

The pieces greploom.shell.dir_rows puts together, for every file or only
those an edit can change; each depends on the files it is given alone, or on
values kept per file (greploom.shell.file_facts), never on the order or the
company files are read in:

- :class:`Reader` reads files: their parts of the CPG (greploom.shell.cpg_parts)
  and their sources (greploom.shell.sources), each file's report apart;
- :func:`build_rows` makes the rows of some definitions, given the links of
  their calls and the definitions calling them (greploom.core.context);
- :func:`run_warnings` says the run's warnings from the files' reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from greploom.core.calls import CallLinks
from greploom.core.context import resolve_contexts
from greploom.core.cpg import CpgData, CpgGraph, NodeKind
from greploom.core.keys import NodeIdentity
from greploom.core.relink import Link
from greploom.core.summary import Tier
from greploom.core.top_names import TOP_NAMES_ATTR, parse_top_names
from greploom.shell.cpg_parts import PartFaults, PartStore
from greploom.shell.rows import row_of, summarized
from greploom.shell.schema import NodeRow
from greploom.shell.sources import SourceReport, merge_reports, read_sources_by_file

KnownNames = Callable[[Sequence[str]], Mapping[str, tuple[tuple[str, int], ...]]]


@attrs.frozen
class Processed:
    """Some files read: their nodes and edges as the core sees them, each file's report and faults."""

    data: CpgData
    reports: Mapping[str, SourceReport]
    faults: Mapping[str, PartFaults]


class Reader:
    """Reads files of one source directory: ``treeloom`` those with parts, ``known`` the top-level
    names the index holds for files unchanged since (greploom.shell.module_names)."""

    def __init__(
        self, parts: PartStore, root: Path, treeloom: Iterable[str], version: str, known: KnownNames
    ) -> None:
        self.parts = parts
        self.root = root
        self.treeloom = frozenset(treeloom)
        self.version = version
        self.known = known

    def read(self, files: Sequence[str], *, every: bool = False) -> Processed:
        """The given code files (``every``: all of them, read in one pass)."""
        ordered = sorted(files)
        if not ordered:
            return Processed(CpgData((), (), self.version), {}, {})
        built = [f for f in ordered if f in self.treeloom]
        data, faults = self.parts.read_files(built, self.version, every=every)
        done, reports = read_sources_by_file(
            data, self.root, walk=True, files=ordered, known_names=self.known(ordered)
        )
        return Processed(done, reports, faults)


def joined(parts: Iterable[Processed], version: str) -> Processed:
    """Several reads as one."""
    items = list(parts)
    nodes = tuple(n for p in items for n in p.data.nodes)
    edges = tuple(e for p in items for e in p.data.edges)
    reports = {f: r for p in items for f, r in p.reports.items()}
    faults = {f: x for p in items for f, x in p.faults.items()}
    return Processed(CpgData(nodes, edges, version), reports, faults)


def by_file(identities: Iterable[NodeIdentity]) -> dict[str, list[NodeIdentity]]:
    """Identities grouped by their file, in order."""
    out: dict[str, list[NodeIdentity]] = {}
    for ident in identities:
        out.setdefault(ident.file, []).append(ident)
    return out


def callers_of(
    links: Iterable[Link], wanted: Mapping[str, NodeIdentity], by_key: Mapping[str, NodeIdentity]
) -> dict[str, list[NodeIdentity]]:
    """Node id of each ``wanted`` definition (by key) -> the definitions whose calls link to it."""
    out: dict[str, list[NodeIdentity]] = {}
    for link in links:
        target = wanted.get(link.target)
        caller = by_key.get(link.caller)
        if target is not None and caller is not None:
            out.setdefault(target.node_id, []).append(caller)
    return out


def build_rows(
    graph: CpgGraph,
    own: Sequence[NodeIdentity],
    known: Sequence[NodeIdentity],
    links: CallLinks,
    *,
    callers: Mapping[str, Sequence[NodeIdentity]],
    tier: Tier,
) -> tuple[dict[str, NodeRow], dict[str, str]]:
    """The rows of the definitions ``own`` (their files' nodes are the graph's) and their embed texts.

    ``known``: every definition a link may name; ``links`` those of the graph's
    calls; ``callers``: node id -> the definitions whose calls link to it."""
    qualnames = {i.node_id: i.qualname for i in known}
    qualnames.update((i.node_id, i.qualname) for i in own)
    summaries, embed_texts, hashes = summarized(graph, own, qualnames, tier, links)
    contexts = resolve_contexts(graph, own, summaries, links, callers=callers, known=known)
    # A top-level name with a definition row of its own in that file (an exported JavaScript
    # const the outline emits) is found as itself: its module does not bind it twice.
    defined = {(c.ref.file, c.ref.name) for c in contexts if c.ref.kind != "module"}
    top = {
        ident.node_id: tuple(
            nl for nl in parse_top_names(node.attr(TOP_NAMES_ATTR)) if (node.file, nl[0]) not in defined
        )
        for ident in own
        if ident.kind is NodeKind.MODULE and (node := graph.node(ident.node_id)) is not None
    }
    rows = {c.ref.key: row_of(c, hashes[c.ref.key], top.get(c.node_id, ())) for c in contexts}
    return rows, embed_texts


def run_warnings(
    reports: Iterable[SourceReport], faults: Iterable[PartFaults], root: Path, origin: Path, *, empty: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The run's warnings and notes from its files' reports and parts' faults (``empty``: no
    definition at all)."""
    report = merge_reports(reports)
    counts = list(faults)
    skipped_nodes = sum(f.skipped_nodes for f in counts)
    skipped_edges = sum(f.skipped_edges for f in counts)
    dangling = sum(f.dangling_edges for f in counts)
    duplicates = sum(f.duplicate_ids for f in counts)
    warnings = list(report.warnings(root))
    if skipped_nodes or skipped_edges:
        warnings.append(
            f"skipped {skipped_nodes} nodes and {skipped_edges} edges of kinds this "
            "greploom does not know (a newer treeloom?)"
        )
    if dangling:
        warnings.append(f"ignored {dangling} edges that name missing nodes")
    if duplicates:
        warnings.append(f"ignored {duplicates} nodes with duplicate ids (kept the first)")
    if empty:
        warnings.append(f"the CPG {origin} holds no function, class or module nodes")
    return tuple(warnings), report.notes()
