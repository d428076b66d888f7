"""An answer assembled from its hits: expanded through the graph, marked stale, packed lazily.

expand  the hits through the stored graph (greploom.shell.store_graph, its
        rows prefetched in one read) or a CPG file's, with relevance decay
        (greploom.core.expand);
stale   the blocks whose files changed since the index read them flagged
        (greploom.core.freshness), and whether that was ``checked`` or is
        ``unknown`` (no source directory, or its files not stamped);
pack    a :class:`~greploom.shell.answer.QueryAnswer` whose text and JSON
        envelope are each packed to the budget for itself when first asked
        for (greploom.shell.answer, greploom.core.envelope).

The query, code-context and related use cases all end here, through
:class:`~greploom.shell.querying.QueryEngine`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from greploom.core.envelope import pack_envelope
from greploom.core.expand import ExpandedNode, NodeContext, expand_hits
from greploom.core.focus import FocusQuery
from greploom.core.freshness import mark_stale
from greploom.core.render import SourceMode
from greploom.shell.answer import QueryAnswer, pack_text
from greploom.shell.config import GrepLoomConfig
from greploom.shell.freshness import changed_files
from greploom.shell.ports import TokenCounter
from greploom.shell.search import SearchHit
from greploom.shell.store import IndexStore
from greploom.shell.store_graph import StoreGraph

__all__ = ["expand_marked", "packed_answer", "stored_graph"]


def stored_graph(store: IndexStore, hits: Iterable[SearchHit]) -> StoreGraph:
    """The stored graph, the hits' rows fetched ahead in one read."""
    stored = StoreGraph(store)
    stored.prefetch(h.key for h in hits)
    return stored


def expand_marked(
    store: IndexStore,
    hits: Sequence[SearchHit],
    graph: Mapping[str, NodeContext],
    depth: int,
    source_root: str | None,
    *,
    reach: int | None = None,
) -> tuple[tuple[ExpandedNode, ...], str]:
    """The hits expanded through the graph, those from files changed since the index
    flagged stale, and whether that was ``checked`` or is ``unknown`` (no source
    directory, or its files not stamped). ``source_root``: the index's recorded one;
    ``reach``: how many of the first hits are expanded (all by default)."""
    nodes = expand_hits([h.key for h in hits], graph, depth, reach=reach)
    recorded = store.file_stamps({n.ref.file for n in nodes}) if source_root else {}
    if not source_root or not recorded or not Path(source_root).is_dir():
        return nodes, "unknown"
    return mark_stale(nodes, changed_files(Path(source_root), recorded)), "checked"


def packed_answer(
    config: GrepLoomConfig,
    nodes: tuple[ExpandedNode, ...],
    hits: Sequence[SearchHit],
    meta: dict[str, Any],
    count: TokenCounter,
    *,
    include_source: bool | SourceMode,
    cut_hits: bool,
    focus_on: FocusQuery | None = None,
) -> QueryAnswer:
    """The answer, its text and envelope each packed to a budget when first asked for.

    ``cut_hits``: nodes asked for by key are cut to fit; a search's hits are
    shown shorter instead.
    """
    if not nodes:
        meta["note"] = "no code matched; try other words, a symbol name, or `greploom status`"

    # Each form packed to a budget when first asked for (QueryAnswer calls these with one).
    settings: dict[str, Any] = {"include_source": include_source, "cut_hits": cut_hits, "focus_on": focus_on}
    text_at = functools.partial(pack_text, meta, nodes, count=count, **settings)
    json_at = functools.partial(pack_envelope, meta, nodes, count=count, **settings)

    return QueryAnswer(
        nodes=nodes,
        hits=tuple(hits),
        budget=config.budget,
        unknown_nodes=meta["unknown_nodes"],
        places_not_found=meta["places_not_found"],
        text_at=text_at,
        json_at=json_at,
    )
