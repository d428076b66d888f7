"""What the code defines and binds where: the tables call resolution reads, and who reads what.

For :mod:`greploom.core.calls`: every definition under its enclosing scope
(the nearest function, class or module), the names each scope's parameters,
variables and imports bind, the types they are annotated or inferred with,
and the functions defined on an object (``Router.prototype.handle =
function``) under that object's qualified name. The tables are the union of
each file's :class:`~greploom.core.call_scopes.FileScopes`, merged in the
order given. Only definitions among the given identities are indexed, and
treeloom's ``calls`` edges are not read (law 2 of
tests/properties/test_calls.py). No rule of resolution lives here.

The rules read the tables through the methods below, which note in the
:class:`~greploom.core.call_memo.Memo` the file of each scope and node they
look at and the code-base-wide entries they look up.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from greploom.core.call_memo import Memo, table_key
from greploom.core.call_scopes import (
    Binding,
    Enclosing,
    FileHead,
    FileScopes,
    file_scopes,
    head_of,
    import_bindings,
    owner_key,
)
from greploom.core.cpg import CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity, module_path
from greploom.core.summary import is_python

__all__ = ["Binding", "ScopeIndex", "import_bindings"]

K = TypeVar("K")
V = TypeVar("V")


def _add(table: dict[K, list[V]], key: K, value: V) -> None:
    """Append to a table's list for a key (made when missing)."""
    found = table.get(key)
    if found is None:
        table[key] = [value]
    else:
        found.append(value)


def _looked_up_by(index: weakref.ReferenceType[ScopeIndex]) -> Callable[[str], CpgNode | None]:
    """A node by its id, found by ``index`` (alive while used)."""

    def look(node_id: str) -> CpgNode | None:
        live = index()
        assert live is not None, "the index outlives its enclosing scopes"
        return live._quiet_node(node_id)

    return look


