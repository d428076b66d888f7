"""Outline Python files treeloom skipped, from their tree-sitter parse.

treeloom emits every definition of a Python file it parses, so this outline
only serves the files it drops (one syntax error is enough): tree-sitter
recovers from the error, and the functions, methods, classes, calls and
imports around it still reach the index. Every definition is a node of the
parse tree; as treeloom, a method's ``self`` or ``cls`` is no parameter.
"""

from __future__ import annotations

from typing import Any

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline, FoundImport
from greploom.core.outline import Form as F
from greploom.shell.outline_common import FlatWalker, Node, Params, node_text, point


def outline_python(file: str, tree: Any) -> FileOutline:
    """The outline of one parsed Python file."""
    return _Python().outline(file, tree.root_node)


class _Python(FlatWalker):
    def parameters(self, value: Node) -> Params:
        return _parameters(value)

    def bases(self, value: Node) -> tuple[str, ...]:
        return _bases(value)

    def on_function(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        up = node.parent
        if up is not None and up.type == "decorated_definition":
            up = up.parent
        if up is not None and up.type == "block":
            up = up.parent
        form = F.METHOD if up is not None and up.type == "class_definition" else F.DECLARATION
        self.add(NodeKind.FUNCTION, form, node_text(name) if name else "", node, name, node)

    def on_class(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        self.add(NodeKind.CLASS, F.DECLARATION, node_text(name) if name else "", node, name, node)

    def on_import(self, node: Node) -> None:
        module = node.child_by_field_name("module_name")
        names = [
            node_text(n.child_by_field_name("alias") or n) if n.type == "aliased_import" else node_text(n)
            for n in node.children_by_field_name("name")
        ]
        text = node_text(module) if module is not None else (names[0] if names else "")
        if text:
            at = point(node.start_point)
            self.imports.append(FoundImport(text, tuple(names), at, is_from=module is not None))


_Python.handlers = {
    "function_definition": _Python.on_function,
    "class_definition": _Python.on_class,
    "call": _Python.on_call,
    "import_statement": _Python.on_import,
    "import_from_statement": _Python.on_import,
}


def _parameters(value: Node) -> Params:
    params = value.child_by_field_name("parameters")
    if params is None:
        return ()
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type in ("comment",) or (p.type == "identifier" and node_text(p) in ("self", "cls")):
            continue  # as treeloom: no self or cls
        if p.type in ("default_parameter", "typed_default_parameter"):  # name = value
            named = p.child_by_field_name("name")
            annotation = p.child_by_field_name("type")
            out.append(
                (node_text(named) if named else node_text(p), node_text(annotation) if annotation else None)
            )
            continue
        if p.type == "typed_parameter":  # name: type
            first = p.named_children[0] if p.named_child_count else p
            annotation = p.child_by_field_name("type")
            out.append((node_text(first), node_text(annotation) if annotation else None))
            continue
        annotation = p.child_by_field_name("type")
        type_text = node_text(annotation).lstrip(":").strip() if annotation is not None else None
        out.append((" ".join(node_text(p).split())[:80], type_text[:120] if type_text else None))
    return tuple(out)


def _bases(value: Node) -> tuple[str, ...]:
    supers = value.child_by_field_name("superclasses")  # class K(Base, metaclass=M)
    if supers is None:
        return ()
    out = [node_text(v) for v in supers.named_children if v.type != "keyword_argument"]
    return tuple(" ".join(b.split())[:120] for b in out)
