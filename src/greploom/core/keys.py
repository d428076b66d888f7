"""Stable keys for the nodes greploom indexes (functions, classes, modules).

treeloom ids end in a build-wide counter, so inserting one line renumbers
every later node of every later file. The index keys on something that only
moves when the code it names moves:

    key = "{kind}:{file}"                      for a module
    key = "{kind}:{file}:{path}"               otherwise

where ``path`` is the chain of enclosing class and function names joined by
dots (module, branch and loop scopes do not count), and a same-named sibling
(any kind, same file, same enclosing path) after the first gets ``#2``,
``#3``... in source order.

Laws (tests/properties/test_keys.py):

- keys are unique within one CPG;
- renumbering ids or shifting lines leaves every key unchanged;
- renaming a definition or moving it to another file changes its key.
"""

from __future__ import annotations

import attrs

from greploom.core.cpg import CpgGraph, CpgNode, NodeKind

INDEXABLE_KINDS = frozenset({NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.MODULE})
# treeloom's variable nodes are every assignment; only the constants a parser
# added as definitions (greploom.core.supplement: ``export const X = ...``) count,
# and the sections of files no parser reads (greploom.core.sections).
_PATH_KINDS = (NodeKind.FUNCTION, NodeKind.CLASS)
_ADDED_KINDS = frozenset({NodeKind.VARIABLE, NodeKind.BLOCK})


@attrs.frozen
class NodeIdentity:
    """Who an indexable node is: its stable key, current id and names."""

    key: str
    node_id: str
    kind: NodeKind
    name: str
    qualname: str  # dotted, starting at the module's dotted path: pkg.mod.Class.method
    file: str
    line: int
    end_line: int | None
    # What the code declares it as where that is not its kind: "interface", "type",
    # "enum"... (greploom.core.supplement records it); shown in place of the kind.
    declared: str = ""


def module_path(file: str) -> str:
    """The dotted module name of a file path: ``pkg/sub/mod.py`` -> ``pkg.sub.mod``.

    ``__init__`` is dropped, as Python names packages; other stems are kept.
    """
    stem = file.rsplit(".", 1)[0] if "." in file.rsplit("/", 1)[-1] else file
    parts = [p for p in stem.split("/") if p]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_indexable(node: CpgNode) -> bool:
    """A function, class or module; or, added from the files (greploom.core.supplement), a
    constant or a section of a file no parser reads (kind ``block``)."""
    return node.kind in INDEXABLE_KINDS or (node.kind in _ADDED_KINDS and node.attr("supplemented") is True)


def written_name(node: CpgNode) -> str:
    """The name as the code writes it: ``Router.handle`` for a function assigned to
    ``Router.prototype.handle`` (greploom.core.supplement records ``Router`` as its owner)."""
    owner = node.attr("owner")
    return f"{owner}.{node.name}" if isinstance(owner, str) and owner else node.name


def _sort_key(node: CpgNode, order: int) -> tuple[int, int, int]:
    column = node.location.column if node.location else 0
    return (node.line, column, order)


def node_identities(graph: CpgGraph) -> tuple[NodeIdentity, ...]:  # noqa: PLR0915 - one pass, kept whole
    """Identities of every function, class and module node, in input order."""
    indexable = [n for n in graph.nodes.values() if is_indexable(n)]
    order = {n.id: i for i, n in enumerate(indexable)}

    # Siblings are grouped by (file, enclosing definition, name), whatever their
    # kind: a class and a function of one name in one scope get distinct paths,
    # so their children cannot collide. The enclosing definition only counts
    # when it lies in the same file.
    parents: dict[str, CpgNode | None] = {}
    groups: dict[tuple[str, str | None, str], list[CpgNode]] = {}
    for node in indexable:
        if node.kind is NodeKind.MODULE:
            continue
        parent = graph.enclosing(node, *_PATH_KINDS)
        if parent is not None and parent.file != node.file:
            parent = None
        parents[node.id] = parent
        group_key = (node.file, parent.id if parent else None, written_name(node))
        groups.setdefault(group_key, []).append(node)
    ranks: dict[str, int] = {}
    for members in groups.values():
        ranked = sorted(members, key=lambda n: _sort_key(n, order[n.id]))
        for rank, member in enumerate(ranked):
            ranks[member.id] = rank

    paths: dict[str, str] = {}

    def own_part(node: CpgNode) -> str:
        rank = ranks[node.id]
        name = written_name(node)
        return name if rank == 0 else f"{name}#{rank + 1}"

    def path_of(node: CpgNode) -> str:
        # Up to the nearest enclosing definition whose path is known, then down
        # again: a loop, not recursion, so any nesting depth works, and each
        # path is built once from its parent's. A scope cycle (hand-written
        # CPGs) ends the walk where it closes, as a chain with no parent.
        pending: list[CpgNode] = []
        on_walk: set[str] = set()
        current: CpgNode | None = node
        while current is not None and current.id not in paths and current.id not in on_walk:
            pending.append(current)
            on_walk.add(current.id)
            current = parents[current.id]
        prefix = paths[current.id] if current is not None and current.id in paths else None
        for step in reversed(pending):
            own = own_part(step)
            prefix = own if prefix is None else f"{prefix}.{own}"
            paths[step.id] = prefix
        return paths[node.id]

    module_ordinals: dict[str, int] = {}
    used: set[str] = set()
    result: list[NodeIdentity] = []
    for node in indexable:
        mod = module_path(node.file)
        if node.kind is NodeKind.MODULE:
            seen = module_ordinals.get(node.file, 0) + 1
            module_ordinals[node.file] = seen
            key = f"module:{node.file}" + ("" if seen == 1 else f"#{seen}")
            qualname = mod or node.name
        else:
            path = path_of(node)
            key = f"{node.kind.value}:{node.file}:{path}"
            plain = ".".join(part.split("#", 1)[0] for part in path.split("."))
            qualname = f"{mod}.{plain}" if mod else plain
        if key in used:  # an owner's dotted name can spell a nested path: x.y = ... beside x { y }
            n = 2
            while f"{key}#{n}" in used:
                n += 1
            key = f"{key}#{n}"
        used.add(key)
        result.append(
            NodeIdentity(
                key=key,
                node_id=node.id,
                kind=node.kind,
                name=node.name,
                qualname=qualname,
                file=node.file,
                line=node.line,
                end_line=node.end_line,
                declared=keyword if isinstance(keyword := node.attr("keyword"), str) else "",
            )
        )
    return tuple(result)
