"""What every tree-sitter outline walker shares: node text and positions, and the two walks.

A :class:`FlatWalker` (JavaScript, TypeScript, Python) sees every node of
the tree once and counts the syntax errors it meets; a :class:`ScopedWalker`
(Go, Rust, C, C++, Java) hands each node the context of its parent (the
class, impl or namespace it sits in) and may leave a subtree out, and
:func:`outline_scoped` turns its finds into the file's :class:`FileOutline`.
Each language's module (``greploom.shell.outline_*``) subclasses one of them
with a handler per node type; :mod:`greploom.shell.outline` picks the module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import attrs

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline, FoundCall, FoundDefinition, FoundImport, Point
from greploom.core.outline import Form as F

Node = Any  # tree_sitter.Node: the library ships no stubs mypy can use here
Params = tuple[tuple[str, str | None], ...]


def point(p: Any) -> Point:
    """A tree-sitter point as treeloom writes positions: 1-based line, 0-based column."""
    return (p.row + 1, p.column)


def node_text(node: Node) -> str:
    return bytes(node.text).decode("utf-8", errors="replace")


def flat_text(node: Node) -> str:
    """A node's text without whitespace: ``std :: vector`` -> ``std::vector``."""
    return "".join(node_text(node).split())


def annotation_text(node: Node | None) -> str | None:
    """A type as written, its whitespace collapsed, cut to 120 characters."""
    return " ".join(node_text(node).split())[:120] if node is not None else None


def parse_errors(root: Node) -> int:
    """Syntax errors the parser recovered from (only subtrees holding one are walked)."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


# -- JavaScript, TypeScript, Python ---------------------------------------------


def found_definition(  # noqa: PLR0917 - the parts every walker names a definition by
    kind: NodeKind,
    form: F,
    name: str,
    span: Node,
    name_node: Node | None,
    value: Node,
    *,
    end: Point | None = None,
    owner: str = "",
    parameters: Params = (),
    is_async: bool = False,
    bases: tuple[str, ...] = (),
    keyword: str = "",
) -> FoundDefinition:
    """A definition spanning ``span`` (to ``end`` when given), named at ``name_node``
    (else where ``value``, the function or type itself, starts)."""
    return FoundDefinition(
        kind=kind,
        form=form,
        name=name,
        start=point(span.start_point),
        end=end or point(span.end_point),
        name_at=point((name_node or value).start_point),
        value_at=point(value.start_point),
        owner=owner,
        parameters=parameters,
        is_async=is_async,
        bases=bases,
        keyword=keyword,
    )


class FlatWalker:
    """One pass over a parse tree, every node once, collecting definitions, calls and
    imports and counting the syntax errors met on the way."""

    handlers: ClassVar[dict[str, Callable[[Any, Node], None]]] = {}

    def __init__(self) -> None:
        self.definitions: list[FoundDefinition] = []
        self.calls: list[FoundCall] = []
        self.imports: list[FoundImport] = []
        self.errors = 0

    def walk(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_error or node.is_missing:
                self.errors += 1
            handler = self.handlers.get(node.type)
            if handler is not None:
                handler(self, node)
            stack.extend(reversed(node.named_children))

    def outline(self, file: str, root: Node) -> FileOutline:
        """Walk the tree and give what was found as the file's outline."""
        self.walk(root)
        return FileOutline(
            file=file,
            definitions=tuple(self.definitions),
            calls=tuple(self.calls),
            imports=tuple(self.imports),
            errors=self.errors,
        )

    def parameters(self, _value: Node) -> Params:
        """The parameters of a function, as the language writes them."""
        return ()

    def bases(self, _value: Node) -> tuple[str, ...]:
        """What a class extends or implements, as the language writes it."""
        return ()

    def add(  # noqa: PLR0917 - one call shape for every form of definition
        self,
        kind: NodeKind,
        form: F,
        name: str,
        span: Node,
        name_node: Node | None,
        value: Node,
        owner: str = "",
        keyword: str = "",
    ) -> None:
        if not name:
            return
        function = kind is NodeKind.FUNCTION
        self.definitions.append(
            found_definition(
                kind,
                form,
                name,
                span,
                name_node,
                value,
                owner=owner,
                parameters=self.parameters(value) if function else (),
                is_async=function and _is_async(value),
                bases=self.bases(value) if kind is NodeKind.CLASS else (),
                keyword=keyword,
            )
        )

    def on_call(self, node: Node) -> None:
        callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        if callee is None:
            return
        args = node.child_by_field_name("arguments")
        name = "".join(node_text(callee).split())
        if name and len(name) <= 200:
            self.calls.append(FoundCall(name, point(node.start_point), args.named_child_count if args else 0))


