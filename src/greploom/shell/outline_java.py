"""Outline Java files from their tree-sitter parse.

treeloom emits Java's classes, interfaces, enums, records, methods and
lambdas and is silent on annotation types; and it drops a file whole for one
parse error. Positions follow treeloom's so the merge recognises what it
emitted: a lambda held in a field is at the lambda (``value_at``), which
treeloom names ``lambda$L$C``. Nothing inside an anonymous class is a
definition (treeloom emits none of it). A type that is not a class says how
it is declared (``keyword``: ``interface``, ``enum``, ``record``,
``@interface``).
"""

from __future__ import annotations

from typing import Any

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline, FoundCall
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
    point,
)

_KEYWORDS = {
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "@interface",
}


def outline_java(file: str, text: bytes, tree: Any) -> FileOutline:
    """The outline of one parsed Java file."""
    skipped = bool(tree.root_node.has_error)  # treeloom drops a file whose parse has an error
    errors = parse_errors(tree.root_node) if skipped else 0
    return outline_scoped(file, text, tree, _Java(header=False, skipped=skipped), errors)


class _Java(ScopedWalker):
    def on_class(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None and not ctx.hidden:
            form = F.TYPE if node.type == "enum_declaration" else F.DECLARATION
            keyword = _KEYWORDS.get(node.type, "")
            self.add(
                NodeKind.CLASS, form, node_text(name), node, name, node, bases=_bases(node), keyword=keyword
            )
        return ctx._replace(scope="class")

    def on_method(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None and not ctx.hidden:
            self.add(NodeKind.FUNCTION, F.METHOD, node_text(name), node, name, node, "", _params(node))
        return ctx._replace(scope="function")

    def on_field(self, node: Node, ctx: Ctx) -> Ctx:
        if ctx.hidden:
            return ctx
        declarators = node.children_by_field_name("declarator")
        for item in declarators:
            name = item.child_by_field_name("name")
            value = item.child_by_field_name("value")
            if name is not None and value is not None and value.type == "lambda_expression":
                span = node if len(declarators) == 1 else item
                self.add(
                    NodeKind.FUNCTION, F.VARIABLE, node_text(name), span, name, value, "", _params(value)
                )
        return ctx

    def on_class_body(self, node: Node, ctx: Ctx) -> Ctx:
        parent = node.parent
        if parent is not None and parent.type == "object_creation_expression":
            return ctx._replace(hidden=True)  # an anonymous class: treeloom emits none of it
        return ctx

    def on_invocation(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is None:
            return ctx
        target = node.child_by_field_name("object")
        text = f"{flat_text(target)}.{node_text(name)}" if target is not None else node_text(name)
        if text and len(text) <= 200:
            args = node.child_by_field_name("arguments")
            count = sum(1 for a in args.named_children if a.type != "comment") if args is not None else 0
            self.calls.append(FoundCall(text, point(node.start_point), count))
        return ctx

    def on_new(self, node: Node, ctx: Ctx) -> Ctx:
        written = node.child_by_field_name("type")
        if written is not None and written.type == "generic_type":
            written = next((c for c in written.named_children if c.type != "type_arguments"), written)
        self.call(node, written, node.child_by_field_name("arguments"))
        return ctx

    def on_import(self, node: Node, ctx: Ctx) -> None:
        path = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        if path is None:
            return
        text = flat_text(path)
        if any(c.type == "asterisk" for c in node.named_children):
            self.imported(node, text, ("*",), is_from=True)
        else:
            module, _dot, last = text.rpartition(".")
            self.imported(node, module or last, (last,) if module else (), is_from=bool(module))


_Java.handlers = {
    **dict.fromkeys(
        (
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
        ),
        _Java.on_class,
    ),
    "method_declaration": _Java.on_method,
    "constructor_declaration": _Java.on_method,
    "compact_constructor_declaration": _Java.on_method,
    "field_declaration": _Java.on_field,
    "class_body": _Java.on_class_body,
    "lambda_expression": ScopedWalker.function_body,
    "method_invocation": _Java.on_invocation,
    "object_creation_expression": _Java.on_new,
    "import_declaration": _Java.on_import,
}


def _bases(node: Node) -> tuple[str, ...]:
    out: list[str] = []
    for child in node.named_children:
        if child.type == "superclass":
            out.extend(flat_text(t) for t in child.named_children)
        elif child.type in ("super_interfaces", "extends_interfaces"):
            for part in child.named_children:
                items = part.named_children if part.type == "type_list" else [part]
                out.extend(flat_text(t) for t in items)
    return tuple(b[:120] for b in out if b)


def _params(node: Node) -> Params:
    params = node.child_by_field_name("parameters")
    if params is None:
        return ()
    if params.type == "identifier":  # x -> x * 2
        return ((node_text(params), None),)
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type == "identifier":  # (x, y) -> ...
            out.append((node_text(p), None))
        elif p.type in ("formal_parameter", "spread_parameter"):
            name = p.child_by_field_name("name")
            if name is None:
                declarator = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                name = declarator.child_by_field_name("name") if declarator is not None else None
            annotation = p.child_by_field_name("type") or next(
                (c for c in p.named_children if c.type.endswith("type")), None
            )
            if name is not None:
                out.append((node_text(name), annotation_text(annotation)))
    return tuple(out)
