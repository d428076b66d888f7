"""One ranking over several collections (greploom.core.federation).

Laws:

1. One collection keeps its own order.
2. The fused list holds every (collection, key) exactly once.
3. Each collection's own order is kept inside the fused one.
4. With n collections, the first n * r fused hits hold the first r of every list:
   a collection is never crowded out.
5. The order the collections are given in changes nothing (ties go by name).
6. Adding a collection never moves a hit earlier (metamorphic).
7. Federated nodes: every node comes back once, labelled with its collection, and one
   collection's nodes keep the order expansion gave them.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.expand import ExpandedNode, NodeContext, NodeRef, StructuralContext, expand_hits
from greploom.core.federation import federated_nodes, merge_ranked
from tests.properties.strategies import keys

names = st.text(alphabet="abcxyz", min_size=1, max_size=3)
collections = st.dictionaries(names, st.lists(keys, max_size=8, unique=True), min_size=1, max_size=4)


def _pairs(lists: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(h.collection, h.key) for h in merge_ranked(lists)]


@given(st.lists(keys, unique=True), names)
def test_one_collection_keeps_its_order(items: list[str], name: str) -> None:
    """A single -c answers as --db on that collection's index does."""
    assert _pairs({name: items}) == [(name, k) for k in items]


@given(collections)
def test_every_hit_once(lists: dict[str, list[str]]) -> None:
    """Keys are unique per collection only: the same key in two collections is two hits, none lost."""
    fused = _pairs(lists)
    assert sorted(fused) == sorted((name, k) for name, items in lists.items() for k in items)
    assert len(set(fused)) == len(fused)


@given(collections)
def test_each_collection_keeps_its_order(lists: dict[str, list[str]]) -> None:
    """One index's ranking of its own hits is never overruled by the merge."""
    fused = _pairs(lists)
    for name, items in lists.items():
        assert [k for n, k in fused if n == name] == items


@given(collections, st.integers(0, 8))
def test_no_collection_is_crowded_out(lists: dict[str, list[str]], r: int) -> None:
    """Scores of different indexes are not compared, so each collection's best hits make the top."""
    top = set(_pairs(lists)[: len(lists) * r])
    for name, items in lists.items():
        assert {(name, k) for k in items[:r]} <= top


@given(collections, st.randoms(use_true_random=False))
def test_naming_order_changes_nothing(lists: dict[str, list[str]], rnd: random.Random) -> None:
    """`-c a -c b` and `-c b -c a` give the same answer."""
    order = list(lists)
    rnd.shuffle(order)
    assert merge_ranked({n: lists[n] for n in order}) == merge_ranked(lists)


@given(collections, names, st.lists(keys, max_size=8, unique=True))
def test_adding_a_collection_never_moves_a_hit_earlier(
    lists: dict[str, list[str]], extra: str, items: list[str]
) -> None:
    """More collections share the top ranks; none of the others' hits gains by it."""
    if extra in lists:
        return
    before = {p: i for i, p in enumerate(_pairs(lists))}
    after = {p: i for i, p in enumerate(_pairs({**lists, extra: items}))}
    assert all(after[p] >= i for p, i in before.items())


def _graph(items: list[str]) -> dict[str, NodeContext]:
    """A chain a -> b -> c of callees over the keys, so expansion reaches neighbours."""
    graph = {}
    for i, key in enumerate(items):
        callees = (NodeRef(items[i + 1], items[i + 1], "function", "f.py", 1),) if i + 1 < len(items) else ()
        ref = NodeRef(key, key, "function", "f.py", 1)
        graph[key] = NodeContext(ref, key, key, structure=StructuralContext(callees=callees))
    return graph


@given(collections, st.integers(0, 2))
def test_federated_nodes_label_and_keep_order(lists: dict[str, list[str]], depth: int) -> None:
    """Every expanded node is shown once, says its collection, and a collection's nodes stay in
    the order its own expansion gave them."""
    merged = merge_ranked(lists)
    expanded: dict[str, tuple[ExpandedNode, ...]] = {
        name: expand_hits(items, _graph(items), depth) for name, items in lists.items()
    }
    nodes = federated_nodes(expanded, merged)
    assert sorted((n.collection, n.ref.key) for n in nodes) == sorted(
        (name, n.ref.key) for name, ns in expanded.items() for n in ns
    )
    for name, ns in expanded.items():
        assert [n.ref.key for n in nodes if n.collection == name] == [n.ref.key for n in ns]
