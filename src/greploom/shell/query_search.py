"""A query's search step: which way it is searched, what it found, and where its places point.

The mode is decided per query, in this order:

- ``symbol``: a symbol query naming a definition the index holds is searched
  by name and words (:func:`greploom.shell.search.names_a_definition`): no
  vector, so no model to warm up;
- ``hybrid``: the index has vectors and the embedder answers;
- ``lexical-only``: the index has no vectors, or the embedder does not answer
  (its error is kept for the answer's metadata).

Ranking ``signals`` re-ranks every candidate (greploom.shell.search.ranked_search),
``plain`` fuses top-k by RRF alone; adaptive context (greploom.core.adaptive)
then decides how many hits to keep. A query's places (``path:line``) are
looked up once, for the ranking and for the header.

The embedder belongs to the caller (:class:`~greploom.shell.querying.QueryEngine`
keeps it warm); these functions take it, and return the embedder's error as it
stands after the search, for the caller to keep.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import Any

import attrs

from greploom.core.adaptive import CEILING, Selection, select
from greploom.core.errors import EmbedderError
from greploom.core.followup import Memory
from greploom.core.query import Query
from greploom.shell.config import GrepLoomConfig
from greploom.shell.ports import Embedder, TokenCounter
from greploom.shell.search import (
    CANDIDATES,
    NAMED_SYMBOLS,
    SearchHit,
    hybrid_search,
    names_a_definition,
    ranked_search,
    worded_modules,
)
from greploom.shell.session_answer import follow_up
from greploom.shell.store import IndexStore

__all__ = ["Searched", "search_index", "search_query", "warm_up"]


@attrs.frozen
class Searched:
    """A searched query: its hits, the search mode, what adaptive context kept, its places."""

    hits: tuple[SearchHit, ...]
    mode: str
    selection: Selection | None  # adaptive context: what it kept
    candidates: int  # how many the ranking gave
    places_not_found: tuple[str, ...]
    pointed: tuple[tuple[str, int], ...]  # (key, line) the query's places point at
    embedder_error: str | None = None  # the embedder's error as it stands after the search
    gate: float = 0.0  # in a session: how much its memory shaped the candidates (0: not at all)

    def adaptive_metadata(self) -> dict[str, Any]:
        """What adaptive context states in the answer's metadata (nothing for a fixed context)."""
        if self.selection is None:
            return {}
        return {
            "candidates": self.candidates,
            "kept": self.selection.kept,
            "effective": round(self.selection.effective, 2),
            "mass_left_out": round(self.selection.mass_left_out, 4),
        }


def warm_up(store: IndexStore, embedder: Embedder | None, count: TokenCounter) -> None:
    """Before a search that will embed the query: start loading the model, build the token table.

    The local model loads in a background thread and onnxruntime builds its
    session (about 0.2 s) without holding the GIL, so the token table (the
    counter builds it on first use) and the lexical search are done
    meanwhile instead of after. Changes no result: the same model answers,
    the same table counts. Whatever fails here fails again where it is
    needed, and is reported there (an unreadable token table as itself,
    not as a fault of the index file).
    """
    preload = getattr(embedder, "preload", None) if store.has_vectors() else None
    if preload is not None:
        preload()
        with contextlib.suppress(Exception):
            count("")


def search_query(
    store: IndexStore,
    query: Query,
    config: GrepLoomConfig,
    *,
    embedder: Embedder | None,
    embedder_error: str | None,
    count: TokenCounter,
    adaptive: bool,
    memory: Memory | None = None,
) -> Searched:
    """The hits of a query, how it was searched, and the places it points at.

    ``embedder_error``: the embedder's error as it stood before (kept when the
    embedder is not asked). A symbol query naming a definition is searched by
    name (see the module), so the model is not warmed up for it.
    """
    by_name = config.ranking == "signals" and names_a_definition(store, query)
    if not by_name:
        warm_up(store, embedder, count)
    # Places looked up once, for the ranking and for the header: a
    # `path:line` the index has no file for is answered as words, and says so.
    placed = store.locate(query.places)
    not_found = tuple(
        f"{place.path}:{place.line}" for place, keys in placed if place.line is not None and not keys
    )
    located = list(dict.fromkeys(key for _, keys in placed for key in keys))
    pointed = tuple((k, p.line) for p, keys in placed if p.line is not None for k in keys)
    # A module found by a name it binds at its top level shows that assignment's line, and so
    # does one a question names by the words of such a name (greploom.core.naming.worded).
    bound = store.module_name_lines(query.symbols[:NAMED_SYMBOLS])
    worded = worded_modules(store, query) if config.ranking == "signals" else ()
    pointed += (*bound, *worded)
    candidates, mode, error = search_index(
        store,
        query,
        config.top_k,
        config.ranking,
        embedder=embedder,
        embedder_error=embedder_error,
        located=located,
        binding={key for key, _line in bound},
        worded=worded,
        by_name=by_name,
    )
    g = 0.0
    if memory is not None:  # a session's follow-up: its memory may shape the candidates
        candidates, g = follow_up(store, candidates, query, memory)
    selection = select([h.score for h in candidates[:CEILING]]) if adaptive else None
    kept = candidates[: selection.kept] if selection is not None else candidates[: config.top_k]
    return Searched(tuple(kept), mode, selection, len(candidates), not_found, pointed, error, g)


def search_index(
    store: IndexStore,
    query: Query,
    top_k: int,
    ranking: str,
    *,
    embedder: Embedder | None,
    embedder_error: str | None,
    located: Sequence[str] | None = None,
    binding: Collection[str] | None = None,
    worded: Sequence[tuple[str, int]] | None = None,
    by_name: bool = False,
) -> tuple[list[SearchHit], str, str | None]:
    """Ranked candidates (all of them with signals, top-k plain), the search mode, the embedder's error.

    Lexical-only when the index has no vectors or the embedder does not answer.
    ``located``: the keys the query's places point at, when already looked up.
    ``by_name``: a symbol query naming a definition (:func:`search_query`), searched
    without its vector: mode ``symbol``. The error returned is None when the
    embedder answered, its message when it failed, ``embedder_error`` when it
    was not asked.
    """
    embedder = embedder if store.has_vectors() and not by_name else None

    def search(with_embedder: Embedder | None) -> list[SearchHit]:
        if ranking == "plain":
            return hybrid_search(store, query, top_k, with_embedder)
        return ranked_search(
            store, query, CANDIDATES, with_embedder, located=located, binding=binding, worded_names=worded
        )

    if embedder is not None:
        try:
            return search(embedder), "hybrid", None
        except EmbedderError as exc:
            embedder_error = str(exc)
    # A symbol searched by name says so; an index without vectors says that first.
    return search(None), "symbol" if by_name and store.has_vectors() else "lexical-only", embedder_error
