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
an error listing their keys, never a silent guess.

:class:`QueryEngine` keeps the store connection, the embedder and the
tokenizer warm, so the MCP server reuses one per index; the CLI makes one per
call. It reopens the store when the index file was replaced underneath it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from greploom.core.adaptive import CEILING, Selection, select
from greploom.core.envelope import PackedEnvelope, pack_envelope
from greploom.core.errors import EmbedderError, StoreError, UsageError
from greploom.core.expand import ExpandedNode, NodeContext, expand_hits
from greploom.core.focus import FocusQuery
from greploom.core.freshness import mark_stale
from greploom.core.names import candidates_line
from greploom.core.query import Query, as_query, read_query
from greploom.core.render import SourceMode
from greploom.core.snippet import read_snippet
from greploom.core.summary import Tier
from greploom.shell.answer import QueryAnswer, TextAnswer, header_line, pack_text
from greploom.shell.answer_meta import query_metadata
from greploom.shell.code_context import CODE_CONTEXT_TOP, CodePlace, check_code, gather
from greploom.shell.config import GrepLoomConfig
from greploom.shell.embedders import query_embedder
from greploom.shell.faults import storage_faults
from greploom.shell.freshness import changed_files
from greploom.shell.guard import clip
from greploom.shell.lock import run_in_progress
from greploom.shell.ports import Embedder, TokenCounter, recorded_identity
from greploom.shell.schema import BUILDING
from greploom.shell.search import (
    CANDIDATES,
    NAMED_SYMBOLS,
    SearchHit,
    hybrid_search,
    names_a_definition,
    ranked_search,
)
from greploom.shell.store import IndexStore
from greploom.shell.store_graph import StoreGraph
from greploom.shell.tokens import count_tokens

# QueryAnswer, TextAnswer and header_line live in shell.answer; re-exported so
# `from greploom.shell.querying import ...` keeps working.
__all__ = ["QueryAnswer", "QueryEngine", "TextAnswer", "header_line", "run_query"]


def cpg_graph(
    path: Path, tier: Tier, source_root: Path | None, *, walk: bool = False
) -> dict[str, NodeContext]:
    """The graph of a CPG file (``--cpg``): greploom.shell.rows.cpg_graph, imported when first asked for.

    Reading a CPG takes the indexing modules (rows, sources, the outliners);
    a query over the stored graph never imports them.
    """
    from greploom.shell.rows import cpg_graph as read_graph

    return read_graph(path, tier, source_root, walk=walk)


@attrs.frozen
class Searched:
    """A searched query: its hits, the search mode, what adaptive context kept, its places."""

    hits: tuple[SearchHit, ...]
    mode: str
    selection: Selection | None  # adaptive context: what it kept
    candidates: int  # how many the ranking gave
    places_not_found: tuple[str, ...]
    pointed: tuple[tuple[str, int], ...]  # (key, line) the query's places point at


