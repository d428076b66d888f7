"""Resolve, once per index run, the graph around every indexable node.

treeloom's raw graph is about call sites, literals and scopes; a query wants
functions. For each function, class and module this module answers:

- callers: definitions enclosing a ``call`` node linked to this node by
  :func:`greploom.core.calls.resolve_calls` (a call in a class body counts for
  the class, at top level for the module; a class's callers construct it);
- callees: definitions that ``call`` nodes inside this node are linked to
  (treeloom's bare-name ``calls`` edges are not trusted: a call whose target
  the code does not determine is no caller or callee at all);
- parameters: in positional order, with their annotations;
- parent class: the class a method is defined in (through branch scopes);
- data sources: other definitions from which ``data_flows_to`` edges reach
  nodes inside this one (argument values, returned values);
- imports: for a module all of its imports; for a function or class the
  imports inside it and those of its module whose bound name it uses;
- members: a class's methods and nested classes, a module's top-level
  definitions.

Lists are de-duplicated, self-references dropped, and capped at
``MAX_NEIGHBOURS`` (same-file neighbours first), so a function called from
thousands of places cannot flood a context.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence

from greploom.core.calls import CallLinks, resolve_calls
from greploom.core.cpg import CpgGraph, CpgNode, EdgeKind, NodeKind
from greploom.core.expand import NodeContext, NodeRef, StructuralContext
from greploom.core.keys import NodeIdentity
from greploom.core.summary import call_name, import_text, parameter_text, parameters

# The only edge kinds the keys, summaries and contexts read: a reader may drop the rest.
USED_EDGE_KINDS = frozenset({EdgeKind.CALLS, EdgeKind.DATA_FLOWS_TO, EdgeKind.HAS_PARAMETER})
MAX_NEIGHBOURS = 40  # per relationship; the packer would drop the rest anyway
_NAME = re.compile(r"[A-Za-z_][\w]*")


def source_block(text: str, column: int) -> str:
    """Source text as a block: treeloom starts it at ``def``, dropping the first line's
    indent while later lines keep theirs, so the indent is restored, then removed evenly."""
    return textwrap.dedent(" " * column + text)


def _ref(ident: NodeIdentity) -> NodeRef:
    return NodeRef(
        key=ident.key,
        name=ident.name,
        kind=ident.declared or ident.kind.value,
        file=ident.file,
        line=ident.line,
        detail=ident.qualname,
    )


def _capped(refs: Iterable[NodeRef], home_file: str, self_key: str) -> tuple[NodeRef, ...]:
    unique = {r.key: r for r in refs if r.key != self_key}
    ordered = sorted(unique.values(), key=lambda r: (r.file != home_file, r.file, r.line, r.key))
    return tuple(ordered[:MAX_NEIGHBOURS])


def import_bindings(node: CpgNode) -> tuple[str, ...]:
    """The local names an import node binds: ``from m import a`` binds ``a``."""
    names = node.attr("names")
    name_list = [n for n in names if isinstance(n, str)] if isinstance(names, tuple) else []
    module = node.attr("module")
    if node.attr("is_from") is True and name_list:
        return tuple(n.rsplit(".", 1)[-1] for n in name_list)
    if isinstance(module, str) and module:
        return (module.split(".", 1)[0],)
    return tuple(name_list)


class _Resolver:
    def __init__(
        self,
        graph: CpgGraph,
        identities: Iterable[NodeIdentity],
        links: CallLinks,
        callers: Mapping[str, Sequence[NodeIdentity]] | None,
    ) -> None:
        self.graph = graph
        self.by_id: dict[str, NodeIdentity] = {i.node_id: i for i in identities}
        self.links = links
        self.given_callers = callers
        self._module_imports: dict[str, list[tuple[CpgNode, frozenset[str]]]] = {}

    def module_imports(self, module: CpgNode) -> list[tuple[CpgNode, frozenset[str]]]:
        """A module's imports with the names each binds (read once per module, not per definition)."""
        cached = self._module_imports.get(module.id)
        if cached is None:
            cached = [
                (c, frozenset(import_bindings(c)))
                for c in self.graph.descendants_in(module)
                if c.kind is NodeKind.IMPORT
            ]
            self._module_imports[module.id] = cached
        return cached

    def ident_of_definition(self, node: CpgNode) -> NodeIdentity | None:
        owner = self.graph.enclosing_definition(node)
        return self.by_id.get(owner.id) if owner is not None else None

    def callers(self, node: CpgNode) -> Iterable[NodeRef]:
        if self.given_callers is not None:
            yield from (_ref(i) for i in self.given_callers.get(node.id, ()))
            return
        for call_id in self.links.calls_to(node.id):
            call = self.graph.node(call_id)
            owner = self.ident_of_definition(call) if call is not None else None
            if owner is not None:
                yield _ref(owner)

    def callees(self, inner: list[CpgNode]) -> Iterable[NodeRef]:
        for child in inner:
            if child.kind is NodeKind.CALL:
                target_id = self.links.target(child.id)
                target = self.by_id.get(target_id) if target_id is not None else None
                if target is not None:
                    yield _ref(target)

    def parameters(self, node: CpgNode, key: str) -> tuple[NodeRef, ...]:
        return tuple(
            NodeRef(
                key=f"{key}({p.name})",
                name=p.name,
                kind=NodeKind.PARAMETER.value,
                file=p.file,
                line=p.line,
                detail=parameter_text(p),
            )
            for p in parameters(self.graph, node)
        )

    def parent_class(self, node: CpgNode) -> NodeRef | None:
        if node.kind is NodeKind.MODULE:
            return None
        parent = self.graph.enclosing(node, NodeKind.FUNCTION, NodeKind.CLASS)
        if parent is None or parent.kind is not NodeKind.CLASS:
            return None
        ident = self.by_id.get(parent.id)
        return _ref(ident) if ident is not None else None

    def data_sources(self, node: CpgNode, inner: list[CpgNode]) -> Iterable[NodeRef]:
        for child in inner:
            for edge in self.graph.in_edges(child.id, EdgeKind.DATA_FLOWS_TO):
                source = self.graph.node(edge.source)
                owner = self.ident_of_definition(source) if source is not None else None
                if owner is not None and owner.node_id != node.id:
                    yield _ref(owner)

    def imports(self, node: CpgNode, inner: list[CpgNode]) -> Iterable[NodeRef]:
        own = [c for c in inner if c.kind is NodeKind.IMPORT]
        if node.kind is NodeKind.MODULE:
            chosen = own
        else:
            used = self._used_names(node, inner)
            module = self.graph.enclosing(node, NodeKind.MODULE)
            outer = self.module_imports(module) if module is not None else []
            chosen = own + [c for c, binds in outer if not used.isdisjoint(binds)]
        seen: dict[str, int] = {}
        for imp in chosen:
            text = import_text(imp)
            seen[text] = seen.get(text, 0) + 1
            suffix = "" if seen[text] == 1 else f"#{seen[text]}"
            module_name = imp.attr("module")
            yield NodeRef(
                key=f"import:{imp.file}:{text}{suffix}",
                name=module_name if isinstance(module_name, str) and module_name else text,
                kind=NodeKind.IMPORT.value,
                file=imp.file,
                line=imp.line,
                detail=text,
            )

    def _used_names(self, node: CpgNode, inner: list[CpgNode]) -> set[str]:
        used: set[str] = set()
        for child in inner:
            if child.kind is NodeKind.CALL:
                written = call_name(child.name)
                if written:
                    used.add(written.split(".", 1)[0])
            elif child.kind in (NodeKind.VARIABLE, NodeKind.PARAMETER):
                used.add(child.name.split(".", 1)[0])
                annotation = child.attr("type_annotation")
                if isinstance(annotation, str):
                    used.update(_NAME.findall(annotation))
        bases = node.attr("bases")
        if isinstance(bases, tuple):
            for base in bases:
                if isinstance(base, str):
                    used.update(_NAME.findall(base))
        decorators = node.attr("decorators")
        if isinstance(decorators, tuple):
            used.update(d.split(".", 1)[0] for d in decorators if isinstance(d, str))
        return used

    def members(self, inner: list[CpgNode]) -> Iterable[NodeRef]:
        for child in inner:
            ident = self.by_id.get(child.id)
            if ident is not None and child.kind in (NodeKind.FUNCTION, NodeKind.CLASS):
                yield _ref(ident)


