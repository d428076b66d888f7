"""What the code defines and binds where: the one pass over a graph that call resolution reads.

For :mod:`greploom.core.calls`: every definition under its enclosing scope
(the nearest function, class or module), the names each scope's parameters,
variables and imports bind, the types they are annotated or inferred with,
and the functions defined on an object (``Router.prototype.handle =
function``) under that object's qualified name. Only definitions among the
given identities are indexed, and treeloom's ``calls`` edges are not read
(law 2 of tests/properties/test_calls.py). No rule of resolution lives here.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from greploom.core.cpg import CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity, module_path
from greploom.core.summary import is_python

_DEF_KINDS = frozenset({NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.MODULE})
_LINKABLE = frozenset({NodeKind.FUNCTION, NodeKind.CLASS})


@attrs.frozen
class Binding:
    """One name bound by an import: a module, a module's member, or a star import."""

    kind: str  # "module", "member" or "star"
    module: str
    member: str
    file: str
    is_from: bool


def import_bindings(node: CpgNode) -> list[tuple[str, Binding]]:
    """(bound name, binding) for each name an import node binds, aliases included."""
    raw_names = node.attr("names")
    names = [n for n in raw_names if isinstance(n, str)] if isinstance(raw_names, tuple) else []
    raw_module = node.attr("module")
    module = raw_module if isinstance(raw_module, str) else ""
    raw_aliases = node.attr("aliases")
    aliases: dict[str, str] = {}
    if isinstance(raw_aliases, tuple):
        for pair in raw_aliases:
            if isinstance(pair, str) and "=" in pair:
                name, alias = pair.split("=", 1)
                aliases[name] = alias
    is_from = node.attr("is_from") is True
    out: list[tuple[str, Binding]] = []
    if is_from and names:
        for name in names:
            alias = aliases.get(name, "")
            if name == "*" and not alias:
                out.append(("*", Binding("star", module, "", node.file, True)))
            elif name == "*":
                out.append((alias or name, Binding("module", module, "", node.file, True)))
            else:
                out.append((alias or name, Binding("member", module, name, node.file, True)))
        return out
    for name in names or ([module] if module else []):
        alias = aliases.get(name, "")
        if alias:
            out.append((alias, Binding("module", name, "", node.file, False)))
        else:
            head = name.split(".", 1)[0]
            out.append((head, Binding("module", head, "", node.file, False)))
    return out


