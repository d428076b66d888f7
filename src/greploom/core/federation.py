"""One ranking over several collections' indexes, and their expanded nodes in one order.

Each collection is its own index (one SQLite file), searched on its own.
Their scores are not comparable (BM25 over different corpora, perhaps
different embedders, signals normalised per index); their ranks are. So the
ranked lists are fused by reciprocal rank (greploom.core.fusion):

    score(c, key) = 1 / (k + rank_c(key))

A key is only unique within its collection, so an item is the pair
(collection, key) and two lists never share one: the fused order takes
every collection's first hit, then every second, and so on, ties (the same
rank) broken by collection name. No collection can crowd out another by
scoring on a scale of its own.

The expanded nodes of each collection (each expanded through its own graph)
are then put in one order: by relevance, then by the fused position of the
hit each descends from, then hops, collection and key, which is the order
greploom.core.expand gives within one index, extended across several.

Laws (tests/properties/test_federation.py): one collection keeps its order;
the fused list holds every (collection, key) once; each collection's own
order is kept; the first ``n * r`` of ``n`` collections hold the first ``r``
of every list; the order the collections are named in changes nothing;
adding a collection never moves a hit earlier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from greploom.core.expand import ExpandedNode, Relationship
from greploom.core.fusion import RRF_K, rrf_fuse

# Between a collection's name and a key in the fused lists: below every character a
# name may hold (greploom.core.collections.NAME), so the tie-break by key is by name first.
_SEP = "\x1f"


@attrs.frozen
class FederatedHit:
    """A hit of the fused ranking: its collection, its key, its rank there (1-based), its RRF score."""

    collection: str
    key: str
    rank: int
    score: float


def merge_ranked(lists: Mapping[str, Sequence[str]], k: float = RRF_K) -> tuple[FederatedHit, ...]:
    """The ranked keys of each collection (by name) fused into one ranking (see the module)."""
    names = sorted(lists)
    fused = rrf_fuse([[f"{name}{_SEP}{key}" for key in lists[name]] for name in names], k=k)
    out = []
    for item in fused:
        name, key = item.key.split(_SEP, 1)
        out.append(FederatedHit(name, key, item.best_rank, item.score))
    return tuple(out)


def federated_nodes(
    expanded: Mapping[str, Sequence[ExpandedNode]], merged: Sequence[FederatedHit]
) -> tuple[ExpandedNode, ...]:
    """Every collection's expanded nodes, each labelled with its collection, in one order.

    ``expanded``: per collection, its hits expanded through its own graph;
    ``merged``: the fused ranking those hits came from (:func:`merge_ranked`).
    """
    position = {(h.collection, h.key): i for i, h in reversed(list(enumerate(merged)))}
    ordered: list[tuple[float, int, int, str, str, ExpandedNode]] = []
    for name in sorted(expanded):
        nodes = expanded[name]
        by_key = {n.ref.key: n for n in nodes}
        for node in nodes:
            origin = position.get((name, _hit_of(node, by_key)), len(merged))
            labelled = attrs.evolve(node, collection=name)
            ordered.append((-node.relevance, origin, node.hops, name, node.ref.key, labelled))
    ordered.sort(key=lambda row: row[:5])
    return tuple(row[5] for row in ordered)


def _hit_of(node: ExpandedNode, by_key: Mapping[str, ExpandedNode]) -> str:
    """The key of the hit a node was reached from, following ``via`` back (the node's own for a hit)."""
    seen = {node.ref.key}
    while node.relationship is not Relationship.HIT and node.via is not None:
        parent = by_key.get(node.via)
        if parent is None or parent.ref.key in seen:
            return node.via
        seen.add(parent.ref.key)
        node = parent
    return node.ref.key
