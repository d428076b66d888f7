"""Outline C and C++ files from their tree-sitter parse.

treeloom emits C and C++ functions, structs and classes and is silent on the
rest: enums, typedefs, function-like macros and the prototypes of header
files; C++ in-class method declarations, operator overloads, ``using``
aliases and classes declared with a variable. It also drops a file whole for
one parse error, and a macro it cannot expand is one (``static PyObject
*FASTCALL_MSVC f(...)``, ``JNIEXPORT void JNICALL ...``), as is almost every
C++ header (treeloom reads ``.h`` with the C grammar): for those, this outline
is all the index gets, calls and includes included. Such a file is parsed
again with those macros blanked out (:mod:`greploom.shell.outline_c_macros`),
and a ``.h`` both as C and as C++: the parse with fewer errors is kept (C on
a tie).

Positions follow treeloom's so the merge recognises what it emitted: a C++
function's ``value_at`` is the function, not its ``template <...>``, which
``start`` takes in; a C typedef'd anonymous struct is at its ``struct``
keyword, where treeloom writes ``<anonymous>``. What is not inside a class
is owned by its C++ namespace (``a::b`` as ``a.b``). An out-of-class C++
``Foo::bar`` is named as treeloom writes it (``Foo::bar``) so the two match;
in a file treeloom skipped it is ``bar``, owner ``Foo``. A type that is not
a struct or class says how it is declared (``keyword``: ``enum``, ``union``,
``typedef``, ``using``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from greploom.core.cpg import NodeKind
from greploom.core.outline import FileOutline
from greploom.core.outline import Form as F
from greploom.shell.outline_c_macros import RECORD_SPECIFIERS, parse_without_macros
from greploom.shell.outline_common import (
    Ctx,
    Node,
    Params,
    ScopedWalker,
    annotation_text,
    flat_text,
    node_text,
    outline_scoped,
    point,
)

_HEADERS = frozenset((".h", ".hh", ".hpp", ".hxx"))
_HOLDERS = frozenset(("type_definition", "declaration", "field_declaration"))
_WRAPPERS = frozenset(
    ("pointer_declarator", "reference_declarator", "attributed_declarator", "array_declarator")
)


def outline_c(
    file: str, text: bytes, tree: Any, *, ext: str, language: str, parser_for: Callable[[str], Any | None]
) -> FileOutline:
    """The outline of one parsed C (``language`` "c") or C++ ("cpp") file.

    A file treeloom skips is parsed again with its stray macros blanked out,
    and a ``.h`` also as C++ (its parser from ``parser_for``).
    """
    skipped = bool(tree.root_node.has_error)  # treeloom drops a file whose parse has an error
    errors = 0
    if skipped:
        tree, errors = parse_without_macros(parser_for(language), text)
        if ext == ".h" and errors:
            cpp = parser_for("cpp")
            other = parse_without_macros(cpp, text) if cpp is not None else None
            if other is not None and other[1] < errors:
                language, (tree, errors) = "cpp", other
    walker = (_Cpp if language == "cpp" else _C)(header=ext in _HEADERS, skipped=skipped)
    return outline_scoped(file, text, tree, walker, errors)


class _C(ScopedWalker):
    cpp = False

    def owner_here(self, ctx: Ctx) -> str:
        """The namespace of a definition outside any class or function."""
        return ctx.namespace if ctx.scope == "file" else ""

    def function_name(self, declarator: Node, ctx: Ctx) -> tuple[str, Node | None, str]:
        """(name, name node, owner) of a function declarator's target."""
        target = declarator.child_by_field_name("declarator")
        owner = self.owner_here(ctx)
        if target is None:
            return "", None, owner
        kind = target.type
        if kind == "parenthesized_declarator":  # int (f)(void), never (*f)(void)
            inner = next((c for c in target.named_children if c.type == "identifier"), None)
            return (node_text(inner), inner, owner) if inner is not None else ("", None, owner)
        if kind != "qualified_identifier":
            target = _recovered_name(declarator) or target
            return _simple_name(target), target, owner
        if not self.skipped:  # the name treeloom writes, so the two match
            return node_text(target), target, owner
        scopes: list[str] = []
        current = target
        while current is not None and current.type == "qualified_identifier":
            scope = current.child_by_field_name("scope")
            if scope is not None:
                part = scope.child_by_field_name("name") if scope.type == "template_type" else scope
                scopes.append(flat_text(part if part is not None else scope))
            current = current.child_by_field_name("name")
        if current is None:
            return "", None, owner
        owner = ".".join(p for p in (owner, *scopes) if p)
        return _simple_name(current), current, owner

    def on_function(self, node: Node, ctx: Ctx) -> Ctx:
        declarator = _function_declarator(node.child_by_field_name("declarator"))
        if declarator is not None:
            name, name_node, owner = self.function_name(declarator, ctx)
            form = F.METHOD if ctx.scope == "class" else F.DECLARATION
            self.add(NodeKind.FUNCTION, form, name, _outer(node), name_node, node, owner, _params(declarator))
        return ctx._replace(scope="function", owner="")

    def on_declaration(self, node: Node, ctx: Ctx) -> Ctx:
        """A prototype: a method declared in a C++ class, a function declared in a header."""
        if not ((ctx.scope == "class" and self.cpp) or (ctx.scope == "file" and self.header)):
            return ctx
        parent = node.parent
        if parent is not None and parent.type == "friend_declaration":
            return ctx
        declarators = node.children_by_field_name("declarator")
        for item in declarators:
            declarator = _function_declarator(item)
            if declarator is None:
                continue
            name, name_node, owner = self.function_name(declarator, ctx)
            span = _outer(node) if len(declarators) == 1 else item
            self.add(NodeKind.FUNCTION, F.PROTOTYPE, name, span, name_node, node, owner, _params(declarator))
        return ctx

    def on_class(self, node: Node, ctx: Ctx) -> Ctx:
        body = node.child_by_field_name("body")
        if body is None:
            return ctx
        holder = _holder(node)
        name_node = node.child_by_field_name("name")
        form = F.DECLARATION
        # typedef struct {...} Point; also, as treeloom writes <anonymous> for it in C,
        # a struct member: struct { int x; } pos;
        if (
            name_node is None
            and holder is not None
            and (holder.type == "type_definition" or (holder.type == "field_declaration" and not self.cpp))
        ):
            name_node = _first_declared(holder)
            form = F.TYPE if holder.type == "type_definition" else F.DECLARATION
        name = node_text(name_node) if name_node is not None else ""
        if name:
            bases = _bases(node) if self.cpp else ()
            span = _outer(holder if holder is not None else node)
            keyword = "union" if node.type == "union_specifier" else ""
            owner = self.owner_here(ctx)
            self.add(NodeKind.CLASS, form, name, span, name_node, node, owner, bases=bases, keyword=keyword)
        return ctx._replace(scope="class", owner=name)

    def on_enum(self, node: Node, ctx: Ctx) -> Ctx:
        if node.child_by_field_name("body") is None:
            return ctx
        holder = _holder(node)
        name_node = node.child_by_field_name("name")
        if name_node is None and holder is not None and holder.type == "type_definition":
            name_node = _first_declared(holder)
        if name_node is not None:
            span = _outer(holder if holder is not None else node)
            owner = self.owner_here(ctx)
            self.add(
                NodeKind.CLASS, F.TYPE, node_text(name_node), span, name_node, node, owner, keyword="enum"
            )
        return ctx

    def on_typedef(self, node: Node, ctx: Ctx) -> Ctx:
        written = node.child_by_field_name("type")
        tag = ""
        if written is not None and written.type in (*RECORD_SPECIFIERS, "enum_specifier"):
            if written.child_by_field_name("body") is not None:
                return ctx  # the struct, union or enum names itself (on_class / on_enum)
            tag_node = written.child_by_field_name("name")
            tag = node_text(tag_node) if tag_node is not None else ""
        declarators = node.children_by_field_name("declarator")
        for item in declarators:
            name_node = _type_name(item)
            if name_node is None or node_text(name_node) == tag:  # typedef struct X X;
                continue
            span = _outer(node) if len(declarators) == 1 else item
            owner = self.owner_here(ctx)
            self.add(
                NodeKind.CLASS, F.TYPE, node_text(name_node), span, name_node, node, owner, keyword="typedef"
            )
        return ctx

    def on_alias(self, node: Node, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            owner = self.owner_here(ctx)
            self.add(
                NodeKind.CLASS, F.TYPE, node_text(name), _outer(node), name, node, owner, keyword="using"
            )

    def on_namespace(self, node: Node, ctx: Ctx) -> Ctx:
        name = node.child_by_field_name("name")
        if name is None:
            return ctx  # an anonymous namespace adds no name
        path = flat_text(name).replace("::", ".")
        return ctx._replace(namespace=f"{ctx.namespace}.{path}" if ctx.namespace else path)

    def on_macro(self, node: Node, ctx: Ctx) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        params = node.child_by_field_name("parameters")
        value = node.child_by_field_name("value")
        last = value or params or name  # the node itself ends on the next line
        names = tuple((node_text(p), None) for p in params.named_children) if params is not None else ()
        self.add(
            NodeKind.FUNCTION,
            F.MACRO,
            node_text(name),
            node,
            name,
            node,
            "",
            names,
            end=point(last.end_point),
        )

    def on_call(self, node: Node, ctx: Ctx) -> Ctx:
        self.call(node, node.child_by_field_name("function"), node.child_by_field_name("arguments"))
        return ctx

    def on_include(self, node: Node, ctx: Ctx) -> None:
        path = node.child_by_field_name("path")
        if path is not None:
            self.imported(node, node_text(path).strip('<>"').strip())


_C.handlers = {
    "function_definition": _C.on_function,
    "declaration": _C.on_declaration,
    "field_declaration": _C.on_declaration,
    **dict.fromkeys(RECORD_SPECIFIERS, _C.on_class),
    "enum_specifier": _C.on_enum,
    "type_definition": _C.on_typedef,
    "preproc_function_def": _C.on_macro,
    "call_expression": _C.on_call,
    "preproc_include": _C.on_include,
}


class _Cpp(_C):
    cpp = True


_Cpp.handlers = {
    **_C.handlers,
    "alias_declaration": _Cpp.on_alias,
    "namespace_definition": _Cpp.on_namespace,
    "lambda_expression": ScopedWalker.function_body,
}


def _outer(node: Node) -> Node:
    """A definition with its ``template <...>`` lines."""
    current = node
    while current.parent is not None and current.parent.type == "template_declaration":
        current = current.parent
    return current


def _holder(specifier: Node) -> Node | None:
    """The typedef or declaration a struct/enum specifier is the type of."""
    parent = specifier.parent
    if parent is None or parent.type not in _HOLDERS:
        return None
    written = parent.child_by_field_name("type")
    return parent if written is not None and written == specifier else None


def _first_declared(holder: Node) -> Node | None:
    """The name the first declarator of a typedef or declaration gives."""
    item = holder.child_by_field_name("declarator")
    return _type_name(item) if item is not None else None


def _type_name(node: Node) -> Node | None:
    """The identifier a (type) declarator declares: ``(*cmp_fn)(...)`` -> ``cmp_fn``."""
    current: Node | None = node
    while current is not None:
        if current.type in ("type_identifier", "identifier", "field_identifier", "primitive_type"):
            return current
        inner = current.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (c for c in current.named_children if "declarator" in c.type or "identifier" in c.type), None
            )
        current = inner
    return None


