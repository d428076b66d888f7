"""Recover a C or C++ parse that macros broke: blank them out and parse again.

tree-sitter does not expand macros, so an export or calling-convention macro
before a name (``RING_API ring_t *ring_new(...)``, ``JNIEXPORT void JNICALL
...``, ``static PyObject *FASTCALL_MSVC f(...)``, ``class CACHE_API
LruCache``) is a parse error, and treeloom drops the file for it. For a file
whose parse has errors, the ALL_CAPS macros the parser could not place are
blanked out, same length, so every position stays, and the file parsed again
while that lowers the error count. No regular expressions look at code
structure here: the macros are found in the parse tree.
"""

from __future__ import annotations

import bisect
from typing import Any

from greploom.shell.outline_common import Node, node_text, parse_errors

# struct, class and union specifiers: the types that can hold members
RECORD_SPECIFIERS = frozenset(("struct_specifier", "class_specifier", "union_specifier"))
_CONTAINERS = frozenset(
    (
        "translation_unit",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "linkage_specification",
        "namespace_definition",
        "declaration_list",
    )
)
_DIRECTIVES = frozenset(("preproc_def", "preproc_function_def", "preproc_call", "preproc_include"))


def parse_without_macros(parser: Any, text: bytes) -> tuple[Any, int]:
    """A C or C++ parse and its error count, with the macros that broke it blanked out
    while that lowers the count (tree-sitter does not expand macros)."""
    tree = parser.parse(text)
    errors = parse_errors(tree.root_node)
    for _round in range(3):
        if not errors:
            break
        names, directives = _stray_macros(tree.root_node)
        if not names:
            break
        text = _blank(text, names, directives)
        retry = parser.parse(text)
        retry_errors = parse_errors(retry.root_node)
        if retry_errors >= errors:
            break
        tree, errors = retry, retry_errors
    return tree, errors


def _macro_like(name: str) -> bool:
    """ALL_CAPS, as C and C++ code spells the macros it writes before a name."""
    return len(name) > 1 and name.isupper() and all(c.isalnum() or c == "_" for c in name)


def _stray_macros(root: Node) -> tuple[set[str], list[tuple[int, int]]]:
    """The macros that broke a C/C++ parse, and the byte spans of the preprocessor lines.

    A macro is stray where the parser could not place it: an ALL_CAPS name in an
    error or right before one (``RING_API ring_t *ring_new(...)``,
    ``PyObject *FASTCALL_MSVC decode(...)``), or read as the class a "function"
    returns (``class CACHE_API LruCache {...}``); and so is every macro this file
    defines as nothing or as an ``__attribute__``/``__declspec``.
    """
    names: set[str] = set()
    directives: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in _DIRECTIVES:
            directives.append((node.start_byte, node.end_byte))
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if (
                kind == "preproc_def"
                and name is not None
                and (value is None or node_text(value).startswith("__"))
            ):
                names.add(node_text(name))
            continue
        if kind in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            guard = node.child_by_field_name("condition") or node.child_by_field_name("name")
            if guard is not None:
                directives.append((guard.start_byte, guard.end_byte))
        if node.is_error:
            names.update(
                node_text(c) for c in node.named_children if c.type in ("identifier", "type_identifier")
            )
            before = node.prev_named_sibling
            if before is not None and before.type in ("identifier", "type_identifier"):
                names.add(node_text(before))
        elif kind == "declaration" and node.child_count and node.children[-1].is_missing:
            # static FASTCALL_ATTR INLINE_PREFIX void f(...): read as a declaration
            # of INLINE_PREFIX, its ";" missing
            for part in (node.child_by_field_name("type"), node.child_by_field_name("declarator")):
                if part is not None and part.type in ("identifier", "type_identifier"):
                    names.add(node_text(part))
        elif kind == "function_definition":
            written = node.child_by_field_name("type")
            declarator = node.child_by_field_name("declarator")
            if (
                written is not None
                and written.type in RECORD_SPECIFIERS
                and written.child_by_field_name("body") is None
                and declarator is not None
                and declarator.type == "identifier"
            ):
                name = written.child_by_field_name("name")
                if name is not None:
                    names.add(node_text(name))
        if kind in _CONTAINERS or node.has_error:
            stack.extend(node.children)
    return {n for n in names if _macro_like(n)}, sorted(directives)


def _blank(text: bytes, names: set[str], directives: list[tuple[int, int]]) -> bytes:
    """The text with each use of ``names`` outside preprocessor lines turned to spaces
    (same length, so every position stays where it was)."""
    out = bytearray(text)
    starts = [s for s, _e in directives]
    for name in sorted(names):
        word = name.encode()
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            inside = bisect.bisect_right(starts, at) - 1
            in_directive = inside >= 0 and at < directives[inside][1]
            bounded = not _identifier_byte(text[at - 1 : at]) and not _identifier_byte(text[end : end + 1])
            if bounded and not in_directive:
                out[at:end] = b" " * len(word)
            at = text.find(word, end)
    return bytes(out)


def _identifier_byte(byte: bytes) -> bool:
    return bool(byte) and (byte.isalnum() or byte == b"_" or byte[0] >= 0x80)
