"""Outline Rust files from their tree-sitter parse.

treeloom emits Rust's functions, methods and structs and is silent on the
rest: traits and their required methods, ``macro_rules!``, type aliases,
unions and closures held in constants; and it drops a file whole for one
parse error. Positions follow treeloom's so the merge recognises what it
emitted: an item's ``value_at`` is from ``pub``, attributes left out. An impl
method's owner is the impl's type (``impl<T> fmt::Display for crate::Bus<T>``
-> ``Bus``), except where treeloom already nests the method in the struct,
which it does for ``impl Name`` after ``struct Name`` in the same file. A
type that is not a struct says how it is declared (``keyword``: ``trait``,
``enum``, ``union``, ``type``).
"""

from __future__ import annotations

from typing import Any

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline
from greploom.core.outline import Form as F
from greploom.shell.outline_common import (
    Ctx,
    Node,
    Params,
    ScopedWalker,
    annotation_text,
    flat_text,
    node_text,
    outline_scoped,
    parse_errors,
)

_KEYWORDS = {"enum_item": "enum", "type_item": "type", "union_item": "union"}


def outline_rust(file: str, text: bytes, tree: Any) -> FileOutline:
    """The outline of one parsed Rust file."""
    skipped = bool(tree.root_node.has_error)  # treeloom drops a file whose parse has an error
    errors = parse_errors(tree.root_node) if skipped else 0
    return outline_scoped(file, text, tree, _Rust(header=False, skipped=skipped), errors)


class _Rust(ScopedWalker):
    def __init__(self, *, header: bool, skipped: bool) -> None:
        super().__init__(header=header, skipped=skipped)
        # The structs and enums treeloom has seen so far: it nests the methods of a
        # later ``impl Name`` (the type written exactly so) in that struct itself.
        self.known_types: set[str] = set()

    def on_function(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None:
            form = F.METHOD if ctx.scope in ("impl", "trait") else F.DECLARATION
            owner = ctx.owner if ctx.scope == "impl" else ""
            modifiers = next((c for c in node.named_children if c.type == "function_modifiers"), None)
            is_async = modifiers is not None and "async" in node_text(modifiers).split()
            self.add(
                NodeKind.FUNCTION,
                form,
                node_text(name),
                node,
                name,
                node,
                owner,
                _params(node),
                is_async=is_async,
            )
        return ctx._replace(scope="function", owner="")

    def on_signature(self, node: Node, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self.add(NodeKind.FUNCTION, F.PROTOTYPE, node_text(name), node, name, node, "", _params(node))

    def on_impl(self, node: Node, ctx: Ctx) -> Ctx:
        written = node.child_by_field_name("type")
        if written is None:
            return ctx
        nested = not self.skipped and ctx.scope != "function" and node_text(written) in self.known_types
        return ctx._replace(scope="impl", owner="" if nested else _type_name(written))

    def on_type(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is None:
            return ctx
        text = node_text(name)
        if node.type in ("struct_item", "enum_item") and ctx.scope != "function":
            self.known_types.add(text)
        form = F.TYPE if node.type in ("enum_item", "type_item") else F.DECLARATION
        owner = ctx.owner if ctx.scope == "impl" else ""  # type Item = ... of an impl
        keyword = _KEYWORDS.get(node.type, "")
        self.add(NodeKind.CLASS, form, text, node, name, node, owner, keyword=keyword)
        return ctx

    def on_trait(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None:
            bounds = node.child_by_field_name("bounds")
            bases = tuple(flat_text(b)[:120] for b in bounds.named_children) if bounds is not None else ()
            self.add(
                NodeKind.CLASS, F.DECLARATION, node_text(name), node, name, node, bases=bases, keyword="trait"
            )
        return ctx._replace(scope="trait", owner="")

    def on_macro(self, node: Node, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self.add(NodeKind.FUNCTION, F.MACRO, node_text(name), node, name, node)

    def on_constant(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if value is not None and value.type == "reference_expression":
            value = value.child_by_field_name("value")
        if name is not None and value is not None and value.type == "closure_expression":
            owner = ctx.owner if ctx.scope == "impl" else ""
            self.add(
                NodeKind.FUNCTION,
                F.VARIABLE,
                node_text(name),
                node,
                name,
                value,
                owner,
                _params(value, closure=True),
            )
        return ctx

    def on_call(self, node: Node, ctx: Ctx) -> Ctx:
        self.call(node, node.child_by_field_name("function"), node.child_by_field_name("arguments"))
        return ctx

    def on_use(self, node: Node, ctx: Ctx) -> None:
        argument = node.child_by_field_name("argument")
        if argument is not None:
            self.imported(node, flat_text(argument))


_Rust.handlers = {
    "function_item": _Rust.on_function,
    "function_signature_item": _Rust.on_signature,
    "impl_item": _Rust.on_impl,
    "struct_item": _Rust.on_type,
    "enum_item": _Rust.on_type,
    "union_item": _Rust.on_type,
    "type_item": _Rust.on_type,
    "trait_item": _Rust.on_trait,
    "macro_definition": _Rust.on_macro,
    "const_item": _Rust.on_constant,
    "static_item": _Rust.on_constant,
    "closure_expression": ScopedWalker.function_body,
    "call_expression": _Rust.on_call,
    "use_declaration": _Rust.on_use,
}


def _type_name(node: Node) -> str:
    """The bare name of an impl's type: ``crate::Bus<X>`` -> ``Bus``, ``&'a Foo`` -> ``Foo``."""
    current: Node | None = node
    while current is not None:
        kind = current.type
        if kind in ("type_identifier", "primitive_type"):
            return node_text(current)
        if kind == "scoped_type_identifier":
            current = current.child_by_field_name("name")
        elif kind in ("generic_type", "reference_type", "pointer_type"):
            current = current.child_by_field_name("type")
        elif kind == "dynamic_type":
            current = current.child_by_field_name("trait")
        else:
            return ""
    return ""


def _params(node: Node, *, closure: bool = False) -> Params:
    """A function's or closure's parameters; a closure's may be bare patterns (``|x|``)."""
    params = node.child_by_field_name("parameters")
    if params is None:
        return ()
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type == "parameter":
            pattern = p.child_by_field_name("pattern")
            if pattern is not None:
                out.append((flat_text(pattern)[:80], annotation_text(p.child_by_field_name("type"))))
        elif closure and p.type != "comment":
            out.append((flat_text(p)[:80], None))
        # else: self, attributes, comments: as treeloom, no receiver
    return tuple(out)
