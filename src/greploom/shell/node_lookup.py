"""Nodes asked for by name: ``query --node``, ``get_node_context``, and the ends of a call path.

A node is named by a stable key, a CPG id, or a qualified name (or a dotted
suffix of one) that names one definition; a name naming several is an error
listing their keys, never a silent guess. The query use case
(greploom.shell.querying) answers the nodes found as hits of score 1; the
call path (greploom.shell.tracing) and related definitions
(greploom.shell.related) resolve their ends here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from greploom.core.errors import UsageError
from greploom.core.names import candidates_line
from greploom.shell.guard import clip
from greploom.shell.search import SearchHit
from greploom.shell.store import IndexStore

__all__ = ["node_hits", "resolve_nodes"]


def resolve_nodes(store: IndexStore, node_ids: Sequence[str]) -> dict[str, str]:
    """Each id that names a node, to its key: a key or CPG id, else a name naming one definition.

    A name naming several is a usage error listing their keys (the agent
    picks one), never a silent guess or an empty answer.
    """
    resolved = store.resolve_ids(node_ids)
    for ident in node_ids:
        if ident in resolved:
            continue
        keys = store.named(ident)
        if len(keys) == 1:
            resolved[ident] = keys[0]
        elif keys:
            raise UsageError(
                f"{clip(ident)} names {len(keys)} definitions: {candidates_line(keys)}; "
                "pass one of these keys"
            )
    return resolved


def node_hits(store: IndexStore, node_ids: Sequence[str]) -> tuple[list[SearchHit], list[str]]:
    """The nodes asked for as hits (each once, score 1), and the ids that name none.

    Not one of them naming a node is a usage error: an answer of nothing
    would look like an empty graph.
    """
    resolved = resolve_nodes(store, node_ids)
    unknown = [n for n in node_ids if n not in resolved]
    if not resolved:
        raise UsageError(
            f"unknown node(s): {clip(', '.join(unknown))}; use a key, CPG id or qualified name from a result"
        )
    return [SearchHit(k, 1.0, 0, 0) for k in dict.fromkeys(resolved.values())], unknown
