"""The Code Property Graph as typed, frozen values, and a read-only view over it.

treeloom writes nodes (``id, kind, name, location, end_location, scope,
attrs``) and edges (``source, target, kind, attrs``). The shell decodes the
JSON and structures it into these values; the core never sees raw dicts.

Laws of :class:`CpgGraph` (built once, never mutated):

- every node is found by its id, and ``children(s)`` lists exactly the nodes
  whose ``scope`` is ``s``, in the order of the input;
- ``out_edges(n, k)`` / ``in_edges(n, k)`` list exactly the edges of kind ``k``
  leaving / entering ``n``; edges naming a missing node are left out and
  counted in ``dangling_edges``;
- the enclosing function/class/module of a node is the nearest ancestor of that
  kind along the scope chain (branch and loop scopes are passed through), and a
  scope cycle in a hand-written CPG ends the walk instead of looping.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

import attrs

# attrs values are kept as (key, value) pairs so the node stays hashable.
AttrValue = str | int | float | bool | None | tuple[str, ...]
AttrPairs = tuple[tuple[str, AttrValue], ...]


class NodeKind(str, enum.Enum):
    """The node kinds treeloom defines (0.9.0)."""

    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    PARAMETER = "parameter"
    VARIABLE = "variable"
    CALL = "call"
    LITERAL = "literal"
    RETURN = "return"
    IMPORT = "import"
    BRANCH = "branch"
    LOOP = "loop"
    BLOCK = "block"


class EdgeKind(str, enum.Enum):
    """The edge kinds treeloom defines (0.9.0); some are never emitted."""

    CONTAINS = "contains"
    HAS_PARAMETER = "has_parameter"
    HAS_RETURN_TYPE = "has_return_type"
    FLOWS_TO = "flows_to"
    BRANCHES_TO = "branches_to"
    DATA_FLOWS_TO = "data_flows_to"
    DEFINED_BY = "defined_by"
    USED_BY = "used_by"
    CALLS = "calls"
    RESOLVES_TO = "resolves_to"
    IMPORTS = "imports"


def lookup(pairs: AttrPairs, key: str, default: AttrValue = None) -> AttrValue:
    """The value paired with ``key`` (attributes are few: a scan beats a dict per node)."""
    for k, v in pairs:
        if k == key:
            return v
    return default


@attrs.frozen
class SourceLocation:
    """A position in a source file: path relative to the build root, 1-based line."""

    file: str
    line: int
    column: int = 0


@attrs.frozen
class CpgNode:
    """One CPG node. ``attrs`` holds treeloom's per-kind attributes as sorted pairs."""

    id: str
    kind: NodeKind
    name: str
    location: SourceLocation | None = None
    end_location: SourceLocation | None = None
    scope: str | None = None
    attrs: AttrPairs = ()

    def attr(self, key: str, default: AttrValue = None) -> AttrValue:
        """The value of one treeloom attribute, or ``default`` when absent."""
        return lookup(self.attrs, key, default)

    @property
    def file(self) -> str:
        """The node's file, or the empty string when treeloom gave no location."""
        return self.location.file if self.location else ""

    @property
    def line(self) -> int:
        """The node's first line, 0 when unknown."""
        return self.location.line if self.location else 0

    @property
    def end_line(self) -> int | None:
        """The last line, when treeloom wrote one (Python only)."""
        return self.end_location.line if self.end_location else None


@attrs.frozen
class CpgEdge:
    """A directed, typed edge between two node ids."""

    source: str
    target: str
    kind: EdgeKind
    attrs: AttrPairs = ()

    def attr(self, key: str, default: AttrValue = None) -> AttrValue:
        """The value of one edge attribute, or ``default`` when absent."""
        return lookup(self.attrs, key, default)


@attrs.frozen
class CpgData:
    """A whole CPG as treeloom wrote it, plus what was skipped while reading it."""

    nodes: tuple[CpgNode, ...]
    edges: tuple[CpgEdge, ...]
    treeloom_version: str = ""
    skipped_nodes: int = 0  # nodes of kinds this greploom does not know
    skipped_edges: int = 0  # edges of unknown kinds
    # (name shown, name on disk) of files whose names are not UTF-8: the reader
    # escapes them ("caf\\xe9.py"); the name on disk still opens the file.
    renamed_files: tuple[tuple[str, str], ...] = ()


