"""Search over an index: BM25 and vector candidates, fused plainly or re-ranked with code-aware signals.

Both functions take the query as read once (greploom.core.query; a text is
read at the entry), gather candidates for it from the store and return
ranked :class:`SearchHit` values; deciding how many to keep and packing them
is the query use case's job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

import apsw
import attrs

from greploom.core.candidate import Candidate
from greploom.core.candidate_pool import DEEPER, crowded, deepen, may_be_crowded
from greploom.core.factories import built_by, may_build
from greploom.core.focus import stem
from greploom.core.fusion import rrf_fuse
from greploom.core.legacy import legacy_trees
from greploom.core.naming import WORDED_MIN, worded
from greploom.core.old_code import legacy_suspects
from greploom.core.query import Query, QueryKind, as_query
from greploom.core.ranking import rank_candidates
from greploom.core.score_fusion import VECTOR_FLOOR_RANK, ScoreScale
from greploom.shell.ports import Embedder
from greploom.shell.store import IndexStore
from greploom.shell.successors import successors

FETCH_FACTOR = 2  # plain ranking: each backend fetches 2 x top-k candidates before fusion
CANDIDATES = 30  # signals ranking: candidates per backend, re-ranked before top-k or selection
NATURAL_CANDIDATES = 10  # ... for questions in words (see ranked_search)
NAMED_SYMBOLS = 32  # symbols a query may name for the lookup: a pasted file names hundreds
NAMESAKES = 64  # definitions looked up for the names of candidates in legacy-looking paths
WORDED_LOOKUPS = 8  # modules a question's words may name by their top-level names


@attrs.frozen
class SearchHit:
    """One search result: key, score (fused: by rank, or for a question re-ranked from its
    backends' normalized scores) and the rank in each backend (0: absent)."""

    key: str
    score: float
    lexical_rank: int
    vector_rank: int


def hybrid_search(
    store: IndexStore, text: str | Query, top_k: int = 5, embedder: Embedder | None = None
) -> list[SearchHit]:
    """BM25 and (with an embedder) vector search, 2 x top-k each, fused by RRF to top-k.

    ``text``: the query as read (greploom.core.query), or its text, read here.
    Raises :class:`EmbedderError` when the embedder fails; without one the
    search is lexical only.
    """
    query = as_query(text)
    limit = top_k * FETCH_FACTOR
    lexical = [k for k, _ in store.search_lexical(query.match, limit)]
    lists = [lexical]
    if embedder is not None:
        lists.append([k for k, _ in store.search_vector(embedder.embed_query(query.text), limit)])
    return [
        SearchHit(f.key, f.score, f.ranks[0], f.ranks[1] if len(f.ranks) > 1 else 0)
        for f in rrf_fuse(lists)[:top_k]
    ]


def names_a_definition(store: IndexStore, query: Query) -> bool:
    """Whether a symbol query (``Session.send``, ``parse_url``) names a definition the index holds.

    Such a query is answered by name and words alone: its vector adds nothing
    (measured on the quality harness's 80 symbol queries in 8 code bases: NDCG@10
    1.000 with the vector and without, 1,548 and 1,544 tokens per answer), and
    skipping it skips loading the model, which is most of a cold query's time.
    """
    return query.kind is QueryKind.SYMBOL and bool(store.definitions_named(query.symbols[:NAMED_SYMBOLS], 1))


def ranked_search(
    store: IndexStore,
    text: str | Query,
    limit: int = CANDIDATES,
    embedder: Embedder | None = None,
    *,
    located: Sequence[str] | None = None,
    binding: Collection[str] | None = None,
    worded_names: Sequence[tuple[str, int]] | None = None,
) -> list[SearchHit]:
    """Candidates from both backends and the name lookup (``limit`` each), re-ranked with signals.

    Every candidate is returned, best first; the caller takes top-k or lets
    the score distribution decide. ``text``: the query as read
    (greploom.core.query), or its text, read here. ``located``: the keys
    the query's places point at, when the caller has looked them up
    (``IndexStore.locate``); looked up here otherwise. ``binding``: the modules that
    bind a named symbol at their top level (``IndexStore.module_name_lines``), likewise;
    ``worded_names``: for a question, the modules binding a name it says the words of
    (:func:`worded_modules`), likewise.
    Raises :class:`EmbedderError` when the embedder fails.
    """
    query = as_query(text)
    if query.kind is QueryKind.NATURAL:
        # Measured on the quality harness: a question fused over 10 candidates per
        # backend ranks better than over 30 (the tails add noise, not answers).
        limit = min(limit, NATURAL_CANDIDATES)
    natural = query.kind is QueryKind.NATURAL
    # Every BM25 score the lexical searches gave, by key: a question fuses the backends' scores
    # (greploom.core.score_fusion).
    lexical_raw: dict[str, float] = {}

    def words(n: int) -> list[tuple[str, float]]:
        found = store.search_lexical(query.match, n)
        lexical_raw.update(found)
        return found

    lexical = [k for k, _ in words(limit)]
    query_vector = embedder.embed_query(query.text) if embedder else None
    found: list[tuple[str, float]] = []
    if query_vector is not None:
        # A question's vector list is read once, to its floor (VECTOR_FLOOR_RANK) and as deep
        # as tests crowding it may ask; its first ``limit`` are the candidates.
        reach = max(limit * DEEPER, VECTOR_FLOOR_RANK) if natural else limit
        found = store.search_vector(query_vector, reach)
    vector = [k for k, _ in found[:limit]]
    similarity = {k: 1.0 - distance for k, distance in found}
    vector_scale = ScoreScale.of(list(similarity.values()), floor_rank=VECTOR_FLOOR_RANK)
    lexical_scale = ScoreScale.of([lexical_raw[k] for k in lexical])
    described = store.describe(set(lexical) | set(vector))
    if natural:  # tests crowding a list: that backend is asked deeper
        lexical = _product_deeper(store, lexical, described, query, search=words, limit=limit)
        if query_vector is not None:
            vector = _product_deeper(store, vector, described, query, search=lambda n: found[:n], limit=limit)
    # The definitions the query names, looked up by name: BM25 alone can miss
    # them (the symbol query `Flask` did not find class Flask in its top 30:
    # the word is in most of flask's rows, so its IDF is nil, and the class's
    # 57,000 characters of body outweigh its name).
    named = store.definitions_named(query.symbols[:NAMED_SYMBOLS], limit)
    # The modules binding a name a question says the words of (greploom.core.naming):
    # "config keys renamed in v2", V2_RENAMED_KEYS.
    if worded_names is None:
        worded_names = worded_modules(store, query)
    worded_rank = {k: i for i, (k, _line) in enumerate(worded_names, start=1)}
    # The definitions the query's places point at (`adapters.py:412`, a traceback).
    if located is None:
        located = store.definitions_at(query.places)
    if binding is None:
        binding = {key for key, _line in store.module_name_lines(query.symbols[:NAMED_SYMBOLS])}
    lex_rank = {k: i for i, k in enumerate(lexical, start=1)}
    vec_rank = {k: i for i, k in enumerate(vector, start=1)}
    fused = natural and query_vector is not None  # scores fused, not ranks

    def scores(key: str) -> tuple[float | None, float | None]:
        if not fused:
            return None, None
        return (
            lexical_scale.normalize(lexical_raw[key]) if key in lex_rank else 0.0,
            vector_scale.normalize(similarity[key]) if key in vec_rank else 0.0,
        )

    sym_rank = {k: i for i, k in enumerate(named, start=1)}
    loc_rank = {k: i for i, k in enumerate(located, start=1)}
    _describe_more(store, described, [*named, *located, *worded_rank])
    replaced = successors(store, described)
    candidates = [
        Candidate(
            key,
            name,
            qualname,
            file,
            lex_rank.get(key, 0),
            vec_rank.get(key, 0),
            sym_rank.get(key, 0),
            loc_rank.get(key, 0),
            kind,
            key in binding,
            replaced.get(key, ()),
            worded_rank.get(key, 0),
            *scores(key),
        )
        for key, (name, qualname, file, kind) in described.items()
    ]
    # A question lifts the candidate that calls several of the others (greploom.core.call_evidence).
    calls = store.calls_among(described) if natural else None
    # ... and a thin private factory yields to what it builds (greploom.core.factories).
    builds = factories(store, candidates) if natural else None
    ranked = rank_candidates(
        query, candidates, namesakes=namesakes(store, candidates), calls=calls, builds=builds
    )
    return [
        SearchHit(r.candidate.key, r.score, r.candidate.lexical_rank, r.candidate.vector_rank) for r in ranked
    ]


def worded_modules(store: IndexStore, query: Query) -> tuple[tuple[str, int], ...]:
    """``(module key, line)`` of the top-level names a question says the words of, best first
    (greploom.core.naming.worded); none for a symbol query or an index without the names."""
    if query.kind is not QueryKind.NATURAL:
        return ()
    stems = sorted({stem(w) for w in query.words if len(w) >= 3 or any(c.isdigit() for c in w)})
    if len(stems) < WORDED_MIN:
        return ()
    likes = " OR ".join("name LIKE ?" for _ in stems)
    try:
        rows = [
            (str(key), str(name), int(line))
            for key, name, line in store.conn.execute(
                f"SELECT key, name, line FROM module_names WHERE {likes}", [f"%{s}%" for s in stems]
            )
        ]
    except apsw.SQLError:  # an index written before greploom kept them
        return ()
    found = worded(query.words, rows)
    if not found:
        return ()
    # A name a JavaScript module binds to another module (`var contentType = require(...)`)
    # is an import, as Python's are, which the names leave out: not this module's own.
    sources = store.sources(key for key, _line in found)
    imported = {
        (key, name)
        for key, source in sources.items()
        for k, name, _line in rows
        if k == key and re.search(rf"\b{re.escape(name)}\s*=\s*require\(", source)
    }
    if imported:
        found = worded(query.words, [r for r in rows if (r[0], r[1]) not in imported])
    return found[:WORDED_LOOKUPS]


def _product_deeper(
    store: IndexStore,
    shallow: list[str],
    described: dict[str, tuple[str, str, str, str]],
    query: Query,
    *,
    search: Callable[[int], list[tuple[str, float]]],
    limit: int,
) -> list[str]:
    """A backend's list, fetched deeper for product code when tests and the like crowd it
    (greploom.core.candidate_pool); as it was otherwise. ``described``: what is known of
    the candidates (``IndexStore.describe``), completed with the deeper ones."""
    known = [described[k] for k in shallow if k in described]
    files, kinds = [d[2] for d in known], [d[3] for d in known]
    # Not crowded whatever legacy trees the code base holds: as it is.
    if not may_be_crowded(files, query.words, kinds):
        return shallow
    deep = [k for k, _ in search(limit * DEEPER)]
    seen = dict(described)  # the deeper ones join the candidates only when the list is deepened
    _describe_more(store, seen, deep)
    pairs = [(k, seen[k][2]) for k in deep if k in seen]
    # The legacy trees of the files both lists show (pydantic/v1 beside pydantic's own files).
    trees = legacy_trees([*files, *(file for _, file in pairs)])
    if not crowded(files, query.words, kinds, trees):
        return shallow
    described.update(seen)
    return deepen(shallow, pairs, limit, query.words, {k: d[3] for k, d in described.items()}, trees=trees)


def _describe_more(
    store: IndexStore, described: dict[str, tuple[str, str, str, str]], keys: Sequence[str]
) -> None:
    """Add to ``described`` the keys it lacks (one lookup for them all)."""
    missing = [k for k in dict.fromkeys(keys) if k not in described]
    if missing:
        described.update(store.describe(missing))


def factories(store: IndexStore, candidates: Sequence[Candidate]) -> dict[str, frozenset[str]]:
    """What each candidate that is a thin private factory builds (greploom.core.factories):
    one read of the private functions' sources, none when there is no such candidate."""
    private = {c.key: c.name for c in candidates if c.kind == "function" and may_build(c.name, c.file)}
    if not private:
        return {}
    found = {key: built_by(private[key], source) for key, source in store.sources(private).items()}
    return {key: names for key, names in found.items() if names}


def namesakes(store: IndexStore, candidates: Sequence[Candidate]) -> list[tuple[str, str]]:
    """``(name, file)`` of the definitions sharing a name with a candidate in a legacy-looking path.

    Most queries have no such candidate and look nothing up; the others take
    one lookup through the name index (``core.ranking.legacy_suspects``).
    """
    names = legacy_suspects(candidates)
    if not names:
        return []
    keys = store.definitions_named(names, NAMESAKES)
    return [(name, file) for name, _, file, _ in store.describe(keys).values()]
