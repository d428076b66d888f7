"""The JSON envelope of a packing: one result per packed block, only what the text shows.

The JSON envelope is ``{"metadata": {...}, "results": [...]}``: one result per
packed block with node id and stable key, name, kind, file, line,
relationship, relevance, tokens, ``cut``, ``stale``, ``detail`` (full, summary or
reference: how much of the node the text shows), text, ``source`` and
``structural_context``. Its shape is a public contract: fields may be added,
never renamed or removed. What the text of a result does not show is not
sent either, so the envelope can be packed to the budget
(``greploom.core.envelope``): ``source`` is null unless the result is shown
whole with its source (detail full, not cut); ``structural_context`` lists
hold at most :data:`STRUCTURE_CAP` neighbours each (none for a reference, nor
for a far hit shown briefly, whose text names no neighbour: greploom.core.render
``BRIEF_FROM``), and a capped list says how many there are in ``{list}_total``
(present only when something was left out, so an uncapped list costs nothing
more). Leaving out a brief hit's lists: on requests, "where are redirects followed
for a session" at the default 8,192 tokens, the envelope held the 10 hits and none
of their 6 neighbours (structure lists 300 to 1,150 tokens a result in the indented
form), and now all 10 hits and 5 of the 6 neighbours; see greploom.core.envelope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from greploom.core.budget import Packing
from greploom.core.expand import ExpandedNode, NodeRef, StructuralContext
from greploom.core.render import Detail, SourceMode, block_key

# Neighbours per structural-context list in a JSON result: top-k's default. The
# neighbours that matter most are blocks of their own already (graph expansion);
# the lists are for navigation, and a hub's 200 callers would spend the budget.
STRUCTURE_CAP = 5


def _ref_json(ref: NodeRef) -> dict[str, Any]:
    return {"key": ref.key, "name": ref.name, "kind": ref.kind, "file": ref.file, "line": ref.line}


def structure_json(structure: StructuralContext, cap: int | None = None) -> dict[str, Any]:
    """The structural context as JSON-ready lists of ``{key, name, kind, file, line}``.

    With ``cap``, each list holds at most ``cap`` neighbours, and one that had
    more says how many in ``{list}_total`` (added only then: an answer packed to
    a budget pays for every field).
    """
    lists: dict[str, list[dict[str, Any]]] = {
        "callers": [_ref_json(r) for r in structure.callers],
        "callees": [_ref_json(r) for r in structure.callees],
        "parameters": [_ref_json(r) | {"detail": r.detail} for r in structure.parameters],
        "data_sources": [_ref_json(r) for r in structure.data_sources],
        "imports": [_ref_json(r) | {"detail": r.detail} for r in structure.imports],
        "members": [_ref_json(r) for r in structure.members],
    }
    # Docs and config links (greploom.core.mentions), added after 0.7: present only when
    # the node has some, so an answer about code alone pays no token for them.
    for name in ("mentions", "documented_by"):
        if refs := getattr(structure, name):
            lists[name] = [_ref_json(r) for r in refs]
    out: dict[str, Any] = {}
    for name in ("callers", "callees", "parameters"):
        out[name] = lists[name]
    out["parent_class"] = _ref_json(structure.parent_class) if structure.parent_class else None
    for name in ("data_sources", "imports", "members", "mentions", "documented_by"):
        if name in lists:
            out[name] = lists[name]
    if cap is not None:
        for name, items in lists.items():
            if len(items) > cap:
                out[name] = items[:cap]
                out[f"{name}_total"] = len(items)
    return out


def result_json(
    node: ExpandedNode,
    text: str,
    label: str,
    *,
    cut: bool,
    tokens: int,
    include_source: bool | SourceMode = False,
    brief: bool = False,
) -> dict[str, Any]:
    """One result of the envelope: ``node`` shown as ``text`` (a rendering ``label``, maybe cut).

    Only what the text shows whole is sent: ``source`` when the result is
    full and uncut (a block shows its code only when its source mode asked
    for it, so ``include_source`` needs no second look), the structure capped
    (:data:`STRUCTURE_CAP`; nothing but the totals for a reference, or for a
    ``brief`` block, a far hit, unless shown as its summary, which names its calls).
    """
    del include_source  # kept for callers; the label says whether the code is shown
    whole = label == Detail.FULL.value and not cut
    unsaid = label == Detail.REFERENCE.value or (brief and label != Detail.SUMMARY.value)
    cap = 0 if unsaid else STRUCTURE_CAP
    collection = {"collection": node.collection} if node.collection else {}
    return collection | {
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
        "tokens": tokens,
        "cut": cut,
        "stale": node.stale,
        "detail": label or None,
        "text": text,
        "source": node.source if whole else None,
        "structural_context": structure_json(node.structure, cap),
    }


def render_json(
    metadata: Mapping[str, Any],
    packing: Packing,
    nodes: Sequence[ExpandedNode],
    include_source: bool | SourceMode = False,
) -> dict[str, Any]:
    """The ``{"metadata", "results"}`` envelope for a packing of ``nodes`` (see :func:`result_json`)."""
    by_key = {block_key(n): n for n in nodes}
    results = [
        result_json(
            by_key[p.block.key],
            p.text,
            p.label,
            cut=p.cut,
            tokens=p.tokens,
            include_source=include_source,
            brief=p.block.brief,
        )
        for p in packing.blocks
    ]
    return {"metadata": dict(metadata), "results": results}