_SCOPE_LIMIT = 10_000  # deeper than any real nesting: guards against scope cycles


class CpgGraph:
    """An index over :class:`CpgData`, built once: lookups by id, kind and scope.

    Not an attrs value because it holds dict indexes; it never changes after
    construction and exposes only read methods (a definition's inner nodes are
    remembered once walked: summaries and contexts each ask for them).
    """

    __slots__ = ("_children", "_in", "_inner", "_nodes", "_out", "dangling_edges", "data", "duplicate_ids")

    def __init__(self, data: CpgData) -> None:
        self.data = data
        nodes: dict[str, CpgNode] = {}
        duplicates = 0
        for node in data.nodes:
            if node.id in nodes:
                duplicates += 1  # first one wins, as a reader of the file would see it
                continue
            nodes[node.id] = node
        children: dict[str, list[CpgNode]] = {}
        for node in nodes.values():
            if node.scope is not None:
                children.setdefault(node.scope, []).append(node)
        out: dict[tuple[str, EdgeKind], list[CpgEdge]] = {}
        inn: dict[tuple[str, EdgeKind], list[CpgEdge]] = {}
        dangling = 0
        for edge in data.edges:
            if edge.source not in nodes or edge.target not in nodes:
                dangling += 1
                continue
            out.setdefault((edge.source, edge.kind), []).append(edge)
            inn.setdefault((edge.target, edge.kind), []).append(edge)
        self._inner: dict[str, tuple[CpgNode, ...]] = {}
        self._nodes = nodes
        self._children = {k: tuple(v) for k, v in children.items()}
        self._out = {k: tuple(v) for k, v in out.items()}
        self._in = {k: tuple(v) for k, v in inn.items()}
        self.dangling_edges = dangling
        self.duplicate_ids = duplicates

    @property
    def nodes(self) -> Mapping[str, CpgNode]:
        """All nodes by id (first occurrence of a duplicated id)."""
        return self._nodes

    def node(self, node_id: str) -> CpgNode | None:
        """The node with this id, or None."""
        return self._nodes.get(node_id)

    def children(self, scope_id: str) -> tuple[CpgNode, ...]:
        """Nodes whose scope is ``scope_id``, in input order."""
        return self._children.get(scope_id, ())

    def out_edges(self, node_id: str, kind: EdgeKind) -> tuple[CpgEdge, ...]:
        """Edges of ``kind`` leaving ``node_id``."""
        return self._out.get((node_id, kind), ())

    def in_edges(self, node_id: str, kind: EdgeKind) -> tuple[CpgEdge, ...]:
        """Edges of ``kind`` entering ``node_id``."""
        return self._in.get((node_id, kind), ())

    def ancestors(self, node: CpgNode) -> Iterable[CpgNode]:
        """The scope chain above ``node``, nearest first; stops at a cycle."""
        seen = {node.id}
        current = node
        for _ in range(_SCOPE_LIMIT):
            if current.scope is None or current.scope in seen:
                return
            parent = self._nodes.get(current.scope)
            if parent is None:
                return
            seen.add(parent.id)
            yield parent
            current = parent

    def enclosing(self, node: CpgNode, *kinds: NodeKind) -> CpgNode | None:
        """The nearest ancestor of one of ``kinds``, or None."""
        wanted = frozenset(kinds)
        for parent in self.ancestors(node):
            if parent.kind in wanted:
                return parent
        return None

    def enclosing_definition(self, node: CpgNode) -> CpgNode | None:
        """The nearest enclosing function, class or module of any node."""
        return self.enclosing(node, NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.MODULE)

    def descendants_in(self, owner: CpgNode) -> tuple[CpgNode, ...]:
        """Nodes whose nearest enclosing function/class/module is ``owner``, in walk order.

        Walks through branch, loop, block and other non-definition scopes but
        not into nested functions or classes, which are definitions of their own.
        """
        known = self._inner.get(owner.id)
        if known is None:
            known = self._inner[owner.id] = tuple(self._walk_inner(owner))
        return known

    def _walk_inner(self, owner: CpgNode) -> Iterable[CpgNode]:
        stack = list(reversed(self.children(owner.id)))
        seen: set[str] = set()
        while stack:
            child = stack.pop()
            if child.id in seen:
                continue
            seen.add(child.id)
            yield child
            if child.kind not in (NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.MODULE):
                stack.extend(reversed(self.children(child.id)))
