"""What one file adds to call resolution's index of scopes, and all that the other files see of it.

:class:`greploom.core.call_index.ScopeIndex` is the union of one
:class:`FileScopes` per file: its definitions under their enclosing scopes,
the names its parameters, variables and imports bind in each scope, their
types, the functions it defines on objects, its module nodes. Each is a
function of that file's nodes and identities alone, so an index run keeps
them beside the index and rebuilds the index of scopes from them without
reading the files again.

Resolving the calls of a file reads other files only through these tables
and their definition nodes (``definitions``: each function, class and module
node, scoped to its enclosing definition, with only the attributes the rules
read). So the calls of some files resolve the same over their full graph
plus the others' :class:`FileScopes` as over the whole code base's graph
(law 11 of tests/properties/test_calls.py).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping

import attrs

from greploom.core.cpg import CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity, module_path

DEF_KINDS = frozenset({NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.MODULE})
LINKABLE = frozenset({NodeKind.FUNCTION, NodeKind.CLASS})
# The attributes of a definition the call rules read (greploom.core.call_targets,
# call_classes, call_index): a definition node of another file keeps these only.
DEFINITION_ATTRS = frozenset({"bases", "decorators", "owner"})


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


@attrs.frozen
class FileScopes:
    """One file's part of the index of scopes; every list in the order of the file's nodes."""

    file: str
    definitions: tuple[CpgNode, ...] = ()  # function, class and module nodes (scope: the enclosing one)
    defs: tuple[tuple[str, str, str], ...] = ()  # (scope, name, definition) of linkable definitions
    top: tuple[tuple[str, str], ...] = ()  # (name, definition) at a module's top level
    classes: tuple[tuple[str, str], ...] = ()  # (name, class)
    owned: tuple[tuple[str, str, str], ...] = ()  # (owner's qualname, name, definition)
    locals: tuple[tuple[str, str], ...] = ()  # (scope, name) of parameters and variables
    types: tuple[tuple[str, str, str], ...] = ()  # (scope, name, type text)
    class_attr_types: tuple[tuple[str, str, str], ...] = ()  # (class, body variable, type text)
    self_attrs: tuple[tuple[str, str, str], ...] = ()  # (scope, attribute, type) of typed self.x/this.x
    imports: tuple[tuple[str, str, Binding], ...] = ()  # (scope, bound name, binding)
    stars: tuple[tuple[str, Binding], ...] = ()  # (module, star import)
    modules: tuple[str, ...] = ()  # module node ids


@attrs.frozen
class FileHead:
    """What of a file's scopes the code-base-wide tables hold: read before any of its scopes
    (:func:`head_of`), so that an index of scopes can take the rest of a file when a
    lookup first comes to it (greploom.core.call_index.ScopeIndex's ``bodies``)."""

    file: str
    top: tuple[tuple[str, str], ...] = ()  # FileScopes.top
    classes: tuple[tuple[str, str], ...] = ()  # FileScopes.classes
    owned: tuple[tuple[str, str, str], ...] = ()  # FileScopes.owned
    self_attrs: tuple[tuple[str, str, str], ...] = ()  # FileScopes.self_attrs
    modules: tuple[str, ...] = ()  # FileScopes.modules
    bound: tuple[tuple[str, str], ...] = ()  # (module, name) of each name bound at a module's top level
    imported: tuple[str, ...] = ()  # the module each import and star import names, in order
    names: tuple[str, ...] = ()  # the names of its linkable definitions


def head_of(scopes: FileScopes, known: Container[str]) -> FileHead:
    """A file's :class:`FileHead`, from its scopes; ``known``: the ids of the identities."""
    modules = set(scopes.modules)
    bound = [(sc, n) for sc, n, _ in scopes.defs if sc in modules]
    bound += [(sc, n) for sc, n, _ in scopes.imports if sc in modules]
    bound += [(sc, n) for sc, n in scopes.locals if sc in modules]
    imported = [b.module for _, _, b in scopes.imports] + [b.module for _, b in scopes.stars]
    names = [d.name for d in scopes.definitions if d.kind in LINKABLE and d.id in known]
    return FileHead(
        scopes.file,
        scopes.top,
        scopes.classes,
        scopes.owned,
        scopes.self_attrs,
        scopes.modules,
        tuple(dict.fromkeys(bound)),
        tuple(imported),
        tuple(dict.fromkeys(names)),
    )


class Enclosing:
    """The nearest enclosing function, class or module of a node (memoised by scope);
    ``node`` finds a node by its id (by default the graph's)."""

    def __init__(self, graph: CpgGraph, node: Callable[[str], CpgNode | None] | None = None) -> None:
        self.node = node or graph.node
        self._encl: dict[str, str | None] = {}

    def __call__(self, node: CpgNode) -> str | None:
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
            parent = self.node(current)
            if parent is None:
                break
            if parent.kind in DEF_KINDS:
                found = current
                break
            walked.append(current)
            on_walk.add(current)
            current = parent.scope
        for step in walked:
            self._encl[step] = found
        self._encl[scope] = found
        return found


def owner_key(node: CpgNode, scope: str | None, idents: Mapping[str, NodeIdentity]) -> str | None:
    """The qualname of the object a function is defined on (its ``owner`` attribute)."""
    owner = node.attr("owner")
    if not isinstance(owner, str):
        return None
    parent = idents.get(scope) if scope is not None else None
    prefix = parent.qualname if parent is not None else module_path(node.file)
    tail = ".".join(p for p in owner.split(".") if p and p != "prototype")
    return f"{prefix}.{tail}" if tail else prefix


class _Builder:
    """One file's tables, filled node by node."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.definitions: list[CpgNode] = []
        self.defs: list[tuple[str, str, str]] = []
        self.top: list[tuple[str, str]] = []
        self.classes: list[tuple[str, str]] = []
        self.owned: list[tuple[str, str, str]] = []
        self.locals: list[tuple[str, str]] = []
        self.types: list[tuple[str, str, str]] = []
        self.class_attr_types: list[tuple[str, str, str]] = []
        self.self_attrs: list[tuple[str, str, str]] = []
        self.imports: list[tuple[str, str, Binding]] = []
        self.stars: list[tuple[str, Binding]] = []
        self.modules: list[str] = []

    def done(self) -> FileScopes:
        return FileScopes(
            self.file,
            tuple(self.definitions),
            tuple(self.defs),
            tuple(self.top),
            tuple(self.classes),
            tuple(self.owned),
            tuple(self.locals),
            tuple(self.types),
            tuple(self.class_attr_types),
            tuple(self.self_attrs),
            tuple(self.imports),
            tuple(self.stars),
            tuple(self.modules),
        )


def _skeleton(node: CpgNode, scope: str | None) -> CpgNode:
    """A definition as other files see it: its name, place, enclosing definition and the
    attributes the call rules read."""
    kept = tuple((k, v) for k, v in node.attrs if k in DEFINITION_ATTRS) if node.attrs else ()
    return CpgNode(node.id, node.kind, node.name, node.location, None, scope, kept)


def file_scopes(graph: CpgGraph, identities: Iterable[NodeIdentity]) -> dict[str, FileScopes]:
    """The :class:`FileScopes` of every file with nodes in the graph."""
    idents = {i.node_id: i for i in identities}
    enclosing = Enclosing(graph)
    builders: dict[str, _Builder] = {}
    pending_owned: list[CpgNode] = []
    for node in graph.nodes.values():
        kind = node.kind
        if kind is NodeKind.CALL:
            continue
        b = builders.get(node.file)
        if b is None:
            b = builders[node.file] = _Builder(node.file)
        if kind in DEF_KINDS:
            b.definitions.append(_skeleton(node, enclosing(node)))
        if kind in LINKABLE:
            if node.id not in idents:
                continue
            scope = enclosing(node)
            if kind is NodeKind.CLASS:
                b.classes.append((node.name, node.id))
            if isinstance(node.attr("owner"), str):
                pending_owned.append(node)
                continue
            if scope is not None:
                b.defs.append((scope, node.name, node.id))
                parent = graph.node(scope)
                if parent is not None and parent.kind is NodeKind.MODULE:
                    b.top.append((node.name, node.id))
        elif kind is NodeKind.MODULE:
            b.modules.append(node.id)
        elif kind in (NodeKind.PARAMETER, NodeKind.VARIABLE):
            _add_binding(graph, node, enclosing(node), b)
        elif kind is NodeKind.IMPORT:
            scope = enclosing(node)
            if scope is None:
                continue
            for bound, binding in import_bindings(node):
                if binding.kind == "star":
                    b.stars.append((scope, binding))
                else:
                    b.imports.append((scope, bound, binding))
    for node in pending_owned:
        key = owner_key(node, enclosing(node), idents)
        if key is not None:
            builders[node.file].owned.append((key, node.name, node.id))
    return {file: b.done() for file, b in builders.items()}


def _add_binding(graph: CpgGraph, node: CpgNode, scope: str | None, b: _Builder) -> None:
    if scope is None:
        return
    name = node.name
    annotation = node.attr("type_annotation")
    inferred = node.attr("inferred_type")
    typ = annotation if isinstance(annotation, str) and annotation else inferred
    if "." not in name:
        b.locals.append((scope, name))
        if isinstance(typ, str) and typ:
            b.types.append((scope, name, typ))
        parent = graph.node(scope)
        if parent is not None and parent.kind is NodeKind.CLASS and isinstance(typ, str) and typ:
            b.class_attr_types.append((scope, name, typ))
        return
    head, _, attr = name.partition(".")
    if "." in attr or head not in ("self", "this") or not (isinstance(typ, str) and typ):
        return
    b.self_attrs.append((scope, attr, typ))
