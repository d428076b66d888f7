"""The names a module binds at its top level, as its CPG node carries them.

The shell reads them with tree-sitter (greploom.shell.module_names) and sets
them on each module node as the attribute :data:`TOP_NAMES_ATTR`, one
``"name:line"`` item per name in file order; the index stores them
(``module_names``) and the summary embeds their words (greploom.core.summary).
This module is that format's one home.
"""

from __future__ import annotations

from collections.abc import Iterable

TOP_NAMES_ATTR = "top_names"  # on a module node: ("name:line", ...), in file order


def encode_top_names(names: Iterable[tuple[str, int]]) -> tuple[str, ...]:
    """The attribute value of ``(name, 1-based line)`` pairs."""
    return tuple(f"{name}:{line}" for name, line in names)


def parse_top_names(value: object) -> tuple[tuple[str, int], ...]:
    """The ``(name, line)`` pairs of a module node's :data:`TOP_NAMES_ATTR` value (none for any
    other value, and no malformed item)."""
    if not isinstance(value, tuple):
        return ()
    out = []
    for item in value:
        name, _, line = str(item).rpartition(":")
        if name and line.isdigit():
            out.append((name, int(line)))
    return tuple(out)
