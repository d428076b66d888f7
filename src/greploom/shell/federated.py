"""A query over several collections: each searched in its own index, then one ranking and one budget.

gather  each collection's hits from its own index file, by the same search
        one index answers with (greploom.shell.query_search, through the
        collection's :class:`~greploom.shell.querying.QueryEngine`), or the
        nodes asked for by key or name;
decide  one ranking by reciprocal rank over the collections' lists, top-k
        of it (greploom.core.federation.merge_ranked);
gather  each collection's kept hits expanded through its own graph, marked
        stale where their files changed;
decide  all their nodes in one order, each labelled with its collection
        (greploom.core.federation.federated_nodes), packed to one budget;
act     return the :class:`~greploom.shell.answer.QueryAnswer`: every block
        names its collection in its header (``collection: app``) and its JSON
        result (``"collection": "app"``); the header names the collections.

Each index keeps its own embedder: a collection embedded with ollama and one
lexical-only are searched each its own way, and the metadata says how
(``collections``: name, index, search mode, embedder, hits, age).
One collection answers as ``--db`` on its file does, its blocks labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from greploom.core.errors import StoreError, UsageError
from greploom.core.expand import SEARCH_REACH, ExpandedNode
from greploom.core.federation import FederatedHit, federated_nodes, merge_ranked
from greploom.core.focus import FocusQuery
from greploom.core.query import Query, read_query
from greploom.core.render import SourceMode
from greploom.shell.answer import QueryAnswer
from greploom.shell.answer_assembly import packed_answer
from greploom.shell.config import GrepLoomConfig
from greploom.shell.guard import clip
from greploom.shell.node_lookup import resolve_nodes
from greploom.shell.ports import TokenCounter
from greploom.shell.query_search import Searched
from greploom.shell.querying import QueryEngine
from greploom.shell.search import SearchHit
from greploom.shell.tokens import count_tokens

__all__ = ["federated_query"]

Engines = Callable[[GrepLoomConfig], QueryEngine]
# What the answer states once for all its collections, taken from the oldest index.
_OLDEST = ("index_age", "index_age_seconds", "index_indexed_at", "index_created_at")


def federated_query(
    targets: Sequence[tuple[str, GrepLoomConfig]],
    config: GrepLoomConfig,
    text: str | None = None,
    node_ids: Sequence[str] = (),
    *,
    include_source: bool | SourceMode = SourceMode.HITS,
    engine_for: Engines | None = None,
    count: TokenCounter = count_tokens,
) -> QueryAnswer:
    """One answer from several collections' indexes (see the module).

    ``targets``: (name, configuration) per collection, the configuration's
    ``db_path`` its index; ``config``: the answer's budget, top-k, depth,
    ranking and context. ``engine_for``: warm engines (the MCP server's);
    None: one-shot engines, closed here.
    """
    text = (text or "").strip()
    if not text and not node_ids:
        raise UsageError("give query text, or node keys/ids with --node")
    query = read_query(text) if text else None
    if not node_ids and (query is None or not query.tokens):
        raise UsageError("the query has no searchable words; use names or plain words")
    for name, target in targets:
        if not target.db_path.exists():
            raise StoreError(
                f"collection {name} has no index yet ({target.db_path}); run `greploom index -c {name}`"
            )
    targets = sorted(targets, key=lambda t: t[0])  # the order they are named in changes nothing
    engines: dict[str, QueryEngine] = {}
    try:
        for name, target in targets:
            engines[name] = engine_for(target) if engine_for else QueryEngine(target, one_shot=True)
        settings = {
            name: target.with_overrides(
                budget=config.budget,
                top_k=config.top_k,
                depth=config.depth,
                ranking=config.ranking,
                context=config.context,
            )
            for name, target in targets
        }
        return _answer(engines, settings, config, text, query, node_ids, include_source, count)
    finally:
        if engine_for is None:
            for engine in engines.values():
                engine.close()


def _answer(  # noqa: PLR0917 - the steps of federated_query, in its order
    engines: Mapping[str, QueryEngine],
    settings: Mapping[str, GrepLoomConfig],
    config: GrepLoomConfig,
    text: str,
    query: Query | None,
    node_ids: Sequence[str],
    include_source: bool | SourceMode,
    count: TokenCounter,
) -> QueryAnswer:
    found, unknown = _found(engines, settings, query, node_ids)
    merged = merge_ranked({name: [h.key for h in f.hits] for name, f in found.items()})
    if not node_ids and config.context != "adaptive":  # adaptive: each collection decided its own
        merged = merged[: config.top_k]
    kept = {(h.collection, h.key) for h in merged}
    expanded: dict[str, tuple[ExpandedNode, ...]] = {}
    metas: dict[str, dict[str, Any]] = {}
    for name, engine in engines.items():
        hits = [h for h in found[name].hits if (name, h.key) in kept]
        with engine.reading() as store:
            reach = None if node_ids else SEARCH_REACH  # each collection's first hits
            nodes, freshness = engine.expand(store, hits, config.depth, reach) if hits else ((), "unknown")
            metas[name] = engine.metadata(
                settings[name],
                text=text,
                node_ids=node_ids,
                mode=found[name].mode,
                hits=hits,
                unknown=unknown,
                cpg_path=None,
                places_not_found=found[name].places_not_found,
                freshness=freshness,
            )
        expanded[name] = nodes
    meta = combined_metadata(metas, merged, unknown)
    pointed = [p for f in found.values() for p in f.pointed]
    focus_on = FocusQuery.of(query, pointed) if query is not None else None
    return packed_answer(
        config,
        federated_nodes(expanded, merged),
        [SearchHit(h.key, h.score, 0, 0) for h in merged],
        meta,
        count,
        include_source=include_source,
        cut_hits=bool(node_ids),
        focus_on=focus_on,
    )


def _found(
    engines: Mapping[str, QueryEngine],
    settings: Mapping[str, GrepLoomConfig],
    query: Query | None,
    node_ids: Sequence[str],
) -> tuple[dict[str, Searched], list[str]]:
    """Each collection's hits (its search, or the nodes asked for it holds), and the ids none holds."""
    found: dict[str, Searched] = {}
    resolved_anywhere: set[str] = set()
    for name, engine in engines.items():
        with engine.reading() as store:
            if node_ids:
                resolved = resolve_nodes(store, node_ids)
                resolved_anywhere.update(resolved)
                hits = tuple(SearchHit(k, 1.0, 0, 0) for k in dict.fromkeys(resolved.values()))
                found[name] = Searched(hits, "nodes", None, 0, (), ())
            else:
                assert query is not None  # federated_query checked: text without node ids
                found[name] = engine.find(store, query, settings[name])
    unknown = [n for n in node_ids if n not in resolved_anywhere]
    if node_ids and not resolved_anywhere:
        raise UsageError(
            f"unknown node(s): {clip(', '.join(unknown))} in collections {', '.join(engines)}; "
            "use a key, CPG id or qualified name from a result"
        )
    return found, unknown


def combined_metadata(
    metas: Mapping[str, Mapping[str, Any]], merged: Sequence[FederatedHit], unknown: Sequence[str]
) -> dict[str, Any]:
    """One answer's metadata from its collections': what they share once, what differs per collection
    (``collections``), the oldest index's age, the places none of them has a file for."""
    rows = list(metas.items())
    meta = dict(rows[0][1])
    modes = {m["search_mode"] for _, m in rows}
    embedders = {m["embedder"] for _, m in rows}
    errors = [f"{name}: {m['embedder_error']}" for name, m in rows if m.get("embedder_error")]
    not_found = [set(m["places_not_found"]) for _, m in rows]
    meta.update(
        search_mode=modes.pop() if len(modes) == 1 else "mixed",
        embedder=embedders.pop()
        if len(embedders) == 1
        else ", ".join(f"{name}: {m['embedder'] or 'none'}" for name, m in rows),
        embedder_error="; ".join(errors) or None,
        index_path=", ".join(str(m["index_path"]) for _, m in rows),
        hits=len(merged),
        unknown_nodes=list(unknown),
        places_not_found=sorted(set.intersection(*not_found)),
        freshness="checked" if all(m["freshness"] == "checked" for _, m in rows) else "unknown",
        collections=[
            {
                "name": name,
                "index_path": m["index_path"],
                "search_mode": m["search_mode"],
                "embedder": m["embedder"],
                "hits": m["hits"],
                "index_age": m["index_age"],
            }
            for name, m in rows
        ],
    )
    oldest = max((m for _, m in rows), key=lambda m: m["index_age_seconds"] or 0)
    meta.update({key: oldest[key] for key in _OLDEST})
    building = [(name, m) for name, m in rows if m.get("vectors")]
    if building:
        name, m = building[0]
        meta.update(vectors=f"{m['vectors']} in {name}", build=m["build"])
    return meta
