"""A module's own text: its top-level statements, its definitions elided.

treeloom gives a module node no source, so a module was searchable only by
the names it defines, and what lives at its top level (constants, route
tables, registrations, ``__all__``, ``module.exports = {...}``) was found
nowhere. The module's text is its file with every definition the index
holds on its own replaced by one ``...`` line: what is left is what only the
module holds (the names it defines are in its summary already: keeping each
definition's first line made a module match every question about any of
its definitions).

Laws (tests/properties/test_module_text.py): the text is an in-order
subsequence of the file's lines plus ``...`` markers; every line outside all
definition spans is kept (up to the size bound); no line inside a
definition is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from greploom.core.cpg import AttrValue, CpgData, CpgNode, NodeKind

MAX_MODULE_TEXT_CHARS = 64_000  # a generated data table is cut here
_BODY_KINDS = (NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.VARIABLE, NodeKind.BLOCK)


def module_outline(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The lines of ``text`` outside ``spans`` (1-based, inclusive first and last lines),
    each run of elided definitions standing as one ``...`` line."""
    lines = text.splitlines()
    elided = [False] * (len(lines) + 2)
    heads: set[int] = set()
    for first, last in spans:
        if first < 1 or last <= first:
            continue
        heads.add(first)
        for row in range(first, min(last, len(lines)) + 1):
            elided[row] = True
    out: list[str] = []
    size = 0
    row = 1
    while row <= len(lines):
        line = lines[row - 1]
        if elided[row]:
            if row in heads and not (out and out[-1].strip() == "..."):
                indent = len(line) - len(line.lstrip())
                out.append(" " * indent + "...")  # a definition, searched and shown on its own
            row += 1
            continue
        if not line.strip() and out and not out[-1].strip():
            row += 1
            continue  # one blank line is enough between kept parts
        out.append(line)
        size += len(line) + 1
        if size > MAX_MODULE_TEXT_CHARS:
            out.append(f"... (cut at {MAX_MODULE_TEXT_CHARS} characters)")
            break
        row += 1
    while out and not out[-1].strip():
        out.pop()
    # Definitions one after another, blank lines between: one marker for them all.
    merged: list[str] = []
    for line in out:
        repeats = len(merged) >= 2 and not merged[-1].strip() and merged[-2] == line
        if line.strip() == "..." and repeats:
            merged.pop()
            continue
        merged.append(line)
    return "\n".join(merged)


def _span(node: CpgNode) -> tuple[int, int] | None:
    end = node.end_line
    return (node.line, end) if end is not None and end > node.line else None


def with_module_text(data: CpgData, texts: Mapping[str, str]) -> CpgData:
    """The CPG whose module nodes carry their module text as ``source_text``.

    ``texts`` maps a file to its text; modules of other files, and modules that
    already have source, are left as they are.
    """
    spans: dict[str, list[tuple[int, int]]] = {}
    for node in data.nodes:
        if node.kind in _BODY_KINDS and node.file in texts and (span := _span(node)) is not None:
            spans.setdefault(node.file, []).append(span)
    nodes: list[CpgNode] = []
    changed = False
    for node in data.nodes:
        text = texts.get(node.file)
        if node.kind is not NodeKind.MODULE or text is None or isinstance(node.attr("source_text"), str):
            nodes.append(node)
            continue
        outline = module_outline(text, spans.get(node.file, ()))
        extra: dict[str, AttrValue] = {"source_text": outline, "source_from_line_start": True}
        kept = [(k, v) for k, v in node.attrs if k not in extra]
        nodes.append(attrs.evolve(node, attrs=tuple(sorted([*kept, *extra.items()]))))
        changed = True
    return attrs.evolve(data, nodes=tuple(nodes)) if changed else data
