"""Call paths between two definitions (greploom.core.paths).

Laws of the search, on any call graph:

1. Every chain is a real chain of callee edges from one end to the other
   (from the source to the target, or, when reversed, from the target to
   the source).
2. No chain has more than ``max_calls`` calls.
3. No chain names a definition twice.
4. There are at most ``max_chains`` chains, all different, the shortest first.
5. They are the first chains, in (calls, keys) order, of all the simple
   chains within the bound: the shortest chains, and among chains as long,
   the first by their keys.
6. None is returned iff no chain within the bound exists in either direction;
   the reverse direction is taken only when the forward one has none.
7. The answer does not depend on the order callees are listed in, nor on
   how the lookup batches its answers.
8. The search reads only definitions fewer than ``max_calls`` calls from
   the start.

Laws of the calling line:

9. It is a line of the caller's source (by its file line number), and that
   line names the callee as a whole identifier.
10. When a line calls the callee (``name(``), the calling line is the first
    such line; a line that only mentions the name is taken only when none
    calls it; None only when no line names it.
11. The caller's own header is never its calling line when the caller bears
    the callee's name (``def send`` calling ``self.adapter.send``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Mapping
from random import Random

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.paths import (
    CallChain,
    CalleeLookup,
    call_line,
    chains_between,
    name_in_code,
    reach,
    shortest_chains,
)

KEYS = ("a", "b", "c", "d", "e", "f", "g", "h")


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, tuple[str, ...]]:
    """A call graph on a few definitions: each maps to the callees it lists (any order, repeats and
    self-calls allowed, as a lookup may answer)."""
    keys = KEYS[: draw(st.integers(2, len(KEYS)))]
    return {k: tuple(draw(st.lists(st.sampled_from(keys), max_size=4))) for k in keys}


def lookup(graph: Mapping[str, tuple[str, ...]]) -> tuple[list[list[str]], CalleeLookup]:
    """A batched lookup over ``graph`` that records every batch it was asked."""
    asked: list[list[str]] = []

    def callees(keys: Collection[str]) -> Mapping[str, Collection[str]]:
        asked.append(list(keys))
        return {k: graph[k] for k in keys if k in graph}

    return asked, callees


def all_chains(
    graph: Mapping[str, tuple[str, ...]], start: str, end: str, max_calls: int
) -> list[tuple[str, ...]]:
    """Every simple chain from start to end within the bound, in (calls, keys) order: the oracle."""
    out: list[tuple[str, ...]] = []

    def walk(chain: tuple[str, ...]) -> None:
        if chain[-1] == end and len(chain) > 1:
            out.append(chain)
            return
        if len(chain) - 1 == max_calls:
            return
        for nxt in set(graph.get(chain[-1], ())):
            if nxt not in chain:
                walk((*chain, nxt))

    if start != end:
        walk((start,))
    return sorted(out, key=lambda c: (len(c), c))


def is_chain(graph: Mapping[str, tuple[str, ...]], keys: tuple[str, ...]) -> bool:
    return all(b in graph.get(a, ()) for a, b in itertools.pairwise(keys))


ENDS = st.tuples(st.sampled_from(KEYS[:4]), st.sampled_from(KEYS[:4]))


@given(graphs(), ENDS, st.integers(1, 5), st.integers(1, 4))
def test_chains_are_real_short_simple_and_few(
    graph: dict[str, tuple[str, ...]], ends: tuple[str, str], max_calls: int, max_chains: int
) -> None:
    """Laws 1-4."""
    source, target = ends
    _, callees = lookup(graph)
    found = shortest_chains(source, target, callees, max_calls=max_calls, max_chains=max_chains)
    start, end = (target, source) if found.reverse else (source, target)
    assert (found.start, found.end) == (start, end)
    assert len(found.chains) <= max_chains
    assert len(set(found.chains)) == len(found.chains)
    for chain in found.chains:
        assert chain.keys[0] == start and chain.keys[-1] == end
        assert is_chain(graph, chain.keys)
        assert 1 <= chain.calls <= max_calls
        assert len(set(chain.keys)) == len(chain.keys)
    calls = [c.calls for c in found.chains]
    assert calls == sorted(calls)


@given(graphs(), ENDS, st.integers(1, 5), st.integers(1, 4))
def test_chains_are_the_first_in_order_and_none_only_when_none_exist(
    graph: dict[str, tuple[str, ...]], ends: tuple[str, str], max_calls: int, max_chains: int
) -> None:
    """Laws 5 and 6: the answer is the oracle's first chains, in the direction it must take."""
    source, target = ends
    _, callees = lookup(graph)
    found = shortest_chains(source, target, callees, max_calls=max_calls, max_chains=max_chains)
    forward = all_chains(graph, source, target, max_calls)
    backward = all_chains(graph, target, source, max_calls)
    assert found.reverse == (not forward and bool(backward))
    expected = (forward or backward)[:max_chains]
    assert [c.keys for c in found.chains] == expected
    assert (not found.chains) == (not forward and not backward)


