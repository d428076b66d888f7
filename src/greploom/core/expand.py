"""Graph expansion: from search hits to the code around them, with decaying relevance.

Each hit has relevance 1.0. Walking one edge multiplies relevance by the
edge's weight:

    caller 0.8, callee 0.8, parent class 0.7, parameter 0.6,
    mentions 0.6, data source 0.5, documented by 0.4, import 0.3

(``mentions``: from a doc or config section to the code or config it names;
``documented_by``: back, from the code to its docs: greploom.core.mentions.)

A node reached along several paths keeps its highest relevance (the best
product over paths of at most ``depth`` edges). Imports and parameters are
leaves: they are shown but never expanded further, and so are the docs
reached from code (a doc naming twenty functions is not a path between them). Callers are the
functions (or modules) enclosing call sites of a node, not the call nodes.

The graph is any mapping from stable key to :class:`NodeContext`: the store
resolves it at index time and serves it lazily at query time, or the shell
builds it from a CPG (``query --cpg``). The core only reads it.

Laws (tests/properties/test_expand.py): hits have relevance 1.0; relevance
never rises with hops; imports are never expanded; depth 0 gives only the
hits; the result does not depend on the order of the hits; more depth never
lowers a node's relevance; with ``reach`` only the first hits are expanded, the
others stand alone.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

import attrs


class Relationship(str, enum.Enum):
    """Why a node is in the context: it is a hit, or it relates to one."""

    HIT = "hit"
    CALLER = "caller"
    CALLEE = "callee"
    PARENT_CLASS = "parent_class"
    PARAMETER = "parameter"
    DATA_SOURCE = "data_source"
    IMPORT = "import"
    MENTIONS = "mentions"
    DOCUMENTED_BY = "documented_by"


RELEVANCE = {
    Relationship.CALLER: 0.8,  # who uses the hit: how it is meant to be called
    Relationship.CALLEE: 0.8,  # what the hit relies on
    Relationship.PARENT_CLASS: 0.7,  # state and siblings of a method
    Relationship.PARAMETER: 0.6,  # names and types the hit takes
    Relationship.DATA_SOURCE: 0.5,  # functions whose data flows into the hit
    Relationship.IMPORT: 0.3,  # where the names it uses come from
    # A doc section's subject is the code it names: nearly a parameter's weight. The
    # docs of a code hit come after its own graph, before the imports.
    Relationship.MENTIONS: 0.6,
    Relationship.DOCUMENTED_BY: 0.4,
}
LEAF_RELATIONSHIPS = frozenset({Relationship.PARAMETER, Relationship.IMPORT, Relationship.DOCUMENTED_BY})
_ORDER = {rel: i for i, rel in enumerate(Relationship)}


@attrs.frozen
class NodeRef:
    """A pointer to a node: stable key, name, kind, place, and a short detail line."""

    key: str
    name: str
    kind: str
    file: str
    line: int
    detail: str = ""  # e.g. ``price: float`` for a parameter, ``import math`` for an import


@attrs.frozen
class StructuralContext:
    """The graph around one node, each neighbour as a :class:`NodeRef`."""

    callers: tuple[NodeRef, ...] = ()
    callees: tuple[NodeRef, ...] = ()
    parameters: tuple[NodeRef, ...] = ()
    parent_class: NodeRef | None = None
    data_sources: tuple[NodeRef, ...] = ()
    imports: tuple[NodeRef, ...] = ()
    members: tuple[NodeRef, ...] = ()
    # Docs and config (greploom.core.mentions): what a section names, and the sections
    # naming a definition. Added after 0.7; a stored context without them reads as empty.
    mentions: tuple[NodeRef, ...] = ()
    documented_by: tuple[NodeRef, ...] = ()

    def neighbours(self) -> tuple[tuple[Relationship, NodeRef], ...]:
        """Every neighbour with the relationship it is reached by (members are not walked)."""
        pairs: list[tuple[Relationship, NodeRef]] = []
        pairs.extend((Relationship.CALLER, r) for r in self.callers)
        pairs.extend((Relationship.CALLEE, r) for r in self.callees)
        if self.parent_class is not None:
            pairs.append((Relationship.PARENT_CLASS, self.parent_class))
        pairs.extend((Relationship.PARAMETER, r) for r in self.parameters)
        pairs.extend((Relationship.DATA_SOURCE, r) for r in self.data_sources)
        pairs.extend((Relationship.IMPORT, r) for r in self.imports)
        pairs.extend((Relationship.MENTIONS, r) for r in self.mentions)
        pairs.extend((Relationship.DOCUMENTED_BY, r) for r in self.documented_by)
        return tuple(pairs)


@attrs.frozen
class NodeContext:
    """An indexable node with what the query needs to show it and walk from it."""

    ref: NodeRef
    qualname: str
    summary: str
    source: str | None = None
    end_line: int | None = None
    node_id: str = ""
    structure: StructuralContext = StructuralContext()


@attrs.frozen
class ExpandedNode:
    """A node in the context bundle, with why and how strongly it is there."""

    ref: NodeRef
    relevance: float
    relationship: Relationship
    hops: int
    via: str | None  # key of the node it was reached from; None for hits
    qualname: str
    summary: str
    source: str | None
    end_line: int | None
    node_id: str
    structure: StructuralContext
    # The node's file changed since the index read it (greploom.core.freshness): its
    # lines are the indexed ones. Set by the query after expansion; False when unknown.
    stale: bool = False
    # The collection the node comes from, in an answer over several (greploom.core.federation);
    # "" for an answer from one index. Its key is only unique within it.
    collection: str = ""
    # Received whole earlier in the session, unchanged since, and shown as a reference saying so
    # (greploom.shell.session_answer): a hit that takes no rank of the answer's, and whose lines
    # the blocks after it leave out, as for a hit shown whole above (greploom.core.render).
    earlier: bool = False


@attrs.frozen
class _Best:
    relevance: float
    relationship: Relationship
    hops: int
    via: str | None
    ref: NodeRef
    origin: int  # position of the hit this node descends from, for a stable order


def _better(new: _Best, old: _Best | None) -> bool:
    if old is None:
        return True
    if new.relevance != old.relevance:
        return new.relevance > old.relevance
    # Ties go to fewer hops, then the stronger kind of link, then the smaller key:
    # never to the order the hits came in.
    return (new.hops, _ORDER[new.relationship], new.via or "") < (
        old.hops,
        _ORDER[old.relationship],
        old.via or "",
    )


# A search's answer expands its first hits only (``reach``): the later ones are
# shown briefly (greploom.core.render.BRIEF_FROM), and their neighbours' one-line
# references filled the budget the hits needed. Measured on the quality harness (10
# hits at 2,000 tokens): all expanded 1,620 tokens an answer, the first 3 1,355, hit@1k
# / hit@2k 0.915 / 0.938 either way.
SEARCH_REACH = 3


def expand_hits(
    hits: Sequence[str], graph: Mapping[str, NodeContext], depth: int = 1, *, reach: int | None = None
) -> tuple[ExpandedNode, ...]:
    """Expand hit keys through ``graph`` up to ``depth`` edges.

    Hits missing from the graph are left out (the caller reports them). The
    result is ordered by relevance, then by the rank of the hit each node
    descends from, then by hops and key. With ``reach``, only the hits ranked
    within the first ``reach`` are expanded: the others are shown alone.
    """
    if depth < 0:
        raise ValueError("depth must be >= 0")
    # A hit's origin is its best rank among the hits given; the set of hits,
    # not their order, decides every relevance.
    origin = {key: i for i, key in reversed(list(enumerate(hits)))}
    best: dict[str, _Best] = {}
    for key in sorted(origin):
        ctx = graph.get(key)
        if ctx is not None:
            best[key] = _Best(1.0, Relationship.HIT, 0, None, ctx.ref, origin[key])
    # ``reach`` counts the hits the graph has: one missing takes no place.
    present = {key: i for i, key in enumerate(k for k in dict.fromkeys(hits) if k in best)}
    frontier = {key: b for key, b in best.items() if reach is None or present[key] < reach}
    for hop in range(1, depth + 1):
        reached: dict[str, _Best] = {}
        for key in sorted(frontier):
            here = frontier[key]
            ctx = graph.get(key)
            if ctx is None:
                continue
            for relationship, ref in ctx.structure.neighbours():
                if ref.key == key:
                    continue  # self-loops (recursion) add nothing
                candidate = _Best(
                    here.relevance * RELEVANCE[relationship],
                    relationship,
                    hop,
                    key,
                    ref,
                    here.origin,
                )
                if _better(candidate, reached.get(ref.key)):
                    reached[ref.key] = candidate
        frontier = {}
        for key, candidate in reached.items():
            old = best.get(key)
            if old is None or candidate.relevance > old.relevance:
                best[key] = candidate
                if candidate.relationship not in LEAF_RELATIONSHIPS:
                    frontier[key] = candidate
        if not frontier:
            break
    nodes = [_expanded(key, b, graph.get(key)) for key, b in best.items()]
    nodes.sort(key=lambda n: (-n.relevance, best[n.ref.key].origin, n.hops, n.ref.key))
    return tuple(nodes)


def _expanded(key: str, b: _Best, ctx: NodeContext | None) -> ExpandedNode:
    if ctx is None:  # a leaf (parameter, import) or a node outside the graph
        return ExpandedNode(
            ref=b.ref,
            relevance=b.relevance,
            relationship=b.relationship,
            hops=b.hops,
            via=b.via,
            qualname=b.ref.name,
            summary=b.ref.detail or f"{b.ref.kind} {b.ref.name}",
            source=None,
            end_line=None,
            node_id="",
            structure=StructuralContext(),
        )
    return ExpandedNode(
        ref=ctx.ref,
        relevance=b.relevance,
        relationship=b.relationship,
        hops=b.hops,
        via=b.via,
        qualname=ctx.qualname,
        summary=ctx.summary,
        source=ctx.source,
        end_line=ctx.end_line,
        node_id=ctx.node_id,
        structure=ctx.structure,
    )
