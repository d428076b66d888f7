"""Rendering: expanded nodes to markdown blocks, and a packing to the JSON envelope.

A block reads::

    ## {relationship}: {kind} {qualname} ({file}:{line})
    {summary}
    Defined at {file}:{line}[-{end_line}]
    {relationship} of {qualname it was reached from}      (expanded nodes only)

Parameters and imports are two lines: the header, then their text and
what they belong to.
    ```{language}
    {source}                                              (with include_source)
    ```

The fence is one backtick longer than the longest backtick run in the
source (at least three), so source containing fences cannot break out.

The JSON envelope is ``{"metadata": {...}, "results": [...]}``: one result per
packed block with node id and stable key, name, kind, file, line,
relationship, relevance, tokens, text, ``source`` (null when absent or not
asked for) and ``structural_context``. Its shape is a public contract: fields
may be added, never renamed or removed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from greploom.core.adaptive import Detail, DetailOption, plan_detail
from greploom.core.budget import SEPARATOR, ContextBlock, Packing, TokenCounter, pack_blocks
from greploom.core.expand import ExpandedNode, NodeRef, Relationship, StructuralContext

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rb": "ruby",
    ".kt": "kotlin",
    ".cs": "csharp",
    ".php": "php",
    ".swift": "swift",
}
_TICKS = re.compile(r"`+")
LEAF_KINDS = frozenset({"parameter", "import"})  # shown as header plus one line


def language_of(file: str) -> str:
    """The fence language hint for a file, from its extension ('' when unknown)."""
    name = file.rsplit("/", 1)[-1]
    if "." not in name:
        return ""
    return LANGUAGES.get("." + name.rsplit(".", 1)[1].lower(), "")


def fence_for(source: str) -> str:
    """A backtick fence longer than any backtick run inside ``source``."""
    longest = max((len(m.group(0)) for m in _TICKS.finditer(source)), default=0)
    return "`" * max(3, longest + 1)


def location_text(file: str, line: int, end_line: int | None = None) -> str:
    """``file:line`` or ``file:line-end``."""
    if end_line is not None and end_line > line:
        return f"{file}:{line}-{end_line}"
    return f"{file}:{line}"


def render_block(
    node: ExpandedNode,
    include_source: bool = False,
    via_name: str | None = None,
    detail: Detail | None = None,
) -> str:
    """The markdown block for one expanded node.

    ``detail`` (adaptive context) overrides ``include_source``: FULL shows the
    source, SUMMARY does not, REFERENCE is the header line alone.
    """
    ref = node.ref
    lines = [f"## {node.relationship.value}: {ref.kind} {node.qualname} ({ref.file}:{ref.line})"]
    if detail is Detail.REFERENCE:
        return lines[0]
    if detail is not None:
        include_source = detail is Detail.FULL
    relation = node.relationship.value.replace("_", " ")
    if ref.kind in LEAF_KINDS:  # a parameter or import: one line says it all
        tail = f" ({relation} of {via_name})" if via_name else ""
        lines.append(f"{node.summary}{tail}")
        return "\n".join(lines)
    if node.summary:
        lines.append(node.summary)
    lines.append(f"Defined at {location_text(ref.file, ref.line, node.end_line)}")
    if node.relationship is not Relationship.HIT and via_name:
        lines.append(f"{relation} of {via_name}")
    if include_source and node.source:
        fence = fence_for(node.source)
        lines.append(f"{fence}{language_of(ref.file)}")
        lines.append(node.source.rstrip("\n"))
        lines.append(fence)
    return "\n".join(lines)


def context_blocks(nodes: Sequence[ExpandedNode], include_source: bool = False) -> tuple[ContextBlock, ...]:
    """Blocks for expanded nodes, in their order."""
    names = {n.ref.key: n.qualname for n in nodes}
    return tuple(
        ContextBlock(
            key=n.ref.key,
            text=render_block(n, include_source, names.get(n.via) if n.via else None),
            relevance=n.relevance,
        )
        for n in nodes
    )


def assemble_context(
    nodes: Sequence[ExpandedNode],
    budget: int,
    count: TokenCounter,
    include_source: bool = False,
    reserve: int = 0,
) -> Packing:
    """Render expanded nodes and pack them into ``budget`` tokens."""
    return pack_blocks(context_blocks(nodes, include_source), budget, count, reserve)


def _ref_json(ref: NodeRef) -> dict[str, Any]:
    return {"key": ref.key, "name": ref.name, "kind": ref.kind, "file": ref.file, "line": ref.line}


def structure_json(structure: StructuralContext) -> dict[str, Any]:
    """The structural context as JSON-ready lists of ``{key, name, kind, file, line}``."""
    return {
        "callers": [_ref_json(r) for r in structure.callers],
        "callees": [_ref_json(r) for r in structure.callees],
        "parameters": [_ref_json(r) | {"detail": r.detail} for r in structure.parameters],
        "parent_class": _ref_json(structure.parent_class) if structure.parent_class else None,
        "data_sources": [_ref_json(r) for r in structure.data_sources],
        "imports": [_ref_json(r) | {"detail": r.detail} for r in structure.imports],
        "members": [_ref_json(r) for r in structure.members],
    }


def render_json(
    metadata: Mapping[str, Any],
    packing: Packing,
    nodes: Sequence[ExpandedNode],
    include_source: bool = False,
) -> dict[str, Any]:
    """The ``{"metadata", "results"}`` envelope for a packing of ``nodes``."""
    by_key = {n.ref.key: n for n in nodes}
    results = []
    for packed in packing.blocks:
        node = by_key[packed.block.key]
        results.append(
            {
                "node_id": node.node_id or None,
                "key": node.ref.key,
                "name": node.ref.name,
                "qualname": node.qualname,
                "kind": node.ref.kind,
                "file": node.ref.file,
                "line": node.ref.line,
                "end_line": node.end_line,
                "relationship": node.relationship.value,
                "relevance": round(node.relevance, 6),
                "via": node.via,
                "tokens": packed.tokens,
                "cut": packed.cut,
                "text": packed.text,
                "source": node.source if include_source else None,
                "structural_context": structure_json(node.structure),
            }
        )
    return {"metadata": dict(metadata), "results": results}


def assemble_adaptive(
    nodes: Sequence[ExpandedNode],
    weights: Mapping[str, float],
    budget: int,
    count: TokenCounter,
    reserve: int = 0,
) -> tuple[Packing, dict[str, Detail]]:
    """Spend the budget by weight at three levels of detail, then pack (which guarantees it).

    ``weights`` holds the hits' selection weights; a neighbour weighs its
    relevance times the mean hit weight, halved, so hits are served first.
    """
    names = {n.ref.key: n.qualname for n in nodes}
    hit_weights = [w for w in weights.values() if w > 0]
    neighbour_scale = 0.5 * (math.fsum(hit_weights) / len(hit_weights)) if hit_weights else 0.5
    renders: dict[str, dict[Detail, str]] = {}
    options = []
    for node in nodes:
        via = names.get(node.via) if node.via else None
        levels = [Detail.FULL] if node.source else []
        levels += [Detail.SUMMARY, Detail.REFERENCE]
        texts = {level: render_block(node, via_name=via, detail=level) for level in levels}
        renders[node.ref.key] = texts
        weight = weights.get(node.ref.key, node.relevance * neighbour_scale)
        costs = tuple((level, count(SEPARATOR + texts[level])) for level in levels)
        options.append(DetailOption(node.ref.key, weight, costs))
    plan = plan_detail(options, budget - max(reserve, 0))
    chosen = dict(plan.levels)
    relevance = {n.ref.key: n.relevance for n in nodes}
    blocks = [
        ContextBlock(key=key, text=renders[key][level], relevance=relevance[key])
        for key, level in plan.levels
    ]
    packing = pack_blocks(blocks, budget, count, reserve)
    dropped = packing.dropped + len(plan.left_out)
    packing = attrs.evolve(packing, dropped=dropped, dropped_keys=(*packing.dropped_keys, *plan.left_out))
    return packing, chosen
