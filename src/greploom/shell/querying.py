"""The query use case: search (or look up nodes), expand through the graph, pack, render.

gather  BM25 and vector candidates from the index (2 x top-k each), or the
        nodes asked for by key or CPG id; the stored graph around them (or a
        CPG file given with ``--cpg``);
decide  RRF fusion, expansion with relevance decay, greedy packing (core);
act     return a :class:`~greploom.shell.answer.QueryAnswer`: the context
        text and the JSON envelope, each packed to the budget for itself when
        first asked for (``shell.answer``), with the metadata they state
        (``shell.answer_meta``).

Nodes asked for by name take a stable key, a CPG id, or a qualified name (or
a dotted suffix of one) that names one definition; a name naming several is
an error listing their keys, never a silent guess (``shell.node_lookup``).

:class:`QueryEngine` keeps the store connection, the embedder and the
tokenizer warm, so the MCP server reuses one per index; the CLI makes one per
call. It reopens the store when the index file was replaced underneath it
(``shell.warm_index``). It coordinates; the steps live in their own modules:
the search and its mode (``shell.query_search``), the node lookup
(``shell.node_lookup``), and the answer's assembly, expanded, marked stale and
packed (``shell.answer_assembly``). The use cases beside the query run on its
public pieces: ``query --code`` (``shell.code_answer``) and ``query --like``
(``shell.related``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from greploom.core.errors import UsageError
from greploom.core.expand import SEARCH_REACH, ExpandedNode, NodeContext
from greploom.core.focus import FocusQuery
from greploom.core.followup import Memory
from greploom.core.query import Query, as_query, read_query
from greploom.core.render import SourceMode
from greploom.core.summary import Tier
from greploom.shell.answer import QueryAnswer, TextAnswer, header_line
from greploom.shell.answer_assembly import expand_marked, packed_answer, stored_graph
from greploom.shell.answer_meta import query_metadata
from greploom.shell.code_answer import code_answer
from greploom.shell.code_context import CodePlace
from greploom.shell.config import GrepLoomConfig
from greploom.shell.faults import storage_faults
from greploom.shell.node_lookup import node_hits, resolve_nodes
from greploom.shell.ports import TokenCounter
from greploom.shell.query_search import Searched, search_index, search_query
from greploom.shell.search import SearchHit
from greploom.shell.session_answer import record, session_metadata, shown_earlier
from greploom.shell.sessions import check_name
from greploom.shell.sessions import load as load_session
from greploom.shell.store import IndexStore
from greploom.shell.tokens import count_tokens
from greploom.shell.warm_index import WarmIndex

# QueryAnswer, TextAnswer and header_line live in shell.answer, resolve_nodes in
# shell.node_lookup; re-exported so `from greploom.shell.querying import ...` keeps working.
__all__ = ["QueryAnswer", "QueryEngine", "TextAnswer", "header_line", "resolve_nodes", "run_query"]


def cpg_graph(
    path: Path, tier: Tier, source_root: Path | None, *, walk: bool = False
) -> dict[str, NodeContext]:
    """The graph of a CPG file (``--cpg``): greploom.shell.rows.cpg_graph, imported when first asked for.

    Reading a CPG takes the indexing modules (rows, sources, the outliners);
    a query over the stored graph never imports them.
    """
    from greploom.shell.rows import cpg_graph as read_graph

    return read_graph(path, tier, source_root, walk=walk)


class QueryEngine:
    """A warm query path over one index file (thread-safe)."""

    def __init__(
        self, config: GrepLoomConfig, count: TokenCounter = count_tokens, *, one_shot: bool = False
    ) -> None:
        """``one_shot``: the engine answers one query and is closed (the cold CLI path)."""
        self.config = config
        self.count = count
        self._lock = threading.RLock()
        self._index = WarmIndex(one_shot=one_shot)  # the store, its meta, the embedder
        self._cpg: tuple[tuple[str, int, int, str, str], dict[str, NodeContext]] | None = None

    def close(self) -> None:
        """Close the store and the embedder."""
        with self._lock:
            self._index.close()

    def _graph(
        self, store: IndexStore, hits: Sequence[SearchHit], cpg_path: Path | None
    ) -> Mapping[str, NodeContext]:
        """The graph to expand through: the stored one, or that of ``--cpg``, read once and kept
        while the file and tier stay the same.

        A server started with ``--cpg`` would otherwise re-read the whole CPG on
        every call (17 s on numpy's), which is what 0.6.0 did.
        """
        if cpg_path is None:
            return stored_graph(store, hits)
        root = self._index.meta.get("source_root")
        tier, source_root = Tier(self._index.meta.get("tier", "enhanced")), Path(root) if root else None
        st = cpg_path.stat()
        stamp = (str(cpg_path.resolve()), st.st_mtime_ns, st.st_size, tier.value, str(source_root))
        if self._cpg is None or self._cpg[0] != stamp:
            self._cpg = (stamp, cpg_graph(cpg_path, tier, source_root, walk=True))
        return self._cpg[1]

    def search(
        self,
        store: IndexStore,
        text: str | Query,
        top_k: int,
        ranking: str = "signals",
        located: Sequence[str] | None = None,
        *,
        by_name: bool = False,
    ) -> tuple[list[SearchHit], str]:
        """Ranked candidates (all of them with signals, top-k plain), and the search mode.

        Lexical-only when the index has no vectors or the embedder does not answer.
        ``located``: the keys the query's places point at, when already looked up.
        ``by_name``: a symbol query naming a definition, searched without its
        vector: mode ``symbol`` (greploom.shell.query_search).
        """
        index = self._index
        hits, mode, index.embedder_error = search_index(
            store,
            as_query(text),
            top_k,
            ranking,
            embedder=index.embedder,
            embedder_error=index.embedder_error,
            located=located,
            by_name=by_name,
        )
        return hits, mode

    def _hits(
        self,
        store: IndexStore,
        query: Query | None,
        node_ids: Sequence[str],
        config: GrepLoomConfig,
        memory: Memory | None = None,
    ) -> tuple[Searched, list[str]]:
        """The nodes asked for (and the ids naming none), else what the query's search found."""
        if node_ids:
            hits, unknown = node_hits(store, node_ids)
            return Searched(tuple(hits), "nodes", None, 0, (), ()), unknown
        if query is None or not query.tokens:  # (no node ids: there is text)
            raise UsageError("the query has no searchable words; use names or plain words")
        index = self._index
        found = search_query(
            store,
            query,
            config,
            embedder=index.embedder,
            embedder_error=index.embedder_error,
            count=self.count,
            adaptive=config.context == "adaptive",
            memory=memory,
        )
        index.embedder_error = found.embedder_error
        return found, []

    def query(
        self,
        text: str | None = None,
        node_ids: Sequence[str] = (),
        *,
        budget: int | None = None,
        top_k: int | None = None,
        depth: int | None = None,
        include_source: bool | SourceMode = False,
        cpg_path: Path | None = None,
        ranking: str | None = None,
        context: str | None = None,
        db_named: Path | None = None,
        session: str | None = None,
        fresh: bool = False,
    ) -> QueryAnswer:
        """Answer a query or a node lookup with a packed context.

        ``session``: a name shared by related queries (greploom.shell.session_answer):
        a follow-up's candidates lean toward what the session has been about, and
        blocks it already received whole come as one-line references; ``fresh``
        forgets the session's memory first.

        ``ranking``: ``signals`` (code-aware re-ranking, the default) or ``plain``
        (RRF only). ``context``: ``adaptive`` (the score distribution decides how
        many hits) or ``fixed`` (top-k). Either way a hit too long for the budget
        left is shown shorter (the lines of its code that answer the query, else
        its summary, else its one-line reference); nodes asked for by key are
        cut instead. ``include_source``: a :class:`SourceMode` (``hits``: code
        for the hits only, what the CLI and MCP tools default to), or True
        (code for every block) and False (none). ``db_named``: the index's path as
        the caller named it (relative to its own working directory), for the header.
        """
        config = self.config.with_overrides(
            budget=budget, top_k=top_k, depth=depth, ranking=ranking, context=context, db_path=db_named
        )
        text = (text or "").strip()
        if not text and not node_ids:
            raise UsageError("give query text, or node keys/ids with --node")
        # The text read once: the search, the places and the focus all take this value.
        query = read_query(text) if text else None
        memory = None
        if session is not None:
            memory = Memory() if fresh else load_session(self.config.db_path, check_name(session))
        with self._lock, storage_faults(self.config.db_path, "read the index", self._index.probe):
            store = self._index.open(self.config)
            with store.snapshot():
                found, unknown = self._hits(store, query, node_ids, config, memory)
                graph = self._graph(store, found.hits, cpg_path)
                if cpg_path is not None:
                    unknown.extend(
                        f"{h.key} (not in {cpg_path.name})" for h in found.hits if h.key not in graph
                    )
                reach = None if node_ids else SEARCH_REACH  # a search's first hits
                nodes, freshness = self._expand(store, found.hits, graph, config.depth, reach)
                shortened = 0
                if memory is not None:
                    nodes, shortened = shown_earlier(nodes, memory)
            meta = query_metadata(
                self._index.meta,
                self._index.embedder_error,
                config=config,
                text=text,
                node_ids=node_ids,
                mode=found.mode,
                hits=found.hits,
                unknown=unknown,
                cpg_path=cpg_path,
                places_not_found=found.places_not_found,
                freshness=freshness,
                build=self._index.build,
            )
        meta.update(found.adaptive_metadata())
        if session is not None and memory is not None:
            meta["session"] = session_metadata(session, memory, found.gate, shortened, fresh=fresh)
        focus_on = FocusQuery.of(query, found.pointed) if query is not None else None
        answer = packed_answer(
            config,
            nodes,
            found.hits,
            meta,
            self.count,
            include_source=include_source,
            cut_hits=bool(node_ids),
            focus_on=focus_on,
        )
        if session is not None and memory is not None:
            record(self.config.db_path, session, memory, answer)
        return answer

    def code_context(
        self,
        code: str,
        place: CodePlace | None = None,
        *,
        budget: int | None = None,
        top_k: int | None = None,
        depth: int = 0,
        include_source: bool | SourceMode = SourceMode.HITS,
        db_named: Path | None = None,
    ) -> QueryAnswer:
        """The definitions a piece of code uses, packed: ``query --code`` and ``context_for_code``.

        ``place``: where the code was cut from, when it was (its enclosing
        definition is its own, and what that one calls is preferred).
        ``depth`` 0: the budget goes to the definitions themselves.
        The use case is greploom.shell.code_answer's, on this engine.
        """
        return code_answer(
            self,
            code,
            place,
            budget=budget,
            top_k=top_k,
            depth=depth,
            include_source=include_source,
            db_named=db_named,
        )

    # -- public pieces for the use cases kept in their own modules (shell.code_answer, shell.related) --
    @contextlib.contextmanager
    def reading(self) -> Iterator[IndexStore]:
        """The index, open in one snapshot under the engine's lock, its faults reported as a query's."""
        with self._lock, storage_faults(self.config.db_path, "read the index", self._index.probe):
            store = self._index.open(self.config)
            with store.snapshot():
                yield store

    def find(self, store: IndexStore, query: Query, config: GrepLoomConfig) -> Searched:
        """What :meth:`query` finds for a search (inside :meth:`reading`), before it expands:
        the hits an answer over several collections fuses (greploom.shell.federated)."""
        found, _unknown = self._hits(store, query, (), config)
        return found

    def metadata(self, config: GrepLoomConfig, **answer: Any) -> dict[str, Any]:
        """An answer's metadata from the open index's (inside :meth:`reading`); ``answer``: the rest
        of :func:`~greploom.shell.answer_meta.query_metadata`'s arguments."""
        return query_metadata(self._index.meta, None, config=config, build=self._index.build, **answer)

    def expand(
        self, store: IndexStore, hits: Sequence[SearchHit], depth: int, reach: int | None = None
    ) -> tuple[tuple[ExpandedNode, ...], str]:
        """The hits expanded through the stored graph, as :meth:`query` expands them (``reach``:
        how many of the first are, all by default; a search's :data:`SEARCH_REACH`)."""
        return self._expand(store, hits, stored_graph(store, hits), depth, reach)

    def pack(
        self,
        config: GrepLoomConfig,
        nodes: tuple[ExpandedNode, ...],
        hits: Sequence[SearchHit],
        meta: dict[str, Any],
        *,
        include_source: bool | SourceMode,
        focus_on: FocusQuery | None,
    ) -> QueryAnswer:
        """The answer, packed as :meth:`query` packs a search's (a long hit shown shorter)."""
        return packed_answer(
            config,
            nodes,
            hits,
            meta,
            self.count,
            include_source=include_source,
            cut_hits=False,
            focus_on=focus_on,
        )

    def _expand(
        self,
        store: IndexStore,
        hits: Sequence[SearchHit],
        graph: Mapping[str, NodeContext],
        depth: int,
        reach: int | None = None,
    ) -> tuple[tuple[ExpandedNode, ...], str]:
        """The hits expanded through the graph and marked stale (greploom.shell.answer_assembly)."""
        return expand_marked(store, hits, graph, depth, self._index.meta.get("source_root"), reach=reach)


def run_query(
    config: GrepLoomConfig,
    text: str | None = None,
    node_ids: Sequence[str] = (),
    *,
    include_source: bool | SourceMode = False,
    cpg_path: Path | None = None,
    session: str | None = None,
    fresh: bool = False,
) -> QueryAnswer:
    """One query against ``config.db_path``, with a fresh engine."""
    engine = QueryEngine(config, one_shot=True)
    try:
        return engine.query(
            text, node_ids, include_source=include_source, cpg_path=cpg_path, session=session, fresh=fresh
        )
    finally:
        engine.close()
