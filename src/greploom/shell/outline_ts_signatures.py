"""The generic call signatures tree-sitter-typescript cannot tell apart: separated for it.

TypeScript lets the members of an interface or a type literal end at a line
break. tree-sitter-typescript (0.23.2, its upstream issue #335) cannot read two
generic call signatures so separated::

    export interface IActionFactory {
        <T extends Function>(fn: T): T
        <T extends Function>(name: string, fn: T): T
    }

and its recovery folds the rest of the file into errors: in mobx 7.1.3,
``api/action.ts`` lost every definition after line 38 (``action``,
``runInAction``...) and ``api/observable.ts`` ``observable`` itself; hono's
``context.ts`` and ``types.ts`` are others.

Here, for a parse with errors, each indented line that opens a generic call
signature (``<T`` first) after a line a member may end with gets a ``;`` in
place of its first indentation character, the separator the grammar wants.
The text keeps its length and every line and column, so whatever is read of
the new tree (spans, names) holds for the file as it is. The repaired parse
is used only when it has fewer errors than the first.
"""

from __future__ import annotations

import re
from typing import Any

from greploom.shell.outline_common import parse_errors

# An indented line opening a generic call signature: `    <T extends X>(...)`.
_OPENS_SIGNATURE = re.compile(rb"^[ \t]+<[A-Za-z_$]")
# What a member's line may end with (an identifier, a closing bracket, a string): not an
# operator or an opening bracket, after which the `<` would continue an expression.
_ENDS_MEMBER = re.compile(rb"[\w$)\]}>\"'`]\s*$")
_COMMENT = re.compile(rb"^\s*(//|/\*|\*)")


def separated(text: bytes) -> bytes:
    """``text`` with a ``;`` before each generic call signature that follows a member's line."""
    lines = text.split(b"\n")
    previous = b""  # the last line holding code, not only a comment or blanks
    for i, line in enumerate(lines):
        if _OPENS_SIGNATURE.match(line) and _ENDS_MEMBER.search(previous):
            lines[i] = b";" + line[1:]
        if line.strip() and not _COMMENT.match(line):
            previous = line
    return b"\n".join(lines)


def parse_typescript(parser: Any, text: bytes) -> Any:
    """The tree of a TypeScript file: as parsed, or with its call signatures separated when
    that leaves fewer errors."""
    tree = parser.parse(text)
    if not tree.root_node.has_error:
        return tree
    repaired = separated(text)
    if repaired == text:
        return tree
    retry = parser.parse(repaired)
    return retry if parse_errors(retry.root_node) < parse_errors(tree.root_node) else tree
