"""Outline JavaScript and TypeScript files from their tree-sitter parse.

Every JavaScript and TypeScript file is outlined: treeloom misses whole forms
of definition there (functions assigned to properties, prototypes and
exports, object literal methods, class fields, functions wrapped in a call,
TypeScript interfaces, type aliases, enums and abstract classes, exported
constants), and drops a file whole for one parse error, where tree-sitter
recovers and still gives the definitions around it. No regular expressions
look at code structure here: every definition is a node of the parse tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline, FoundImport
from greploom.core.outline import Form as F
from greploom.shell.outline_common import FlatWalker, Node, Params, node_text, point

_FUNCTIONS = frozenset(
    (
        "function_expression",
        "function",
        "arrow_function",
        "generator_function",
        "generator_function_expression",
    )
)
_CLASSES = frozenset(("class", "class_expression"))
_CLASS_DECLS = frozenset(("class_declaration", "abstract_class_declaration"))
_TYPE_DECLS = {
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
}
_STATEMENTS = frozenset(("expression_statement", "lexical_declaration", "variable_declaration"))
# What TypeScript wraps a value in without making it another value: `x as T`, `x satisfies T`,
# `(x)`, `<T>x`.
_TYPE_WRAPPERS = frozenset(
    ("as_expression", "satisfies_expression", "parenthesized_expression", "type_assertion")
)


def outline_script(file: str, tree: Any) -> FileOutline:
    """The outline of one parsed JavaScript or TypeScript file."""
    stem = file.rsplit("/", 1)[-1].split(".", 1)[0] or file
    return _Script(stem).outline(file, tree.root_node)


class _Script(FlatWalker):
    def __init__(self, stem: str) -> None:
        super().__init__()
        self.stem = stem  # the name of what ``module.exports = function () {}`` exports

    def parameters(self, value: Node) -> Params:
        return _parameters(value)

    def bases(self, value: Node) -> tuple[str, ...]:
        return _bases(value)

    def on_function_declaration(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        self.add(
            NodeKind.FUNCTION, F.DECLARATION, node_text(name) if name else "", _statement(node), name, node
        )

    def on_class_declaration(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        keyword = "abstract class" if node.type == "abstract_class_declaration" else ""
        span = _statement(node)
        self.add(
            NodeKind.CLASS, F.DECLARATION, node_text(name) if name else "", span, name, node, keyword=keyword
        )

    def on_type_declaration(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        form = F.DECLARATION if node.type == "interface_declaration" else F.TYPE
        keyword = _TYPE_DECLS[node.type]
        span = _statement(node)
        self.add(NodeKind.CLASS, form, node_text(name) if name else "", span, name, node, keyword=keyword)

    def on_method(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        parent = node.parent
        if parent is not None and parent.type == "object":
            owner = _object_owner(parent)
            if owner is not None:
                self.add(NodeKind.FUNCTION, F.OBJECT_METHOD, _key(name), node, name, node, owner)
        else:
            self.add(NodeKind.FUNCTION, F.METHOD, _key(name), node, name, node)

    def on_field(self, node: Node) -> None:
        name = node.child_by_field_name("property") or node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None and value is not None and value.type in _FUNCTIONS:
            self.add(NodeKind.FUNCTION, F.CLASS_FIELD, _key(name), node, name, value)

    def on_pair(self, node: Node) -> None:
        key = node.child_by_field_name("key")
        value = node.child_by_field_name("value")
        parent = node.parent
        if key is None or value is None or parent is None or parent.type != "object":
            return
        owner = _object_owner(parent)
        if value.type in _FUNCTIONS and owner is not None:
            self.add(NodeKind.FUNCTION, F.OBJECT_METHOD, _key(key), node, key, value, owner)

    def on_declarator(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None:
            return
        span = _statement(node)
        text = node_text(name)
        if value.type in _FUNCTIONS:
            self.add(NodeKind.FUNCTION, F.VARIABLE, text, span, name, value)
        elif value.type in _CLASSES:
            self.add(NodeKind.CLASS, F.VARIABLE, text, span, name, value)
        elif value.type == "call_expression" and _top_level(span) and _function_argument(value) is not None:
            self.add(NodeKind.FUNCTION, F.WRAPPED, text, span, name, value)
        elif _exported_binding(node):
            self.add(NodeKind.VARIABLE, F.EXPORTED_CONST, text, span, name, value)

    def on_assignment(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        value = node.child_by_field_name("right")
        if left is None or value is None:
            return
        if value.type == "assignment_expression":
            return  # req.get = req.header = function header(): one function, named where it is assigned
        kind = (
            NodeKind.FUNCTION
            if value.type in _FUNCTIONS
            else NodeKind.CLASS
            if value.type in _CLASSES
            else None
        )
        if kind is None:
            return
        parts = _member_parts(left)
        if not parts:
            return
        form, owner, name = _assigned_name(parts)
        if not name:  # module.exports = function () {}: its own name, else the file's
            own = value.child_by_field_name("name")
            name = node_text(own) if own is not None else self.stem
        self.add(kind, form, name, _statement(node), left, value, owner)

    def on_import(self, node: Node) -> None:
        source = node.child_by_field_name("source")
        if source is None:
            return
        names: list[str] = []
        for n in _descendants(node):
            if n.type == "import_specifier":
                bound = n.child_by_field_name("alias") or n.child_by_field_name("name")
                if bound is not None:
                    names.append(node_text(bound))
            elif n.type == "identifier" and n.parent is not None and n.parent.type != "import_specifier":
                names.append(node_text(n))  # a default import, or * as name
        module = node_text(source).strip("'\"`")
        self.imports.append(FoundImport(module, tuple(dict.fromkeys(names)), point(node.start_point), True))


_Script.handlers = {
    "function_declaration": _Script.on_function_declaration,
    "generator_function_declaration": _Script.on_function_declaration,
    **dict.fromkeys(_CLASS_DECLS, _Script.on_class_declaration),
    **dict.fromkeys(_TYPE_DECLS, _Script.on_type_declaration),
    "method_definition": _Script.on_method,
    "field_definition": _Script.on_field,
    "public_field_definition": _Script.on_field,
    "pair": _Script.on_pair,
    "variable_declarator": _Script.on_declarator,
    "assignment_expression": _Script.on_assignment,
    "call_expression": _Script.on_call,
    "new_expression": _Script.on_call,
    "import_statement": _Script.on_import,
}


def _descendants(node: Node) -> Iterator[Node]:
    stack = list(node.named_children)
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def _statement(node: Node) -> Node:
    """The statement a definition belongs to: ``export const f = ...`` as a whole,
    so its doc comment sits right above it; one declarator of many stays alone."""
    current = node
    parent = node.parent
    if node.type == "variable_declarator":
        # One declarator alone; a comment on its line is a named child too, not a second one
        # (`export const MAX = 10000 // see ...` lost its export, and so its definition).
        if (
            parent is None
            or parent.type not in _STATEMENTS
            or sum(c.type == "variable_declarator" for c in parent.named_children) != 1
        ):
            return node
        current, parent = parent, parent.parent
    elif node.type == "assignment_expression":
        if parent is None or parent.type != "expression_statement":
            return node
        current, parent = parent, parent.parent
    if parent is not None and parent.type == "export_statement":
        return parent
    return current


def _top_level(statement: Node) -> bool:
    """A statement of the file itself, not of a function body."""
    parent = statement.parent
    return parent is None or parent.type == "program"


def _key(node: Node) -> str:
    text = node_text(node)
    return text.strip("'\"`") if node.type in ("string", "property_identifier", "identifier") else text


def _member_parts(node: Node) -> tuple[str, ...]:
    """``a.b.prototype.c`` -> ("a", "b", "prototype", "c"); () for anything computed."""
    parts: list[str] = []
    current = node
    while current.type == "member_expression":
        prop = current.child_by_field_name("property")
        obj = current.child_by_field_name("object")
        if prop is None or obj is None:
            return ()
        parts.append(node_text(prop))
        current = obj
    if current.type in ("identifier", "this"):
        parts.append(node_text(current))
    else:
        return ()
    return tuple(reversed(parts))


def _assigned_name(parts: tuple[str, ...]) -> tuple[F, str, str]:
    """(form, owner, name) of an assignment target; an empty name for ``module.exports``."""
    form = F.ASSIGNED
    rest = list(parts)
    if rest[:2] == ["module", "exports"]:
        rest, form = rest[2:], F.EXPORTS
    elif rest[:1] == ["exports"]:
        rest, form = rest[1:], F.EXPORTS
    elif rest[:1] == ["this"]:
        rest = rest[1:]
    if "prototype" in rest:
        form = F.PROTOTYPE
        rest = [p for p in rest if p != "prototype"]
    if not rest:
        return form, "", ""
    return form, ".".join(rest[:-1]), rest[-1]


def _object_owner(obj: Node) -> str | None:
    """The name an object literal is bound to: ``const proto = {...}`` -> ``proto``,
    ``module.exports = {...}`` and ``export default {...}`` -> "" (the module itself),
    a nested ``{ a: { b() {} } }`` -> ``x.a``; None for an object bound to nothing
    (an argument, a return value): its functions are callbacks, not definitions. A type
    assertion around it is looked through: ``const factories = {...} as any`` (mobx's
    ``observableFactories``, whose ``box``, ``array``, ``map``... were lost to it)."""
    parent = obj.parent
    while parent is not None and parent.type in _TYPE_WRAPPERS:
        parent = parent.parent
    if parent is None:
        return None
    if parent.type == "export_statement":
        return ""
    if parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
        return node_text(name) if name is not None and name.type == "identifier" else None
    if parent.type == "assignment_expression":
        left = parent.child_by_field_name("left")
        parts = _member_parts(left) if left is not None else ()
        if not parts:
            return None
        _form, owner, name = _assigned_name(parts)
        return f"{owner}.{name}" if owner and name else name
    if parent.type == "pair" and parent.parent is not None and parent.parent.type == "object":
        key = parent.child_by_field_name("key")
        outer = _object_owner(parent.parent)
        inner = _key(key) if key is not None else ""
        if outer is None or not inner:
            return None
        return f"{outer}.{inner}" if outer else inner
    return None


def _function_argument(call: Node) -> Node | None:
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    return next((a for a in args.named_children if a.type in _FUNCTIONS), None)


def _exported_binding(declarator: Node) -> bool:
    """Whether a declarator binds an exported name with ``const``, ``let`` or ``var`` (mobx exports
    ``observable`` and ``globalState`` with ``var`` and ``let``; ``export const A = 1, B = 2``: both)."""
    declaration = declarator.parent
    return (
        declaration is not None
        and declaration.type in ("lexical_declaration", "variable_declaration")
        and declaration.parent is not None
        and declaration.parent.type == "export_statement"
    )


def _parameters(value: Node) -> Params:
    target = value
    if value.type == "call_expression":
        target = _function_argument(value) or value
    params = target.child_by_field_name("parameters")
    if params is None:
        single = target.child_by_field_name("parameter")  # x => x + 1
        return ((node_text(single), None),) if single is not None else ()
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type in ("comment",) or (p.type == "identifier" and node_text(p) in ("self", "cls")):
            continue  # as treeloom: no self or cls
        pattern = p.child_by_field_name("pattern") or p
        if pattern.type == "assignment_pattern":
            pattern = pattern.child_by_field_name("left") or pattern
        annotation = p.child_by_field_name("type")
        type_text = node_text(annotation).lstrip(":").strip() if annotation is not None else None
        out.append((" ".join(node_text(pattern).split())[:80], type_text[:120] if type_text else None))
    return tuple(out)


def _bases(value: Node) -> tuple[str, ...]:
    out: list[str] = []
    for child in value.named_children:
        if child.type in ("class_heritage", "extends_clause", "extends_type_clause", "implements_clause"):
            for part in child.named_children:
                if part.type in ("extends_clause", "implements_clause"):
                    out.extend(node_text(v) for v in part.named_children if v.type != "type_arguments")
                elif part.type not in ("type_arguments", "comment"):
                    out.append(node_text(part))
    return tuple(" ".join(b.split())[:120] for b in out)
