"""greploom: the right code for a question, in few tokens, offline.

The public API. Pure functions and values come from :mod:`greploom.core`;
the ones that do I/O live in :mod:`greploom.shell` and are re-exported here.
Names load lazily, so ``import greploom`` (and ``greploom --help``) stay fast.

    >>> import greploom
    >>> config = greploom.GrepLoomConfig.from_env().with_overrides(db_path="idx.db")
    >>> result = greploom.run_index("cpg.json", config)          # doctest: +SKIP
    >>> answer = greploom.run_query(config, "where is the retry backoff computed")  # doctest: +SKIP
    >>> print(answer.text)                                         # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.7.0.dev0"

_EXPORTS = {
    # the CPG model
    "load_cpg": "greploom.shell.serde",
    "CpgData": "greploom.core.cpg",
    "CpgNode": "greploom.core.cpg",
    "CpgEdge": "greploom.core.cpg",
    "CpgGraph": "greploom.core.cpg",
    "NodeKind": "greploom.core.cpg",
    "EdgeKind": "greploom.core.cpg",
    "SourceLocation": "greploom.core.cpg",
    # configuration and errors
    "GrepLoomConfig": "greploom.shell.config",
    "GreploomError": "greploom.core.errors",
    # summaries and indexing
    "summarize_node": "greploom.core.summary",
    "Tier": "greploom.core.summary",
    "run_index": "greploom.shell.indexing",
    "IndexResult": "greploom.shell.indexing",
    "IndexStore": "greploom.shell.store",
    # search, expansion, packing
    "hybrid_search": "greploom.shell.search",
    "ranked_search": "greploom.shell.search",
    "SearchHit": "greploom.shell.search",
    "run_query": "greploom.shell.querying",
    "QueryEngine": "greploom.shell.querying",
    "QueryAnswer": "greploom.shell.querying",
    "expand_hits": "greploom.core.expand",
    "ExpandedNode": "greploom.core.expand",
    "StructuralContext": "greploom.core.expand",
    "NodeRef": "greploom.core.expand",
    "assemble_context": "greploom.core.render",
    "ContextResult": "greploom.core.budget",
    "ContextBlock": "greploom.core.budget",
    # embedders
    "EmbeddingClient": "greploom.shell.ports",
    "make_embedder": "greploom.shell.embedders",
    "count_tokens": "greploom.shell.tokens",
}
_ALIASES = {"EmbeddingClient": "Embedder"}

__all__ = [
    "ContextBlock",
    "ContextResult",
    "CpgData",
    "CpgEdge",
    "CpgGraph",
    "CpgNode",
    "EdgeKind",
    "EmbeddingClient",
    "ExpandedNode",
    "GrepLoomConfig",
    "GreploomError",
    "IndexResult",
    "IndexStore",
    "NodeKind",
    "NodeRef",
    "QueryAnswer",
    "QueryEngine",
    "SearchHit",
    "SourceLocation",
    "StructuralContext",
    "Tier",
    "__version__",
    "assemble_context",
    "count_tokens",
    "expand_hits",
    "hybrid_search",
    "load_cpg",
    "make_embedder",
    "ranked_search",
    "run_index",
    "run_query",
    "summarize_node",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'greploom' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ALIASES.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from greploom.core.budget import ContextBlock, ContextResult
    from greploom.core.cpg import CpgData, CpgEdge, CpgGraph, CpgNode, EdgeKind, NodeKind, SourceLocation
    from greploom.core.errors import GreploomError
    from greploom.core.expand import ExpandedNode, NodeRef, StructuralContext, expand_hits
    from greploom.core.render import assemble_context
    from greploom.core.summary import Tier, summarize_node
    from greploom.shell.config import GrepLoomConfig
    from greploom.shell.embedders import make_embedder
    from greploom.shell.indexing import IndexResult, run_index
    from greploom.shell.ports import Embedder as EmbeddingClient
    from greploom.shell.querying import QueryAnswer, QueryEngine, run_query
    from greploom.shell.search import SearchHit, hybrid_search, ranked_search
    from greploom.shell.serde import load_cpg
    from greploom.shell.store import IndexStore
    from greploom.shell.tokens import count_tokens
