"""The related-code use case: ``greploom query --like KEY`` and the MCP tool ``find_related``.

gather  the definition KEY names, resolved as ``query --node`` resolves it (a
        stable key, a CPG id, or a qualified name naming one definition; a
        name naming several, or nothing, is a usage error listing candidates);
        the definitions nearest it in meaning: its own stored vector searched
        against the others' (an index without vectors, or a row without one,
        searches its summary as words instead, and the header says so); the
        graph around it: its callers, callees, parent class, members, data
        sources, its class's other members and the definitions of its file
        nearest it;
decide  the two rankings fused (greploom.core.related), the definition itself
        left out; expansion and packing as a query's (the engine's);
act     a :class:`~greploom.shell.answer.QueryAnswer`, text and JSON each
        packed to the budget for itself, headed
        ``# greploom: related to KEY (N by meaning, M by the graph) | ...``.

Runs on a :class:`~greploom.shell.querying.QueryEngine` (the CLI's, cold or a
resident server's, or the MCP server's), through its public pieces.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from greploom.core.errors import UsageError
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.focus import FocusQuery
from greploom.core.names import candidates_line
from greploom.core.query import read_query
from greploom.core.related import Neighbourhood, Related, related
from greploom.core.render import SourceMode
from greploom.shell.answer import QueryAnswer
from greploom.shell.guard import clip
from greploom.shell.querying import QueryEngine, resolve_nodes
from greploom.shell.search import SearchHit
from greploom.shell.store import IndexStore

__all__ = ["RELATED_TOP", "related_answer"]

RELATED_TOP = 8  # related definitions answered unless top-k says otherwise: the budget cuts the rest
MEANING_FACTOR = 3  # nearest in meaning looked up per definition answered, before fusion
FILE_NEIGHBOURS = 20  # definitions of the same file taken, nearest first: a big file holds hundreds
SUMMARY_CHARS = 2000  # of a summary searched as words (lexical-only): its signature and docstring


@attrs.frozen
class Found:
    """The definition asked about, its related ones best first, and why meaning was words, if it was."""

    origin: NodeContext
    related: tuple[Related, ...]
    lexical: str | None  # None: searched by its vector


def resolve_like(store: IndexStore, given: str) -> str:
    """The key ``given`` names: a usage error for a name naming several (their keys) or nothing."""
    wanted = given.strip()
    if not wanted:
        raise UsageError("--like takes a key, a CPG id or a qualified name from a result; give one")
    found = resolve_nodes(store, [wanted])  # a name naming several: an error listing their keys
    if wanted in found:
        return found[wanted]
    last = wanted.rsplit(".", 1)[-1]
    bearing = tuple(sorted({row[0] for row in store.definitions_with_names([last])})) if last else ()
    named = f"; definitions named {clip(last)}: {candidates_line(bearing)}" if bearing else ""
    raise UsageError(f"unknown node {clip(wanted)}; use a key, CPG id or qualified name from a result{named}")


def by_meaning(
    store: IndexStore, origin: NodeContext, limit: int, *, vectors: bool
) -> tuple[list[str], str | None]:
    """Keys nearest ``origin`` in meaning (itself among them), and why they were found by words, if so."""
    if not vectors:
        why = "provider none"
    elif not store.has_vectors():
        why = "the index has no vectors"
    else:
        vector = store.vector_of(origin.ref.key)
        if vector is not None:
            return [key for key, _ in store.search_vector(vector, limit)], None
        why = "it has no vector yet"  # a first run still embedding, or one that stopped
    query = read_query((origin.summary or origin.qualname)[:SUMMARY_CHARS])
    if not query.tokens:
        return [], why
    return [key for key, _ in store.search_lexical(query.match, limit)], why


def neighbourhood(store: IndexStore, origin: NodeContext) -> Neighbourhood:
    """The graph around ``origin``: its own, its class's other members, its file's nearest definitions."""
    parent = origin.structure.parent_class
    members: tuple[NodeRef, ...] = ()
    if parent is not None:
        holder = store.contexts([parent.key]).get(parent.key)
        members = holder.structure.members if holder is not None else ()
    near = store.definitions_near(origin.ref.file, origin.ref.line, FILE_NEIGHBOURS)
    return Neighbourhood.around(origin, members, near)


def gather(store: IndexStore, given: str, limit: int, *, vectors: bool) -> Found:
    """The definition ``given`` names and its ``limit`` nearest, in meaning and in the graph."""
    key = resolve_like(store, given)
    origin = store.contexts([key])[key]
    meaning, lexical = by_meaning(store, origin, limit * MEANING_FACTOR + 1, vectors=vectors)
    return Found(origin, related(neighbourhood(store, origin), meaning, limit), lexical)


def related_answer(
    engine: QueryEngine,
    like: str,
    *,
    budget: int | None = None,
    top_k: int | None = None,
    depth: int = 0,
    include_source: bool | SourceMode = SourceMode.HITS,
    db_named: Path | None = None,
) -> QueryAnswer:
    """The definitions nearest ``like`` in meaning and in the graph, packed as a query's answer.

    ``top_k``: how many (default :data:`RELATED_TOP`); ``depth`` 0: the budget
    goes to them, not to their neighbours. ``db_named``: the index's path as
    the caller named it, for the metadata.
    """
    config = engine.config.with_overrides(
        budget=budget, top_k=RELATED_TOP if top_k is None else top_k, depth=depth, db_path=db_named
    )
    with engine.reading() as store:
        found = gather(store, like, config.top_k, vectors=engine.config.provider != "none")
        hits = [SearchHit(r.key, r.score, 0, 0) for r in found.related]
        nodes, freshness = engine.expand(store, hits, config.depth)
        origin = found.origin.ref.key
        meta = engine.metadata(
            config,
            text=clip(like.strip()),
            node_ids=(origin,),
            mode="related",
            hits=hits,
            unknown=(),
            cpg_path=None,
            freshness=freshness,
        )
    meta.update(
        like=origin,
        like_name=found.origin.qualname,
        by_meaning=sum(1 for r in found.related if r.meaning_rank),
        by_graph=sum(1 for r in found.related if r.graph_rank),
        meaning="lexical-only" if found.lexical else "vectors",
        lexical=found.lexical,
    )
    shown = tuple(n for n in nodes if n.ref.key != origin)  # a neighbour at depth > 0 may be it
    return engine.pack(
        config,
        shown,
        hits,
        meta,
        include_source=include_source,
        focus_on=FocusQuery.of(found.origin.ref.name),
    )
