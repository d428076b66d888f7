"""The pure core of greploom.

Nothing in this package does I/O, reads the clock, the environment or any
source of randomness, and nothing here imports :mod:`greploom.shell`. Values
are frozen attrs classes with tuple fields; functions take values and return
values (a re-index plan, a ranked list, a packing), and the shell carries the
decisions out. The laws of every module are written as hypothesis properties
in ``tests/properties/``, one module per concept.
"""

from greploom.core.adaptive import Selection, select
from greploom.core.budget import ContextBlock, ContextResult, Packing, Rendering, pack_blocks
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
from greploom.core.ranking import Candidate, Ranked, rank_candidates
from greploom.core.render import Detail, assemble_context, render_block, render_json
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
