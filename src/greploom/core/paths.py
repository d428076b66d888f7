"""Call paths: the shortest call chains between two definitions, and the line each step calls on.

"How does ``Session.request`` reach ``HTTPAdapter.send``?" is answered by the
chains of callee edges from one definition to the other: ``request`` calls
``send`` (one call), or ``request`` calls ``prepare`` which calls ``send``
(two calls), and so on. The graph is the index's: each definition's callees
(greploom.core.context), the calls the code determines, never a bare name
guessed at.

The search (:func:`shortest_chains`):

- follows callee edges from ``source`` to ``target``; when none reaches it
  within the bound, from ``target`` to ``source``, and says so
  (:attr:`CallPaths.reverse`);
- returns at most ``max_chains`` chains of at most ``max_calls`` calls each,
  simple (no definition twice: a cycle adds nothing to a path), the shortest
  first and, among chains as long, in the order of their keys (so the answer
  is the same whatever order the graph lists callees in);
- reads the graph through a batched lookup (``keys -> their callees``): one
  call per breadth-first level from the start, only the definitions fewer
  than ``max_calls`` calls away. Every chain of at most ``max_calls`` calls
  runs through those alone, so the search is exact within them.

The ``max_chains`` best chains are found by Yen's algorithm over that part of
the graph, the definitions that cannot lie on a chain short enough (their
distance from the start plus their distance to the end past the bound)
left out first: each next chain is the best deviation from the chains found,
its spur the first in key order among the shortest (a reverse breadth-first
search, then the smallest key at each step). Polynomial in the graph's size,
where listing every simple path is not.

The calling line (:func:`call_line`) is where a step's source calls the next
step: the callee's name, as a whole identifier, on a line that calls it
(``name(``, ``name!(``, ``name<T>(``), else on any line naming it (a callback
passed along, a call split over lines); comment lines are skipped, and so
is the caller's own header when the caller bears the callee's name (a
``send`` calling ``self.adapter.send``). It is read from the text, not
parsed, so it can point at a line that only mentions the name; None when
the name is not there at all.

Laws (tests/properties/test_paths.py): every chain is a real chain of callee
edges from one end to the other; none has more than ``max_calls`` calls or
repeats a definition; there are at most ``max_chains``, distinct, the
shortest first; they are the first chains in (calls, keys) order of all the
simple chains within the bound; none is returned iff none exists within the
bound either way; the reverse direction is taken only when the forward one
has none; the answer does not depend on the order callees are listed in.
A calling line lies inside the source and names the callee; it is a calling
line whenever one exists, the first of them.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Collection, Mapping, Sequence

import attrs

MAX_CALLS = 6  # the bound on a chain's calls, by default
MAX_CHAINS = 3  # the chains returned, at most, by default
CALLS_LIMIT = 12  # the largest bound a caller may ask for (the CLI and MCP check it)
CHAINS_LIMIT = 10

# The callees of each of a batch of definitions (a key absent: none). The shell
# serves it from the index, a level of the search at a time.
CalleeLookup = Callable[[Collection[str]], Mapping[str, Collection[str]]]
Graph = Mapping[str, tuple[str, ...]]


@attrs.frozen
class CallChain:
    """One chain of calls: ``keys[0]`` calls ``keys[1]``, which calls ``keys[2]``, ..."""

    keys: tuple[str, ...]

    @property
    def calls(self) -> int:
        """How many calls the chain makes (one fewer than its steps)."""
        return len(self.keys) - 1


@attrs.frozen
class CallPaths:
    """The chains found between two definitions, and which way they run.

    ``reverse``: ``source`` reaches ``target`` by no chain within ``max_calls``
    calls, and the chains run from ``target`` to ``source``. No chains: none
    within the bound either way.
    """

    source: str
    target: str
    chains: tuple[CallChain, ...]
    reverse: bool
    max_calls: int
    max_chains: int

    @property
    def start(self) -> str:
        """Where the chains start."""
        return self.target if self.reverse else self.source

    @property
    def end(self) -> str:
        """Where the chains end."""
        return self.source if self.reverse else self.target


def reach(start: str, callees: CalleeLookup, max_calls: int) -> dict[str, tuple[str, ...]]:
    """The callees (sorted, self-calls left out) of every definition fewer than ``max_calls``
    calls from ``start``: all that a chain of at most ``max_calls`` calls from it can use."""
    edges: dict[str, tuple[str, ...]] = {}
    frontier = [start]
    for _ in range(max_calls):
        found = callees(frontier)
        for key in frontier:
            edges[key] = tuple(sorted({k for k in found.get(key, ()) if k != key}))
        frontier = sorted({k for key in frontier for k in edges[key]} - edges.keys())
        if not frontier:
            break
    return edges


def _distances(graph: Graph, start: str, limit: int, *, backwards: bool = False) -> dict[str, int]:
    """Calls from ``start`` (to it, ``backwards``) for every definition within ``limit`` calls."""
    if backwards:
        edges: dict[str, list[str]] = {}
        for key, outs in graph.items():
            for out in outs:
                edges.setdefault(out, []).append(key)
        step: Mapping[str, Sequence[str]] = edges
    else:
        step = graph
    dist = {start: 0}
    frontier = [start]
    for depth in range(1, limit + 1):
        nxt = []
        for key in frontier:
            for other in step.get(key, ()):
                if other not in dist:
                    dist[other] = depth
                    nxt.append(other)
        frontier = nxt
    return dist


def _pruned(graph: Graph, start: str, end: str, max_calls: int) -> dict[str, tuple[str, ...]]:
    """The part of ``graph`` a chain of at most ``max_calls`` calls from start to end can use."""
    ahead = _distances(graph, start, max_calls)
    behind = _distances(graph, end, max_calls, backwards=True)
    keep = {k for k, d in ahead.items() if k in behind and d + behind[k] <= max_calls}
    return {k: tuple(o for o in graph.get(k, ()) if o in keep) for k in sorted(keep)}


def _best(
    graph: Graph,
    preds: Mapping[str, Sequence[str]],
    spur: str,
    end: str,
    *,
    banned: Collection[str],
    banned_next: Collection[str],
    limit: int,
) -> tuple[str, ...] | None:
    """The shortest chain from ``spur`` to ``end`` of at most ``limit`` calls avoiding the
    ``banned`` definitions and the calls from ``spur`` to ``banned_next``, first in key order."""
    dist = {end: 0}
    frontier = [end]
    for depth in range(1, limit + 1):
        nxt = []
        for key in frontier:
            for pred in preds.get(key, ()):
                if pred in dist or pred in banned or (pred == spur and key in banned_next):
                    continue
                dist[pred] = depth
                nxt.append(pred)
        if spur in dist or not nxt:
            break
        frontier = nxt
    if spur not in dist:
        return None
    chain = [spur]
    while chain[-1] != end:
        here = chain[-1]
        chain.append(
            min(
                k
                for k in graph[here]
                if dist.get(k) == dist[here] - 1 and not (here == spur and k in banned_next)
            )
        )
    return tuple(chain)


def chains_between(
    start: str, end: str, graph: Graph, max_calls: int, max_chains: int
) -> tuple[CallChain, ...]:
    """The first ``max_chains`` simple chains from ``start`` to ``end`` of at most ``max_calls``
    calls, in (calls, keys) order (Yen's algorithm; ``graph`` maps a key to its callees)."""
    if start == end or max_calls < 1 or max_chains < 1:
        return ()
    part = _pruned(graph, start, end, max_calls)
    if start not in part:
        return ()
    preds: dict[str, list[str]] = {}
    for key, outs in part.items():
        for out in outs:
            preds.setdefault(out, []).append(key)
    first = _best(part, preds, start, end, banned=(), banned_next=(), limit=max_calls)
    if first is None:
        return ()
    found = [first]
    seen = {first}
    candidates: list[tuple[int, tuple[str, ...]]] = []
    while len(found) < max_chains:
        last = found[-1]
        for i in range(len(last) - 1):
            root = last[: i + 1]
            banned_next = {chain[i + 1] for chain in found if chain[: i + 1] == root}
            spur = _best(
                part, preds, root[-1], end, banned=root[:-1], banned_next=banned_next, limit=max_calls - i
            )
            if spur is not None:
                chain = root[:-1] + spur
                if chain not in seen:
                    seen.add(chain)
                    heapq.heappush(candidates, (len(chain), chain))
        if not candidates:
            break
        found.append(heapq.heappop(candidates)[1])
    return tuple(CallChain(chain) for chain in found)


def shortest_chains(
    source: str,
    target: str,
    callees: CalleeLookup,
    *,
    max_calls: int = MAX_CALLS,
    max_chains: int = MAX_CHAINS,
) -> CallPaths:
    """The shortest chains from ``source`` to ``target``; when there are none within
    ``max_calls`` calls, those from ``target`` to ``source`` (``reverse``)."""
    if max_calls < 1 or max_chains < 1:
        raise ValueError("max_calls and max_chains must be >= 1")
    forward = chains_between(source, target, reach(source, callees, max_calls), max_calls, max_chains)
    if forward or source == target:
        return CallPaths(source, target, forward, False, max_calls, max_chains)
    backward = chains_between(target, source, reach(target, callees, max_calls), max_calls, max_chains)
    return CallPaths(source, target, backward, bool(backward), max_calls, max_chains)


# -- the calling line ------------------------------------------------------------

_COMMENT_STARTS = ("#", "//", "/*", "* ", "*/")  # a doc comment's lines: "* ", never C's "*out"


def name_in_code(name: str) -> str:
    """The part of a definition's name a call writes: ``send`` of ``res.send``, ``new`` of ``Vec::new``."""
    return re.split(r"\.|::", name)[-1]


def _occurrences(line: str, name: str) -> tuple[bool, bool]:
    """Whether ``line`` names ``name`` as a whole identifier, and whether it calls it there."""
    named = called = False
    for match in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line):
        named = True
        rest = line[match.end() :].lstrip()
        if rest.startswith(("(", "!(")) or re.match(r"<[^<>()]*>\s*\(", rest):
            called = True
    return named, called


def call_line(source: str, first_line: int, callee: str, caller: str = "") -> int | None:
    """The file line of ``source`` (whose first line is ``first_line``) where it calls ``callee``
    (a name as a definition bears it), or None; ``caller``: the name of the definition ``source``
    is, whose header is skipped when it bears the callee's name."""
    name = name_in_code(callee)
    if not name:
        return None
    own_header = name == name_in_code(caller)
    mention: int | None = None
    for i, line in enumerate(source.split("\n")):
        text = line.strip()
        if (i == 0 and own_header) or text == "*" or text.startswith(_COMMENT_STARTS):
            continue
        named, called = _occurrences(line, name)
        if called:
            return first_line + i
        if named and mention is None:
            mention = first_line + i
    return mention
