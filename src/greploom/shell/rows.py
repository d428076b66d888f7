"""The rows an index of a CPG holds, decided by the core from the CPG and its files.

Shared by index runs (greploom.shell.indexing) and ``query --cpg``
(greploom.shell.querying), so the graph an answer expands through is the one
an index run would store: the same definitions, summaries and call links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from greploom.core.calls import CallLinks, resolve_calls
from greploom.core.context import USED_EDGE_KINDS, resolve_contexts
from greploom.core.cpg import CpgData, CpgGraph, NodeKind
from greploom.core.expand import NodeContext
from greploom.core.hashing import content_hash
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.summary import Tier, summarize_node
from greploom.core.top_names import TOP_NAMES_ATTR, parse_top_names
from greploom.shell.schema import NodeRow
from greploom.shell.serde import load_cpg
from greploom.shell.sources import read_sources


@attrs.frozen
class Resolved:
    """Every indexable node's context (graph, summary, source) with its embed text and hash."""

    contexts: tuple[NodeContext, ...]
    embed_texts: dict[str, str]  # key -> the text its vector is computed from
    hashes: dict[str, str]  # key -> content hash


def resolve(data: CpgData, tier: Tier) -> tuple[CpgGraph, Resolved]:
    """Keys, summaries, call links and graph contexts of every definition, once."""
    graph = CpgGraph(data)
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    links = resolve_calls(graph, idents)  # once: summaries and contexts name the same callees
    summaries, embed_texts, hashes = summarized(graph, idents, qualnames, tier, links)
    contexts = resolve_contexts(graph, idents, summaries, links)
    return graph, Resolved(contexts, embed_texts, hashes)


def summarized(
    graph: CpgGraph,
    idents: Iterable[NodeIdentity],
    qualnames: Mapping[str, str],
    tier: Tier,
    links: CallLinks,
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Each definition's summary, embed text and content hash, by key (an index run decides
    every row with it, or a partial run the rows of the files it re-read)."""
    summaries: dict[str, str] = {}
    embed_texts: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None  # identities are of the graph's nodes
        summary = summarize_node(graph, node, qualnames, tier, links)
        source = node.attr("source_text")
        summaries[ident.key] = summary.text
        embed_texts[ident.key] = summary.embed_text
        hashes[ident.key] = content_hash(
            summary.embed_text, source if isinstance(source, str) else None, tier
        )
    return summaries, embed_texts, hashes


def cpg_graph(
    cpg_path: Path, tier: Tier, source_root: Path | None = None, *, walk: bool = False
) -> dict[str, NodeContext]:
    """The graph of a CPG file, resolved as an index run would (for ``query --cpg``)."""
    data, _report = read_sources(load_cpg(cpg_path, USED_EDGE_KINDS), source_root, walk=walk)
    return {c.ref.key: c for c in resolve(data, tier)[1].contexts}


def row_of(ctx: NodeContext, content_hash: str, names: tuple[tuple[str, int], ...] = ()) -> NodeRow:
    """The stored row of one node (its search columns are tokenised when written: NodeRow.fts)."""
    return NodeRow(
        key=ctx.ref.key,
        node_id=ctx.node_id,
        kind=ctx.ref.kind,
        name=ctx.ref.name,
        qualname=ctx.qualname,
        file=ctx.ref.file,
        line=ctx.ref.line,
        end_line=ctx.end_line,
        summary=ctx.summary,
        content_hash=content_hash,
        source=ctx.source,
        structure=ctx.structure,
        names=names,
    )


def compute_rows(
    cpg: CpgData,
    tier: Tier,
    source_root: Path | None = None,
    *,
    walk: bool = False,
    files: Sequence[str] | None = None,
    origin: Path,
    known_names: Mapping[str, tuple[tuple[str, int], ...]] | None = None,
) -> tuple[dict[str, NodeRow], dict[str, str], tuple[str, ...], str, tuple[str, ...]]:
    """Decide, with the core, every row an index of this CPG holds (plus embed texts).

    ``origin`` is where the CPG was read from (a CPG file, or a source
    directory's parts), for the warnings.

    Returns the rows, their embed texts, the run's warnings, the treeloom
    version and notes (what the run added, not a problem).

    ``source_root`` is the directory treeloom built: the files under it give
    the source of definitions the CPG holds none for, the definitions treeloom
    does not emit and each module's own text; with ``walk``, also the files
    treeloom skipped (greploom.shell.sources): of ``files``, the ones the run's
    walk chose, or by default those the default ignore rules keep.
    """
    data, report = read_sources(cpg, source_root, walk=walk, files=files, known_names=known_names)
    graph, resolved = resolve(data, tier)
    # A top-level name with a definition row of its own in that file (an exported JavaScript
    # const the outline emits) is found as itself: its module does not bind it twice.
    defined = {(c.ref.file, c.ref.name) for c in resolved.contexts if c.ref.kind != "module"}
    top = {
        n.id: tuple(nl for nl in parse_top_names(n.attr(TOP_NAMES_ATTR)) if (n.file, nl[0]) not in defined)
        for n in data.nodes
        if n.kind is NodeKind.MODULE
    }
    rows = {
        c.ref.key: row_of(c, resolved.hashes[c.ref.key], top.get(c.node_id, ())) for c in resolved.contexts
    }
    embed_texts = resolved.embed_texts
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
        warnings.append(f"the CPG {origin} holds no function, class or module nodes")
    return rows, embed_texts, tuple(warnings), data.treeloom_version, report.notes()