class ScopeIndex:
    """Definitions, bindings and types by scope, built once over the graph."""

    def __init__(self, graph: CpgGraph, identities: Iterable[NodeIdentity]) -> None:
        self.graph = graph
        self.idents = {i.node_id: i for i in identities}
        self._encl: dict[str, str | None] = {}
        self.defs: dict[tuple[str, str], list[str]] = {}  # (scope definition, name) -> definitions
        self.top: dict[str, list[str]] = {}  # name -> top-level definitions anywhere
        self.names: set[str] = set()  # every definition's name
        self.classes: dict[str, list[str]] = {}  # name -> classes anywhere
        self.locals: dict[str, set[str]] = {}  # scope definition -> names of its parameters/variables
        self.types: dict[tuple[str, str], set[str]] = {}  # (scope, name) -> type texts
        self.class_attr_types: dict[tuple[str, str], set[str]] = {}  # (class, body variable) -> types
        self.self_attrs: list[tuple[CpgNode, str, str]] = []  # ``self.x``/``this.x`` bindings: attr, type
        self.imports: dict[tuple[str, str], list[Binding]] = {}  # (scope, bound name) -> bindings
        self.stars: dict[str, list[Binding]] = {}  # module node -> star imports
        self.file_modules: dict[str, list[str]] = {}  # file -> module nodes
        self.owned: dict[str, dict[str, list[str]]] = {}  # owner qualname -> name -> definitions
        self.calls: list[CpgNode] = []
        self.files: set[str] = set()  # files with a module node
        self._build()

    def enclosing(self, node: CpgNode) -> str | None:
        """The nearest enclosing function, class or module of a node (memoised by scope)."""
        scope = node.scope
        if scope is None:
            return None
        if scope in self._encl:
            return self._encl[scope]
        walked: list[str] = []
        on_walk: set[str] = set()
        current: str | None = scope
        found: str | None = None
        while current is not None and current not in on_walk:
            if current in self._encl:
                found = self._encl[current]
                break
            parent = self.graph.node(current)
            if parent is None:
                break
            if parent.kind in _DEF_KINDS:
                found = current
                break
            walked.append(current)
            on_walk.add(current)
            current = parent.scope
        for step in walked:
            self._encl[step] = found
        self._encl[scope] = found
        return found

    def _build(self) -> None:
        pending_owned: list[CpgNode] = []
        for node in self.graph.nodes.values():
            kind = node.kind
            if kind is NodeKind.CALL:
                self.calls.append(node)
            elif kind in _LINKABLE:
                if node.id not in self.idents:
                    continue
                scope = self.enclosing(node)
                self.names.add(node.name)
                if kind is NodeKind.CLASS:
                    self.classes.setdefault(node.name, []).append(node.id)
                if isinstance(node.attr("owner"), str):
                    pending_owned.append(node)
                    continue
                if scope is not None:
                    self.defs.setdefault((scope, node.name), []).append(node.id)
                    parent = self.graph.node(scope)
                    if parent is not None and parent.kind is NodeKind.MODULE:
                        self.top.setdefault(node.name, []).append(node.id)
            elif kind is NodeKind.MODULE:
                self.file_modules.setdefault(node.file, []).append(node.id)
                self.files.add(node.file)
            elif kind in (NodeKind.PARAMETER, NodeKind.VARIABLE):
                self._add_binding(node)
            elif kind is NodeKind.IMPORT:
                scope = self.enclosing(node)
                if scope is None:
                    continue
                for bound, binding in import_bindings(node):
                    if binding.kind == "star":
                        self.stars.setdefault(scope, []).append(binding)
                    else:
                        self.imports.setdefault((scope, bound), []).append(binding)
        for node in pending_owned:
            key = self.owner_key(node)
            if key is not None:
                self.owned.setdefault(key, {}).setdefault(node.name, []).append(node.id)

    def _add_binding(self, node: CpgNode) -> None:
        scope = self.enclosing(node)
        if scope is None:
            return
        name = node.name
        annotation = node.attr("type_annotation")
        inferred = node.attr("inferred_type")
        typ = annotation if isinstance(annotation, str) and annotation else inferred
        if "." not in name:
            self.locals.setdefault(scope, set()).add(name)
            if isinstance(typ, str) and typ:
                self.types.setdefault((scope, name), set()).add(typ)
            parent = self.graph.node(scope)
            if parent is not None and parent.kind is NodeKind.CLASS and isinstance(typ, str) and typ:
                self.class_attr_types.setdefault((scope, name), set()).add(typ)
            return
        head, _, attr = name.partition(".")
        if "." in attr or head not in ("self", "this") or not (isinstance(typ, str) and typ):
            return
        self.self_attrs.append((node, attr, typ))

    def owner_key(self, node: CpgNode) -> str | None:
        """The qualname of the object a function is defined on (its ``owner`` attribute)."""
        owner = node.attr("owner")
        if not isinstance(owner, str):
            return None
        scope = self.enclosing(node)
        parent = self.idents.get(scope) if scope is not None else None
        prefix = parent.qualname if parent is not None else module_path(node.file)
        tail = ".".join(p for p in owner.split(".") if p and p != "prototype")
        return f"{prefix}.{tail}" if tail else prefix

    def qualname(self, node_id: str) -> str:
        ident = self.idents.get(node_id)
        if ident is not None:
            return ident.qualname
        node = self.graph.node(node_id)
        return module_path(node.file) if node is not None else node_id

    def in_python(self, node_id: str) -> bool:
        """Whether a node lies in a Python file."""
        node = self.graph.node(node_id)
        return node is not None and is_python(node.file)