def _is_async(value: Node) -> bool:
    first = value.children[0] if value.child_count else None
    return first is not None and first.type == "async"


# -- Go, Rust, C, C++, Java -------------------------------------------------------


class Ctx(NamedTuple):
    """Where the walk is: what a definition found here belongs to."""

    scope: str = "file"  # "file", "class" (C++/Java body), "impl" / "trait" (Rust), "function"
    owner: str = ""  # the Rust impl's type, for its methods
    namespace: str = ""  # the C++ namespace path, dotted
    hidden: bool = False  # inside a Java anonymous class: nothing is a definition


Handler = Callable[[Any, Node, Ctx], "Ctx | None"]


class ScopedWalker:
    """One pass over a parse tree, collecting definitions, calls and imports.

    A handler sees a node and the context of its parent; it returns the
    context for the node's children, or None to leave them out.
    """

    handlers: ClassVar[dict[str, Handler]] = {}

    def __init__(self, *, header: bool, skipped: bool) -> None:
        self.header = header  # a C/C++ header: its prototypes are definitions
        self.skipped = skipped  # treeloom drops this file: everything comes from here
        self.definitions: list[FoundDefinition] = []
        self.calls: list[FoundCall] = []
        self.imports: list[FoundImport] = []

    def walk(self, root: Node) -> None:
        handlers = self.handlers
        stack: list[tuple[Node, Ctx]] = [(root, Ctx())]
        while stack:
            node, ctx = stack.pop()
            handler = handlers.get(node.type)
            inner: Ctx | None = ctx if handler is None else handler(self, node, ctx)
            if inner is None:
                continue
            children = node.named_children
            if children:
                stack.extend((child, inner) for child in reversed(children))

    def add(  # noqa: PLR0917 - one call shape for every form of definition
        self,
        kind: NodeKind,
        form: F,
        name: str,
        span: Node,
        name_node: Node | None,
        value: Node,
        owner: str = "",
        parameters: Params = (),
        *,
        is_async: bool = False,
        bases: tuple[str, ...] = (),
        end: Point | None = None,
        keyword: str = "",
    ) -> None:
        if not name or len(name) > 200:
            return
        self.definitions.append(
            found_definition(
                kind,
                form,
                name,
                span,
                name_node,
                value,
                end=end,
                owner=owner,
                parameters=parameters,
                is_async=is_async,
                bases=bases,
                keyword=keyword,
            )
        )

    def call(self, node: Node, callee: Node | None, args: Node | None) -> None:
        if callee is None:
            return
        name = flat_text(callee)
        if name and len(name) <= 200:
            count = sum(1 for a in args.named_children if a.type != "comment") if args is not None else 0
            self.calls.append(FoundCall(name, point(node.start_point), count))

    def imported(
        self, node: Node, module: str, names: tuple[str, ...] = (), *, is_from: bool = False
    ) -> None:
        if module:
            self.imports.append(FoundImport(module, names, point(node.start_point), is_from))

    def function_body(self, _node: Node, ctx: Ctx) -> Ctx:
        """A closure or lambda: what it holds is local."""
        return ctx._replace(scope="function", owner="")


def outline_scoped(file: str, text: bytes, tree: Any, walker: ScopedWalker, errors: int) -> FileOutline:
    """Walk the tree and give what was found as the file's outline.

    Where the tree's text is not the file's (a C macro blanked out, or blank
    lines the root leaves out), a definition whose line begins with text the
    parse did not see starts at that text.
    """
    walker.walk(tree.root_node)
    definitions = walker.definitions
    parsed = bytes(tree.root_node.text or b"")
    if parsed != text:  # macros blanked: a statement starts at its macro
        lines = [0, *(i + 1 for i, byte in enumerate(text) if byte == 0x0A)]
        definitions = [_with_macro(d, text, parsed, lines) for d in definitions]
    return FileOutline(
        file=file,
        definitions=tuple(definitions),
        calls=tuple(walker.calls),
        imports=tuple(walker.imports),
        errors=errors,
    )


def _with_macro(found: FoundDefinition, text: bytes, parsed: bytes, lines: list[int]) -> FoundDefinition:
    """A definition whose line begins with a blanked macro starts at the macro
    (``RING_API ring_t *ring_new(...)`` at ``RING_API``)."""
    line, column = found.start
    if column == 0 or line > len(lines):
        return found
    first = lines[line - 1]
    if parsed[first : first + column].strip():
        return found  # code before it on its line
    prefix = text[first : first + column]
    indent = len(prefix) - len(prefix.lstrip())
    return attrs.evolve(found, start=(line, indent)) if indent < column else found