class QueryEngine:
    """A warm query path over one index file (thread-safe)."""

    def __init__(
        self, config: GrepLoomConfig, count: TokenCounter = count_tokens, *, one_shot: bool = False
    ) -> None:
        """``one_shot``: the engine answers one query and is closed (the cold CLI path)."""
        self.config = config
        self._one_shot = one_shot
        self.count = count
        self._lock = threading.RLock()
        self._store: IndexStore | None = None
        self._stamp: tuple[int, int] | None = None
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        self._meta: dict[str, str] = {}
        self._cpg: tuple[tuple[str, int, int, str, str], dict[str, NodeContext]] | None = None
        self._build: tuple[int, bool] | None = None  # a first run's (vectors %, still running)

    def close(self) -> None:
        """Close the store and the embedder."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
            if self._embedder is not None:
                self._embedder.close()
                self._embedder = None

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.config.db_path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_dev)

    def _open(self) -> IndexStore:
        """The store, reopened when the file was replaced; the embedder, when the index changed it."""
        stamp = self._file_stamp()
        if self._store is not None and stamp == self._stamp:
            meta = self._store.meta()
        else:
            if self._store is not None:
                self._store.close()
            self._store = IndexStore.open_existing(self.config.db_path, readonly=True)
            self._stamp = stamp
            meta = self._store.meta()
        if not meta.get("indexed_at"):
            raise StoreError(
                f"the index {self.config.db_path} was never completed (its first run failed or is still "
                f"running); run `greploom index PATH --db {self.config.db_path}`"
            )
        identity_keys = ("embedder_provider", "embedder_model", "embedder_dimension")
        if any(meta.get(k) != self._meta.get(k) for k in identity_keys) or not self._meta:
            if self._embedder is not None:
                self._embedder.close()
            self._embedder, self._embedder_error = None, None
            self._embedder = query_embedder(
                self.config,
                recorded_identity(meta),
                meta.get("embedder_url") or None,
                one_shot=self._one_shot,
            )
        self._meta = meta
        self._build = _build_state(self._store, meta, self.config.db_path)
        return self._store

    def _probe(self) -> list[str]:
        """What is wrong with the open index file, for an SQLite failure that names no cause."""
        return self._store.quick_check() if self._store is not None else []

    def _cpg_graph(self, cpg_path: Path, tier: Tier, source_root: Path | None) -> dict[str, NodeContext]:
        """The graph of ``--cpg``, read once and kept while the file and tier stay the same.

        A server started with ``--cpg`` would otherwise re-read the whole CPG on
        every call (17 s on numpy's), which is what 0.6.0 did.
        """
        st = cpg_path.stat()
        stamp = (str(cpg_path.resolve()), st.st_mtime_ns, st.st_size, tier.value, str(source_root))
        if self._cpg is None or self._cpg[0] != stamp:
            self._cpg = (stamp, cpg_graph(cpg_path, tier, source_root, walk=True))
        return self._cpg[1]

    def _warm_up(self, store: IndexStore) -> None:
        """Before a search that will embed the query: start loading the model, build the token table.

        The local model loads in a background thread and onnxruntime builds its
        session (about 0.2 s) without holding the GIL, so the token table (the
        counter builds it on first use) and the lexical search are done
        meanwhile instead of after. Changes no result: the same model answers,
        the same table counts. Whatever fails here fails again where it is
        needed, and is reported there (an unreadable token table as itself,
        not as a fault of the index file).
        """
        preload = getattr(self._embedder, "preload", None) if store.has_vectors() else None
        if preload is not None:
            preload()
            with contextlib.suppress(Exception):
                self.count("")

    def _search_hits(
        self, store: IndexStore, query: Query, config: GrepLoomConfig, *, adaptive: bool
    ) -> Searched:
        """The hits of a query, how it was searched, and the places it points at.

        A symbol query naming a definition the index holds is searched by name
        and words (:func:`greploom.shell.search.names_a_definition`): no vector,
        so no model to warm up.
        """
        by_name = config.ranking == "signals" and names_a_definition(store, query)
        if not by_name:
            self._warm_up(store)
        # Places looked up once, for the ranking and for the header: a
        # `path:line` the index has no file for is answered as words, and says so.
        placed = store.locate(query.places)
        not_found = tuple(
            f"{place.path}:{place.line}" for place, keys in placed if place.line is not None and not keys
        )
        located = list(dict.fromkeys(key for _, keys in placed for key in keys))
        pointed = tuple((k, p.line) for p, keys in placed if p.line is not None for k in keys)
        # A module found by a name it binds at its top level shows that assignment's line.
        pointed += tuple(store.module_name_lines(query.symbols[:NAMED_SYMBOLS]))
        candidates, mode = self.search(store, query, config.top_k, config.ranking, located, by_name=by_name)
        selection = select([h.score for h in candidates[:CEILING]]) if adaptive else None
        kept = candidates[: selection.kept] if selection is not None else candidates[: config.top_k]
        return Searched(tuple(kept), mode, selection, len(candidates), not_found, pointed)

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
        ``by_name``: a symbol query naming a definition (:meth:`_warm_up`), searched
        without its vector: mode ``symbol``.
        """
        query = as_query(text)
        embedder = self._embedder if store.has_vectors() and not by_name else None

        def search(with_embedder: Embedder | None) -> list[SearchHit]:
            if ranking == "plain":
                return hybrid_search(store, query, top_k, with_embedder)
            return ranked_search(store, query, CANDIDATES, with_embedder, located=located)

        if embedder is not None:
            try:
                hits = search(embedder)
                self._embedder_error = None
                return hits, "hybrid"
            except EmbedderError as exc:
                self._embedder_error = str(exc)
        # A symbol searched by name says so; an index without vectors says that first.
        return search(None), "symbol" if by_name and store.has_vectors() else "lexical-only"

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
    ) -> QueryAnswer:
        """Answer a query or a node lookup with a packed context.

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
        adaptive = config.context == "adaptive" and not node_ids
        selection: Selection | None = None
        candidates = 0
        text = (text or "").strip()
        if not text and not node_ids:
            raise UsageError("give query text, or node keys/ids with --node")
        # The text read once: the search, the places and the focus all take this value.
        query = read_query(text) if text else None
        with self._lock, storage_faults(self.config.db_path, "read the index", self._probe):
            store = self._open()
            with store.snapshot():
                unknown: list[str] = []
                places_not_found: list[str] = []
                pointed: list[tuple[str, int]] = []  # (key, line) the query's places point at
                if node_ids:
                    resolved = resolve_nodes(store, node_ids)
                    unknown = [n for n in node_ids if n not in resolved]
                    if not resolved:
                        raise UsageError(
                            f"unknown node(s): {clip(', '.join(unknown))}; "
                            "use a key, CPG id or qualified name from a result"
                        )
                    hits = [SearchHit(k, 1.0, 0, 0) for k in dict.fromkeys(resolved.values())]
                    mode = "nodes"
                else:
                    if query is None or not query.tokens:  # (no node ids: there is text)
                        raise UsageError("the query has no searchable words; use names or plain words")
                    found = self._search_hits(store, query, config, adaptive=adaptive)
                    hits, mode = list(found.hits), found.mode
                    selection, candidates = found.selection, found.candidates
                    places_not_found, pointed = list(found.places_not_found), list(found.pointed)
                graph: Mapping[str, NodeContext]
                if cpg_path is not None:
                    root = self._meta.get("source_root")
                    graph = self._cpg_graph(
                        cpg_path, Tier(self._meta.get("tier", "enhanced")), Path(root) if root else None
                    )
                    missing = [h.key for h in hits if h.key not in graph]
                    unknown.extend(f"{k} (not in {cpg_path.name})" for k in missing)
                else:
                    stored = StoreGraph(store)
                    stored.prefetch(h.key for h in hits)
                    graph = stored
                nodes, freshness = self._expand(store, hits, graph, config.depth)
            meta = query_metadata(
                self._meta,
                self._embedder_error,
                config=config,
                text=text,
                node_ids=node_ids,
                mode=mode,
                hits=hits,
                unknown=unknown,
                cpg_path=cpg_path,
                places_not_found=places_not_found,
                freshness=freshness,
                build=self._build,
            )
        if selection is not None:
            meta.update(
                candidates=candidates,
                kept=selection.kept,
                effective=round(selection.effective, 2),
                mass_left_out=round(selection.mass_left_out, 4),
            )
        focus_on = FocusQuery.of(query, pointed) if query is not None else None
        return self._pack(
            config,
            nodes,
            hits,
            meta,
            include_source=include_source,
            cut_hits=bool(node_ids),
            focus_on=focus_on,
        )

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
        """
        config = self.config.with_overrides(budget=budget, top_k=top_k, depth=depth, db_path=db_named)
        snippet = read_snippet(check_code(code))
        if not snippet.terms:
            raise UsageError(
                "the code uses no names to look up (only keywords, literals, comments or its own names)"
            )
        with self._lock, storage_faults(self.config.db_path, "read the index", self._probe):
            store = self._open()
            with store.snapshot():
                found = gather(store, snippet, place, max(config.top_k, CODE_CONTEXT_TOP))
                hits = [SearchHit(r.key, r.score, 0, 0) for r in found.ranked]
                stored = StoreGraph(store)
                stored.prefetch(h.key for h in hits)
                nodes, freshness = self._expand(store, hits, stored, config.depth)
            meta = query_metadata(
                self._meta,
                None,
                config=config,
                text=clip(code.strip(), 200),
                node_ids=(),
                mode="code context",
                hits=hits,
                unknown=(),
                cpg_path=None,
                freshness=freshness,
                build=self._build,
            )
        meta.update(names=len(snippet.terms), names_resolved=found.resolved, own_definitions=list(found.own))
        focus_on = FocusQuery.of(" ".join(t.name for t in snippet.terms))
        return self._pack(
            config, nodes, hits, meta, include_source=include_source, cut_hits=False, focus_on=focus_on
        )

    # -- public pieces for the use cases kept in their own modules (greploom.shell.related) ---------
    @contextlib.contextmanager
    def reading(self) -> Iterator[IndexStore]:
        """The index, open in one snapshot under the engine's lock, its faults reported as a query's."""
        with self._lock, storage_faults(self.config.db_path, "read the index", self._probe):
            store = self._open()
            with store.snapshot():
                yield store

    def metadata(self, config: GrepLoomConfig, **answer: Any) -> dict[str, Any]:
        """An answer's metadata from the open index's (inside :meth:`reading`); ``answer``: the rest
        of :func:`~greploom.shell.answer_meta.query_metadata`'s arguments."""
        return query_metadata(self._meta, None, config=config, build=self._build, **answer)

    def expand(
        self, store: IndexStore, hits: Sequence[SearchHit], depth: int
    ) -> tuple[tuple[ExpandedNode, ...], str]:
        """The hits expanded through the stored graph, as :meth:`query` expands them."""
        stored = StoreGraph(store)
        stored.prefetch(h.key for h in hits)
        return self._expand(store, hits, stored, depth)

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
        return self._pack(
            config, nodes, hits, meta, include_source=include_source, cut_hits=False, focus_on=focus_on
        )

    def _expand(
        self, store: IndexStore, hits: Sequence[SearchHit], graph: Mapping[str, NodeContext], depth: int
    ) -> tuple[tuple[ExpandedNode, ...], str]:
        """The hits expanded through the graph, those from files changed since the index
        flagged stale, and whether that was ``checked`` or is ``unknown`` (no source
        directory, or its files not stamped)."""
        nodes = expand_hits([h.key for h in hits], graph, depth)
        root = self._meta.get("source_root")
        recorded = store.file_stamps({n.ref.file for n in nodes}) if root else {}
        if not root or not recorded or not Path(root).is_dir():
            return nodes, "unknown"
        return mark_stale(nodes, changed_files(Path(root), recorded)), "checked"

    def _pack(
        self,
        config: GrepLoomConfig,
        nodes: tuple[ExpandedNode, ...],
        hits: Sequence[SearchHit],
        meta: dict[str, Any],
        *,
        include_source: bool | SourceMode,
        cut_hits: bool,
        focus_on: FocusQuery | None = None,
    ) -> QueryAnswer:
        if not nodes:
            meta["note"] = "no code matched; try other words, a symbol name, or `greploom status`"

        def text_at(budget: int) -> TextAnswer | None:
            return pack_text(
                meta,
                nodes,
                budget,
                self.count,
                include_source=include_source,
                cut_hits=cut_hits,
                focus_on=focus_on,
            )

        def json_at(budget: int) -> PackedEnvelope | None:
            return pack_envelope(
                meta,
                nodes,
                budget,
                self.count,
                include_source=include_source,
                cut_hits=cut_hits,
                focus_on=focus_on,
            )

        return QueryAnswer(
            nodes=nodes,
            hits=tuple(hits),
            budget=config.budget,
            unknown_nodes=meta["unknown_nodes"],
            places_not_found=meta["places_not_found"],
            text_at=text_at,
            json_at=json_at,
        )


def _build_state(store: IndexStore, meta: Mapping[str, str], db_path: Path) -> tuple[int, bool] | None:
    """How far a first run's vectors are (percent of rows), and whether it still runs; None when
    no first run is under way or stopped (greploom.shell.index_state.BUILDING)."""
    if not meta.get(BUILDING):
        return None
    have, rows = store.vector_coverage()
    return (100 * have // rows if rows else 0), run_in_progress(db_path)


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


def run_query(
    config: GrepLoomConfig,
    text: str | None = None,
    node_ids: Sequence[str] = (),
    *,
    include_source: bool | SourceMode = False,
    cpg_path: Path | None = None,
) -> QueryAnswer:
    """One query against ``config.db_path``, with a fresh engine."""
    engine = QueryEngine(config, one_shot=True)
    try:
        return engine.query(text, node_ids, include_source=include_source, cpg_path=cpg_path)
    finally:
        engine.close()
