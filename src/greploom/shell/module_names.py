"""The names a module binds at its top level by assignment: constants, proxies, registries, exports.

``g = LocalProxy(...)`` in flask's globals.py, ``DEFAULT_TIMEOUT = 30``,
``export const router = Router()``: no definition carries these names, so a
symbol query naming one found nothing by name (flask's ``g`` ranked 22nd, by
words alone). Each module row keeps its top-level names with their lines
(greploom.shell.store_rows: the ``module_names`` table); the name lookup finds
the module by them, and the answer focuses on the assignment's line.

Read with tree-sitter (the grammars greploom.shell.outline loads), the top
level only: a name bound inside a function, class or ``if`` block is not the
module's interface. Values that are functions or classes are left out in
JavaScript and TypeScript (``const f = () => ...`` is a definition of its own,
outlined as one). Python, JavaScript, TypeScript, Go and Rust.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from greploom.core.cpg import CpgData, NodeKind
from greploom.core.top_names import TOP_NAMES_ATTR, encode_top_names
from greploom.shell.outline import _LANGUAGE_OF, _parser, extension

MAX_NAMES = 500  # per module: a generated table of thousands of constants is cut here
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function", "function_expression", "class", "class_expression", "generator_function"}
)


def top_level_names(file: str, text: str) -> tuple[tuple[str, int], ...]:
    """(name, 1-based line) of each name the file's top level binds by assignment."""
    language = _LANGUAGE_OF.get(extension(file))
    parser = _parser(language) if language is not None else None
    if language is None or parser is None:
        return ()
    root = parser.parse(text.encode("utf-8", errors="surrogateescape")).root_node
    walk = _PYTHON if language == "python" else _BY_LANGUAGE.get(language)
    if walk is None:
        return ()
    found: dict[str, int] = {}
    for name, line in walk(root):
        found.setdefault(name, line)
        if len(found) >= MAX_NAMES:
            break
    return tuple(found.items())


def with_top_names(
    data: CpgData, texts: Mapping[str, str], known: Mapping[str, tuple[tuple[str, int], ...]] | None = None
) -> CpgData:
    """The CPG whose module nodes carry their file's top-level names (greploom.core.top_names).

    ``known``: the names of files unchanged since the last run, as it stored them
    (parsing every file again cost numpy's edit-one-file run 1.8 s).
    """
    known = known or {}
    nodes = []
    changed = False
    for node in data.nodes:
        text = texts.get(node.file)
        names: tuple[tuple[str, int], ...] = ()
        if node.kind is NodeKind.MODULE and text is not None and node.attr(TOP_NAMES_ATTR) is None:
            names = known[node.file] if node.file in known else top_level_names(node.file, text)
        if names:
            value = encode_top_names(names)
            nodes.append(attrs.evolve(node, attrs=tuple(sorted([*node.attrs, (TOP_NAMES_ATTR, value)]))))
            changed = True
        else:
            nodes.append(node)
    return attrs.evolve(data, nodes=tuple(nodes)) if changed else data


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", errors="replace")


def _line(node: Any) -> int:
    return int(node.start_point[0]) + 1


def _python(root: Any) -> Iterator[tuple[str, int]]:
    for statement in root.named_children:
        if statement.type != "expression_statement":
            continue
        for child in statement.named_children:
            assignment = child
            while assignment is not None and assignment.type == "assignment":  # a = b = value: both
                yield from _python_targets(assignment.child_by_field_name("left"))
                assignment = assignment.child_by_field_name("right")


def _python_targets(target: Any) -> Iterator[tuple[str, int]]:
    if target is None:
        return
    if target.type == "identifier":
        yield _text(target), _line(target)
    elif target.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        for part in target.named_children:
            yield from _python_targets(part)


def _script(root: Any) -> Iterator[tuple[str, int]]:
    for statement in root.named_children:
        declaration = statement
        if statement.type == "export_statement":
            declaration = statement.child_by_field_name("declaration")
        if declaration is None or declaration.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in declaration.named_children:
            if declarator.type != "variable_declarator":
                continue
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            plain = value is None or value.type not in _FUNCTION_VALUES
            if name is not None and name.type == "identifier" and plain:
                yield _text(name), _line(name)


def _go(root: Any) -> Iterator[tuple[str, int]]:
    for statement in root.named_children:
        if statement.type not in ("var_declaration", "const_declaration"):
            continue
        for spec in _descendants_of(statement, ("var_spec", "const_spec")):
            for name in spec.children_by_field_name("name"):
                yield _text(name), _line(name)


def _rust(root: Any) -> Iterator[tuple[str, int]]:
    for item in root.named_children:
        if item.type in ("const_item", "static_item"):
            name = item.child_by_field_name("name")
            if name is not None:
                yield _text(name), _line(name)


def _descendants_of(node: Any, types: tuple[str, ...]) -> Iterator[Any]:
    for child in node.named_children:
        if child.type in types:
            yield child
        elif child.type.endswith("_list"):  # var ( ... ) groups its specs
            yield from _descendants_of(child, types)


_PYTHON = _python
_BY_LANGUAGE = {"javascript": _script, "typescript": _script, "tsx": _script, "go": _go, "rust": _rust}
