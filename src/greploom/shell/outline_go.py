"""Outline Go files from their tree-sitter parse.

treeloom emits Go's functions, methods and structs and is silent on the rest:
interfaces and the methods they declare, named non-struct types and aliases,
functions held in package variables; and it drops a file whole for one parse
error. Positions follow treeloom's so the merge recognises what it emitted: a
type's ``value_at`` is the name of its ``type_spec``, while ``start`` takes
in the ``type`` keyword of a lone type. A method's owner is its receiver's
type (``(s *Pair[K, V])`` -> ``Pair``); an interface says so (``keyword``).
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
    node_text,
    outline_scoped,
    parse_errors,
)


def outline_go(file: str, text: bytes, tree: Any) -> FileOutline:
    """The outline of one parsed Go file."""
    skipped = bool(tree.root_node.has_error)  # treeloom drops a file whose parse has an error
    errors = parse_errors(tree.root_node) if skipped else 0
    return outline_scoped(file, text, tree, _Go(header=False, skipped=skipped), errors)


class _Go(ScopedWalker):
    def on_function(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None:
            self.add(NodeKind.FUNCTION, F.DECLARATION, node_text(name), node, name, node, "", _params(node))
        return ctx._replace(scope="function")

    def on_method(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is not None:
            owner = _receiver(node.child_by_field_name("receiver"))
            self.add(NodeKind.FUNCTION, F.METHOD, node_text(name), node, name, node, owner, _params(node))
        return ctx._replace(scope="function")

    def on_type(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("type")
        if name is None or value is None:
            return ctx
        parent = node.parent
        lone = parent is not None and parent.type == "type_declaration" and parent.named_child_count == 1
        declared = node.type == "type_spec" and value.type in ("struct_type", "interface_type")
        form = F.DECLARATION if declared else F.TYPE
        keyword = "" if value.type == "struct_type" else "interface" if declared else "type"
        self.add(NodeKind.CLASS, form, node_text(name), parent if lone else node, name, node, keyword=keyword)
        return ctx

    def on_method_elem(self, node: Node, ctx: Ctx) -> Ctx | None:
        name = node.child_by_field_name("name")
        parent = node.parent
        if name is not None and parent is not None and parent.type == "interface_type":
            self.add(NodeKind.FUNCTION, F.PROTOTYPE, node_text(name), node, name, node, "", _params(node))
        return None

    def on_var_spec(self, node: Node, ctx: Ctx) -> Ctx:
        if ctx.scope != "file":
            return ctx
        names = node.children_by_field_name("name")
        value = node.child_by_field_name("value")
        values = value.named_children if value is not None else []
        for name, item in zip(names, values, strict=False):
            if item.type != "func_literal":
                continue
            span = item
            if len(names) == 1:
                parent = node.parent
                span = parent if parent is not None and parent.type == "var_declaration" else node
            self.add(NodeKind.FUNCTION, F.VARIABLE, node_text(name), span, name, item, "", _params(item))
        return ctx

    def on_call(self, node: Node, ctx: Ctx) -> Ctx:
        self.call(node, node.child_by_field_name("function"), node.child_by_field_name("arguments"))
        return ctx

    def on_import(self, node: Node, ctx: Ctx) -> None:
        path = node.child_by_field_name("path")
        if path is not None:
            self.imported(node, node_text(path).strip('"`'))


_Go.handlers = {
    "function_declaration": _Go.on_function,
    "method_declaration": _Go.on_method,
    "type_spec": _Go.on_type,
    "type_alias": _Go.on_type,
    "method_elem": _Go.on_method_elem,
    "var_spec": _Go.on_var_spec,
    "func_literal": ScopedWalker.function_body,
    "call_expression": _Go.on_call,
    "import_spec": _Go.on_import,
}


def _receiver(receiver: Node | None) -> str:
    """``(s *Pair[K, V])`` -> ``Pair``."""
    if receiver is None:
        return ""
    declaration = next((c for c in receiver.named_children if c.type == "parameter_declaration"), None)
    current = declaration.child_by_field_name("type") if declaration is not None else None
    while current is not None and current.type in ("pointer_type", "generic_type", "parenthesized_type"):
        current = current.child_by_field_name("type") or (
            current.named_children[0] if current.named_child_count else None
        )
    return node_text(current) if current is not None and current.type == "type_identifier" else ""


def _params(node: Node) -> Params:
    params = node.child_by_field_name("parameters")
    if params is None:
        return ()
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        annotation = p.child_by_field_name("type")
        type_text = annotation_text(annotation)
        if type_text and p.type == "variadic_parameter_declaration":
            type_text = "..." + type_text
        out.extend((node_text(n), type_text) for n in p.children_by_field_name("name"))
    return tuple(out)