@given(graphs(), ENDS, st.integers(1, 5), st.integers(1, 4), st.randoms(use_true_random=False))
def test_the_answer_does_not_depend_on_listing_order(
    graph: dict[str, tuple[str, ...]], ends: tuple[str, str], max_calls: int, max_chains: int, rnd: Random
) -> None:
    """Law 7: callees listed in another order (and repeated) give the same chains."""
    shuffled = {k: tuple(rnd.sample(v, len(v))) + v[:1] for k, v in reversed(list(graph.items()))}
    _, one = lookup(graph)
    _, other = lookup(shuffled)
    assert shortest_chains(*ends, one, max_calls=max_calls, max_chains=max_chains) == shortest_chains(
        *ends, other, max_calls=max_calls, max_chains=max_chains
    )


@given(graphs(), st.sampled_from(KEYS[:4]), st.integers(1, 5))
def test_the_search_reads_only_what_a_chain_can_use(
    graph: dict[str, tuple[str, ...]], start: str, max_calls: int
) -> None:
    """Law 8: every definition asked for is fewer than max_calls calls from the start, asked once."""
    asked, callees = lookup(graph)
    edges = reach(start, callees, max_calls)
    flat = [k for batch in asked for k in batch]
    assert len(flat) == len(set(flat)) == len(edges)
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for key in frontier:
            for other in graph.get(key, ()):
                if other not in dist:
                    dist[other] = dist[key] + 1
                    nxt.append(other)
        frontier = nxt
    assert all(dist[k] < max_calls for k in flat)
    assert {k for k, d in dist.items() if d < max_calls} == set(flat)


def test_known_chains() -> None:
    """Direct, two steps, through a cycle, the other way round, and none."""
    graph = {
        "request": ("prepare", "send"),
        "prepare": ("send", "prepare"),
        "send": ("adapter",),
        "adapter": ("send",),  # a cycle: adapter and send call each other
        "log": (),
    }
    _, callees = lookup(graph)
    direct = shortest_chains("request", "send", callees)
    assert [c.keys for c in direct.chains] == [("request", "send"), ("request", "prepare", "send")]
    assert not direct.reverse
    two = shortest_chains("request", "adapter", callees, max_chains=5)
    assert [c.keys for c in two.chains] == [
        ("request", "send", "adapter"),
        ("request", "prepare", "send", "adapter"),
    ]
    back = shortest_chains("adapter", "request", callees)
    assert back.reverse and back.chains[0] == CallChain(("request", "send", "adapter"))
    assert shortest_chains("log", "send", callees).chains == ()
    assert shortest_chains("request", "adapter", callees, max_calls=1).chains == ()
    assert chains_between("send", "send", graph, 6, 3) == ()


# -- the calling line ------------------------------------------------------------

NAMES = ("send", "post_json", "Cart", "total")
LINE_PARTS = (*NAMES, "x", "=", "(", ")", "self.", "# note", ".", "resend", "send_all", " ", "<T>")


@st.composite
def sources(draw: st.DrawFn) -> list[str]:
    body = draw(st.lists(st.lists(st.sampled_from(LINE_PARTS), max_size=6).map("".join), max_size=12))
    head = draw(st.sampled_from(("def send(self, x):", "def checkout(cart):", "function send(x) {")))
    return [head, *("    " + line for line in body)]


def _names(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line) is not None


def _calls(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(name)}(!|<[^<>()]*>)?\s*\(", line) is not None


def _candidate(i: int, line: str, head_skipped: bool) -> bool:
    text = line.strip()
    return (
        not (i == 0 and head_skipped) and not text.startswith(("#", "//", "/*", "* ", "*/")) and text != "*"
    )


@given(sources(), st.sampled_from(NAMES), st.integers(1, 400), st.sampled_from(("send", "checkout", "")))
def test_the_calling_line_names_the_callee_and_calls_it_first(
    lines: list[str], callee: str, first: int, caller: str
) -> None:
    """Laws 9-11."""
    source = "\n".join(lines)
    got = call_line(source, first, callee, caller)
    skip_head = callee == caller
    usable = [(i, line) for i, line in enumerate(lines) if _candidate(i, line, skip_head)]
    calling = [i for i, line in usable if _calls(line, callee)]
    naming = [i for i, line in usable if _names(line, callee)]
    if got is None:
        assert not naming
        return
    assert first <= got < first + len(lines)
    line = lines[got - first]
    assert _names(line, callee)
    assert got - first == (calling[0] if calling else naming[0])
    if skip_head:
        assert got != first


def test_the_calling_line_by_example() -> None:
    source = "def send(self, request):\n    # send() is retried\n    return self.adapter.send(request)"
    assert call_line(source, 10, "send", "send") == 12
    assert call_line("def f():\n    items.resend()\n    return g", 1, "g") == 3
    assert call_line("def f():\n    return h", 1, "g") is None
    assert call_line("fn main() {\n    let v = Vec::new();\n}", 1, "Vec::new") == 2
    assert name_in_code("res.send") == "send"