def _function_declarator(node: Node | None) -> Node | None:
    """The function declarator of a declarator (``*f(...)``, ``&operator=(...)``), if it declares one."""
    current = node
    while current is not None and current.type in _WRAPPERS:
        if current.type == "array_declarator":
            return None
        inner = current.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in current.named_children if c.type.endswith("declarator")), None)
        current = inner
    if current is None or current.type != "function_declarator":
        return None
    target = current.child_by_field_name("declarator")
    if target is None or (target.type == "parenthesized_declarator" and _function_pointer(target)):
        return None
    return current


def _recovered_name(declarator: Node) -> Node | None:
    """The real name where a macro took its place: in ``PyObject *FASTCALL_MSVC decode_true(...)``
    the parser reads ``FASTCALL_MSVC`` as the name and ``decode_true`` as an error before
    the parameters."""
    params = declarator.child_by_field_name("parameters")
    before = params.prev_sibling if params is not None else None
    if before is None or not before.is_error or not before.named_child_count:
        return None
    last = before.named_children[-1]
    return last if last.type == "identifier" else None


def _function_pointer(parenthesized: Node) -> bool:
    """``(*fn)``: a pointer to a function, not a function."""
    return any(c.type != "identifier" for c in parenthesized.named_children)


def _simple_name(node: Node) -> str:
    kind = node.type
    if kind in ("identifier", "field_identifier", "type_identifier"):
        return node_text(node)
    if kind == "destructor_name":  # as written (and as treeloom names it): ~Foo, rarely ~ Foo
        return " ".join(node_text(node).split())
    if kind == "operator_name":  # operator==, operator(), operator new, operator bool
        rest = " ".join(node_text(node).split())[len("operator") :].strip()
        return (
            f"operator {rest}"
            if rest[:1].isalnum() or rest[:1] == "_"
            else f"operator{rest.replace(' ', '')}"
        )
    if kind == "template_function":
        name = node.child_by_field_name("name")
        return flat_text(name) if name is not None else ""
    return ""


def _params(declarator: Node) -> Params:
    params = declarator.child_by_field_name("parameters")
    if params is None:
        return ()
    out: list[tuple[str, str | None]] = []
    for p in params.named_children:
        if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        inner = p.child_by_field_name("declarator")
        name = _type_name(inner) if inner is not None else None
        if name is None:
            continue
        annotation = p.child_by_field_name("type")
        out.append((node_text(name), annotation_text(annotation)))
    return tuple(out)


def _bases(node: Node) -> tuple[str, ...]:
    clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
    if clause is None:
        return ()
    return tuple(
        flat_text(b)[:120] for b in clause.named_children if b.type not in ("access_specifier", "comment")
    )