class ScopeIndex:
    """Definitions, bindings and types by scope, merged from the files' scopes.

    ``scopes`` (one per file; by default those of every file of the graph) give
    the tables; ``graph`` the nodes the rules look at, besides each file's
    ``definitions``. ``heads`` (greploom.core.call_scopes.FileHead) are files
    taken in part: their code-base-wide entries now, the rest from ``bodies``
    (file -> its scopes) when a lookup first comes to one of their scopes, so a
    run reads only the files its calls reach. ``identities`` are every file's.
    ``calls``: the call nodes to resolve (by default every call node of the graph).
    """

    def __init__(
        self,
        graph: CpgGraph,
        identities: Iterable[NodeIdentity],
        scopes: Iterable[FileScopes] | None = None,
        calls: Sequence[CpgNode] | None = None,
        *,
        heads: Iterable[FileHead] = (),
        bodies: Callable[[str], FileScopes] | None = None,
    ) -> None:
        self.graph = graph
        self.idents = {i.node_id: i for i in identities}
        self.memo = Memo()
        self._nodes = graph.nodes
        self._skeleton: dict[str, CpgNode] = {}  # definitions of files given by their scopes only
        # Through a weak reference: a bound method would make a cycle holding the whole graph,
        # which only the cyclic collector's full pass frees (greploom.core.calls says more).
        self.enclosing = Enclosing(graph, _looked_up_by(weakref.ref(self)))
        self._python: dict[str, bool] = {}  # file -> whether it is Python
        self.defs: dict[tuple[str, str], list[str]] = {}  # (scope definition, name) -> definitions
        self.top: dict[str, list[str]] = {}  # name -> top-level definitions anywhere
        self.names: set[str] = set()  # every definition's name
        self.classes: dict[str, list[str]] = {}  # name -> classes anywhere
        self.locals: dict[str, set[str]] = {}  # scope definition -> names of its parameters/variables
        self.types: dict[tuple[str, str], set[str]] = {}  # (scope, name) -> type texts
        self.class_attr_types: dict[tuple[str, str], set[str]] = {}  # (class, body variable) -> types
        self.self_attrs: list[tuple[str, str, str]] = []  # ``self.x``/``this.x`` bindings: scope, attr, type
        self.imports: dict[tuple[str, str], list[Binding]] = {}  # (scope, bound name) -> bindings
        self.stars: dict[str, list[Binding]] = {}  # module node -> star imports
        self.file_modules: dict[str, list[str]] = {}  # file -> module nodes
        self.owned: dict[str, dict[str, list[str]]] = {}  # owner qualname -> name -> definitions
        self.files: set[str] = set()  # files with a module node
        self.bound: list[tuple[str, str, str]] = []  # (file, module, name) bound at a module's top level
        self.imported: list[tuple[str, str]] = []  # (module named, importing file) of every import
        self._later: set[str] = set()  # files whose scopes ``bodies`` gives when first needed
        self._bodies = bodies
        if scopes is None:
            scopes = file_scopes(graph, self.idents.values()).values()
        for part in scopes:
            self._merge_head(head_of(part, self.idents))
            self._merge_body(part)
        for head in heads:
            self._merge_head(head)
            self._later.add(head.file)
        if calls is None:
            calls = [n for n in graph.nodes.values() if n.kind is NodeKind.CALL]
        self.calls = list(calls)

    def _merge_head(self, head: FileHead) -> None:
        for name, def_id in head.top:
            _add(self.top, name, def_id)
        for name, def_id in head.classes:
            _add(self.classes, name, def_id)
        for owner, name, def_id in head.owned:
            _add(self.owned.setdefault(owner, {}), name, def_id)
        self.self_attrs.extend(head.self_attrs)
        self.names.update(head.names)
        if head.modules:
            self.file_modules.setdefault(head.file, []).extend(head.modules)
            self.files.add(head.file)
        self.bound.extend((head.file, module, name) for module, name in head.bound)
        self.imported.extend((module, head.file) for module in head.imported)

    def _merge_body(self, part: FileScopes) -> None:
        nodes, skeleton = self._nodes, self._skeleton
        for node in part.definitions:
            if node.id not in nodes:
                skeleton[node.id] = node
        for scope, name, def_id in part.defs:
            _add(self.defs, (scope, name), def_id)
        names = self.locals
        for scope, name in part.locals:
            held = names.get(scope)
            if held is None:
                names[scope] = {name}
            else:
                held.add(name)
        for table, rows in ((self.types, part.types), (self.class_attr_types, part.class_attr_types)):
            for scope, name, typ in rows:
                found = table.get((scope, name))
                if found is None:
                    table[(scope, name)] = {typ}
                else:
                    found.add(typ)
        for scope, bound, binding in part.imports:
            _add(self.imports, (scope, bound), binding)
        for scope, binding in part.stars:
            _add(self.stars, scope, binding)

    def file_of(self, node_id: str) -> str:
        """The file of a definition (every definition is an identity), else of a node."""
        ident = self.idents.get(node_id)
        if ident is not None:
            return ident.file
        node = self._nodes.get(node_id)
        return node.file if node is not None else ""

    def _take(self, file: str) -> None:
        """A file's scopes, merged now: the first lookup of one of them has come."""
        if file in self._later and self._bodies is not None:
            self._later.discard(file)
            self._merge_body(self._bodies(file))

    def _quiet_node(self, node_id: str) -> CpgNode | None:
        node = self._nodes.get(node_id)
        if node is None:
            node = self._skeleton.get(node_id)
            if node is None and self._later:
                self._take(self.file_of(node_id))
                node = self._skeleton.get(node_id)
        return node

    # -- reads, each noted in the memo ------------------------------------------
    def read(self, node_id: str) -> None:
        """Note a look at a definition's scope (its file), whose tables are then merged."""
        file = self.file_of(node_id)
        self.memo.reads.add(file)
        if file in self._later:
            self._take(file)

    def node(self, node_id: str) -> CpgNode | None:
        """A node, its file noted."""
        node = self._quiet_node(node_id)
        if node is not None:
            where = node.location
            self.memo.reads.add(where.file if where is not None else "")
        return node

    def defs_in(self, scope: str, name: str) -> list[str]:
        self.read(scope)
        return self.defs.get((scope, name), [])

    def imports_in(self, scope: str, name: str) -> list[Binding]:
        self.read(scope)
        return self.imports.get((scope, name), [])

    def locals_in(self, scope: str) -> set[str]:
        self.read(scope)
        return self.locals.get(scope, set())

    def types_in(self, scope: str, name: str) -> set[str] | None:
        self.read(scope)
        return self.types.get((scope, name))

    def stars_in(self, module: str) -> list[Binding]:
        self.read(module)
        return self.stars.get(module, [])

    def top_named(self, name: str) -> list[str]:
        self.memo.reads.add(table_key("top", name))
        return self.top.get(name, [])

    def classes_named(self, name: str) -> list[str]:
        self.memo.reads.add(table_key("class", name))
        return self.classes.get(name, [])

    def owns(self, owner: str) -> bool:
        """Whether functions are defined on the object of this qualname."""
        self.memo.reads.add(table_key("owned", owner))
        return owner in self.owned

    def owned_named(self, owner: str, name: str) -> list[str]:
        self.memo.reads.add(table_key("owned", owner))
        return self.owned.get(owner, {}).get(name, [])

    def owner_key(self, node: CpgNode) -> str | None:
        """The qualname of the object a function is defined on (its ``owner`` attribute)."""
        self.memo.reads.add(node.file)
        return owner_key(node, self.enclosing(node), self.idents)

    def qualname(self, node_id: str) -> str:
        ident = self.idents.get(node_id)
        if ident is not None:
            self.memo.reads.add(ident.file)
            return ident.qualname
        node = self.node(node_id)
        return module_path(node.file) if node is not None else node_id

    def in_python(self, node_id: str) -> bool:
        """Whether a node lies in a Python file (its file's name says; nothing else is read)."""
        file = self.file_of(node_id)
        python = self._python.get(file)
        if python is None:
            python = self._python[file] = is_python(file)
        return python
