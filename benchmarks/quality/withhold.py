"""Docstrings withheld from a CPG: the harness's docstring queries and the fine-tuning pairs use it.

A query made from a docstring must not find that docstring in the index, so
the docstring literal goes (with its edges), and so does its text in the
owner's ``source_text``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from greploom.core.cpg import CpgGraph
from greploom.core.keys import node_identities
from greploom.core.summary import docstring_node


def without_docstrings(
    raw: dict[str, Any], graph: CpgGraph, withhold: Callable[[str], bool]
) -> dict[str, Any]:
    """A copy of the raw CPG that ``graph`` was read from, without the docstrings of the
    definitions whose keys ``withhold`` picks."""
    drop: set[str] = set()
    strip: dict[str, str] = {}  # owner id -> docstring text to cut from its source_text
    for ident in node_identities(graph):
        node = graph.node(ident.node_id)
        literal = docstring_node(graph, node) if node is not None and withhold(ident.key) else None
        if literal is None:
            continue
        drop.add(literal.id)
        raw_value = literal.attr("raw_value")
        if isinstance(raw_value, str):
            strip[ident.node_id] = raw_value
    nodes = []
    for node in raw["nodes"]:
        source = node["attrs"].get("source_text")
        if node["id"] in drop:
            continue
        if node["id"] in strip and isinstance(source, str):
            cut = source.replace(strip[node["id"]], "", 1)
            nodes.append({**node, "attrs": {**node["attrs"], "source_text": cut}})
        else:
            nodes.append(node)
    edges = [e for e in raw["edges"] if e["source"] not in drop and e["target"] not in drop]
    return {**raw, "nodes": nodes, "edges": edges}
