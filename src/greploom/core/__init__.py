"""The pure core of greploom.

Nothing in this package does I/O, reads the clock, the environment or any
source of randomness, and nothing here imports :mod:`greploom.shell`. Values
are frozen attrs classes with tuple fields; functions take values and return
values (a re-index plan, a ranked list, a packing), and the shell carries the
decisions out. The laws of every module are written as hypothesis properties
in ``tests/properties/``, one module per concept.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: a query needs a third of these modules, and importing them all
# took 32 of a cold query's 114 ms of imports (calls, call_index, context, spans: index-only).
_EXPORTS = {
    "INDEXABLE_KINDS": "greploom.core.keys",
    "RRF_K": "greploom.core.fusion",
    "Candidate": "greploom.core.candidate",
    "ContextBlock": "greploom.core.budget",
    "ContextResult": "greploom.core.budget",
    "CpgData": "greploom.core.cpg",
    "CpgEdge": "greploom.core.cpg",
    "CpgError": "greploom.core.errors",
    "CpgGraph": "greploom.core.cpg",
    "CpgNode": "greploom.core.cpg",
    "CurrentEntry": "greploom.core.plan",
    "Detail": "greploom.core.render",
    "EdgeKind": "greploom.core.cpg",
    "ExpandedNode": "greploom.core.expand",
    "FusedItem": "greploom.core.fusion",
    "GreploomError": "greploom.core.errors",
    "NodeContext": "greploom.core.expand",
    "NodeIdentity": "greploom.core.keys",
    "NodeKind": "greploom.core.cpg",
    "NodeRef": "greploom.core.expand",
    "Packing": "greploom.core.budget",
    "Query": "greploom.core.query",
    "QueryKind": "greploom.core.query",
    "Ranked": "greploom.core.candidate",
    "ReindexPlan": "greploom.core.plan",
    "Relationship": "greploom.core.expand",
    "Rendering": "greploom.core.budget",
    "Selection": "greploom.core.adaptive",
    "SourceLocation": "greploom.core.cpg",
    "StoredEntry": "greploom.core.plan",
    "StructuralContext": "greploom.core.expand",
    "Summary": "greploom.core.summary",
    "Tier": "greploom.core.summary",
    "assemble_context": "greploom.core.render",
    "content_hash": "greploom.core.hashing",
    "expand_hits": "greploom.core.expand",
    "fts_match_expression": "greploom.core.lexical",
    "identifier_tokens": "greploom.core.lexical",
    "node_identities": "greploom.core.keys",
    "pack_blocks": "greploom.core.budget",
    "plan_reindex": "greploom.core.plan",
    "query_kind": "greploom.core.query",
    "query_tokens": "greploom.core.lexical",
    "rank_candidates": "greploom.core.ranking",
    "read_query": "greploom.core.query",
    "render_block": "greploom.core.render",
    "render_json": "greploom.core.render",
    "resolve_contexts": "greploom.core.context",
    "rrf_fuse": "greploom.core.fusion",
    "select": "greploom.core.adaptive",
    "summarize_node": "greploom.core.summary",
    "with_sources": "greploom.core.spans",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from greploom.core.adaptive import Selection, select
    from greploom.core.budget import ContextBlock, ContextResult, Packing, Rendering, pack_blocks
    from greploom.core.candidate import Candidate, Ranked
    from greploom.core.context import resolve_contexts
    from greploom.core.cpg import (
        CpgData,
        CpgEdge,
        CpgGraph,
        CpgNode,
        EdgeKind,
        NodeKind,
        SourceLocation,
    )
    from greploom.core.errors import CpgError, GreploomError
    from greploom.core.expand import (
        ExpandedNode,
        NodeContext,
        NodeRef,
        Relationship,
        StructuralContext,
        expand_hits,
    )
    from greploom.core.fusion import RRF_K, FusedItem, rrf_fuse
    from greploom.core.hashing import content_hash
    from greploom.core.keys import INDEXABLE_KINDS, NodeIdentity, node_identities
    from greploom.core.lexical import fts_match_expression, identifier_tokens, query_tokens
    from greploom.core.plan import CurrentEntry, ReindexPlan, StoredEntry, plan_reindex
    from greploom.core.query import Query, QueryKind, query_kind, read_query
    from greploom.core.ranking import rank_candidates
    from greploom.core.render import Detail, assemble_context, render_block
    from greploom.core.render_json import render_json
    from greploom.core.spans import with_sources
    from greploom.core.summary import Summary, Tier, summarize_node

__all__ = [
    "INDEXABLE_KINDS",
    "RRF_K",
    "Candidate",
    "ContextBlock",
    "ContextResult",
    "CpgData",
    "CpgEdge",
    "CpgError",
    "CpgGraph",
    "CpgNode",
    "CurrentEntry",
    "Detail",
    "EdgeKind",
    "ExpandedNode",
    "FusedItem",
    "GreploomError",
    "NodeContext",
    "NodeIdentity",
    "NodeKind",
    "NodeRef",
    "Packing",
    "Query",
    "QueryKind",
    "Ranked",
    "ReindexPlan",
    "Relationship",
    "Rendering",
    "Selection",
    "SourceLocation",
    "StoredEntry",
    "StructuralContext",
    "Summary",
    "Tier",
    "assemble_context",
    "content_hash",
    "expand_hits",
    "fts_match_expression",
    "identifier_tokens",
    "node_identities",
    "pack_blocks",
    "plan_reindex",
    "query_kind",
    "query_tokens",
    "rank_candidates",
    "read_query",
    "render_block",
    "render_json",
    "resolve_contexts",
    "rrf_fuse",
    "select",
    "summarize_node",
    "with_sources",
]