def resolve_contexts(
    graph: CpgGraph,
    identities: Iterable[NodeIdentity],
    summaries: Mapping[str, str],
    links: CallLinks | None = None,
    *,
    callers: Mapping[str, Sequence[NodeIdentity]] | None = None,
    known: Iterable[NodeIdentity] = (),
) -> tuple[NodeContext, ...]:
    """A :class:`NodeContext` per identity; ``summaries`` maps key to summary text.

    ``links`` are the graph's call links (:func:`greploom.core.calls.resolve_calls`
    over the same identities); given, they are reused, else resolved here.
    ``callers`` (node id -> the definitions whose calls link to it) stands in for
    the calls' nodes, which the graph may not hold (the caller's file was not
    read); ``known``: the definitions of other files that links name."""
    idents = tuple(identities)
    everyone = (*known, *idents)
    resolver = _Resolver(
        graph, everyone, links if links is not None else resolve_calls(graph, idents), callers
    )
    contexts: list[NodeContext] = []
    for ident in idents:
        node = graph.node(ident.node_id)
        if node is None:
            continue
        inner = list(graph.descendants_in(node))
        home = ident.file
        members = tuple(resolver.members(inner))
        structure = StructuralContext(
            callers=_capped(resolver.callers(node), home, ident.key),
            callees=_capped(resolver.callees(inner), home, ident.key),
            parameters=resolver.parameters(node, ident.key)[:MAX_NEIGHBOURS],
            parent_class=resolver.parent_class(node),
            data_sources=_capped(resolver.data_sources(node, inner), home, ident.key),
            imports=tuple(resolver.imports(node, inner))[:MAX_NEIGHBOURS],
            members=members[: MAX_NEIGHBOURS * 4],
        )
        source = node.attr("source_text")
        if isinstance(source, str):
            # treeloom's source starts at the definition's column; recovered source
            # (greploom.core.spans) at the start of its line, indent and all.
            whole = node.attr("source_from_line_start") is True
            source = source_block(source, 0 if whole or not node.location else node.location.column)
        contexts.append(
            NodeContext(
                ref=_ref(ident),
                qualname=ident.qualname,
                summary=summaries.get(ident.key, ""),
                source=source if isinstance(source, str) else None,
                end_line=ident.end_line,
                node_id=ident.node_id,
                structure=structure,
            )
        )
    return tuple(contexts)
