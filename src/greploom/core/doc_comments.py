"""Doc comments of definitions in the languages whose comments treeloom does not read.

:func:`doc_comment`: the comment block directly above a definition (a
``/** ... */`` or ``/* ... */`` block, or a run of ``//`` / ``///`` lines),
past attribute and annotation lines (``#[derive(..)]``, ``@Override``) and
the other targets of a chained assignment (``req.get =`` above ``req.header =
function header(name) {``), with no blank line between; comment markers removed. Tool directives
(``//go:generate``, ``// eslint-disable``) and bundler annotations
(``/*#__PURE__*/``) are not documentation. In TypeScript the comment sits
above the definition's overload signatures when it has them (mobx's
``observe``, immer's ``each``): they are passed over (:func:`overloaded_name`
says for which names).

Laws (tests/properties/test_doc_comments.py): a doc comment is found only when
it touches the definition or the definition's own overload signatures that
touch it, or the other targets of a chained assignment that touch it; a
banner of slashes documents nothing; a call of the name, or another name's
signatures, never stand for overloads; a block's lines starting with ``*``
belong to it whatever they hold, and a block never reaches past an earlier
comment's end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from greploom.core.source_file import SourceFile

MAX_DOC_CHARS = 2000  # a doc comment longer than this is cut: it is a license or a manual
# A bundler's annotation on its own line (``/*#__PURE__*/``): for the minifier, not the reader.
_ANNOTATION = re.compile(r"^\s*/\*\s*[#@]__(?:PURE|NO_SIDE_EFFECTS|INLINE)__\s*\*/\s*$")
# Another target of a chained assignment, on its own line above the definition's
# (``req.get =`` above ``req.header = function header(name) {``): the comment above it
# documents both (express's req.header, res.type and res.header).
_CHAINED_TARGET = re.compile(r"^\s*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*=\s*$")
_DIRECTIVE = re.compile(r"^(//go:|//\s*(\+build|eslint|@ts-|prettier-ignore|nolint|istanbul|tslint|jshint))")


TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")  # where a function may have overload signatures


def overloaded_name(file: str, name: str) -> str | None:
    """The name whose overload signatures :func:`doc_comment` passes over: in TypeScript only."""
    return name if file.endswith(TYPESCRIPT) else None


def doc_comment(file: str | SourceFile, line: int, overloads_of: str | None = None) -> str | None:
    """The comment directly above a 1-based line (attribute and chained assignment target
    lines passed over), cleaned.

    ``overloads_of``: the definition's name, where TypeScript overload signatures of it may
    stand between its comment and its body (``export function observe(a: A): X`` lines
    above ``export function observe(...) {``): the comment above the first one documents it.
    """
    lines = SourceFile.of(file).lines
    row = _above_annotations(lines, min(line - 1, len(lines)) - 1)
    if overloads_of:
        row = _above_annotations(lines, _above_overloads(lines, row, overloads_of))
    if row < 0:
        return None
    jsdoc_only = False
    if not lines[row].strip() and row >= 1 and lines[row - 1].strip().endswith("*/"):
        row -= 1  # a JSDoc block one blank line above still documents (CommonJS style)
        jsdoc_only = True
    above = lines[row].strip()
    block: Sequence[str] = ()
    if above.endswith("*/"):
        first = _block_opening(lines, row)
        if first < 0 or lines[first].strip()[: 3 if jsdoc_only else 2] != ("/**" if jsdoc_only else "/*"):
            return None
        block = lines[first : row + 1]
        cleaned = [_strip_block_line(s) for s in block]
    elif above.startswith("//"):
        first = row
        while first >= 0 and lines[first].strip().startswith("//"):
            first -= 1
        block = [s.strip() for s in lines[first + 1 : row + 1]]
        if any(s.startswith("////") for s in block):
            return None  # a section banner, not a definition's documentation
        cleaned = [re.sub(r"^//[/!]?", "", s).strip() for s in block if not _DIRECTIVE.match(s)]
    else:
        return None
    doc = "\n".join(cleaned).strip()
    if len(doc) > MAX_DOC_CHARS:
        doc = doc[:MAX_DOC_CHARS].rsplit(" ", 1)[0] + " ..."
    return doc or None


def _block_opening(lines: Sequence[str], row: int) -> int:
    """The 0-based row that opens the block comment ending at ``row`` (-1: none).

    A line of the block that starts with ``*`` continues it whatever it holds: a
    JSDoc example saying ``text/*`` or ``req.is('text/*')`` does not open it
    (express's ``req.accepts`` and ``req.is`` lost their documentation so). The
    walk never passes the end of an earlier comment: a block opened mid-line
    after code (``* b; /* multiply``) is not documentation, and what lies above it
    is not its text.
    """
    first = row
    while first >= 0:
        text = lines[first].strip()
        if first < row and text.endswith("*/"):
            return -1  # an earlier comment closes here: this block opens after code, mid-line
        if text.startswith("*") and not text.startswith("*/"):
            first -= 1
            continue
        if "/*" in text:
            return first
        first -= 1
    return -1


def _above_annotations(lines: Sequence[str], row: int) -> int:
    """The 0-based row above the attribute, decorator, bundler annotation and chained
    assignment target lines ending at ``row``."""
    while row >= 0 and (
        lines[row].strip().startswith(("@", "#[", "#!["))
        or _ANNOTATION.match(lines[row])
        or _CHAINED_TARGET.match(lines[row])
    ):
        row -= 1
    return row


# ``): T`` after a parameter list: an overload declares its return type; a call has none.
_RETURN_TYPE = re.compile(r"\)\s*:\s*\S")
# How far up one overload signature may reach (its parameters one to a line).
MAX_SIGNATURE_LINES = 12
_MODIFIERS = (
    r"(?:(?:export|default|declare|public|private|protected|static|abstract|override|async|readonly)\s+)*"
)


def _above_overloads(lines: Sequence[str], row: int, name: str) -> int:
    """The 0-based row above the overload signatures of ``name`` that end at ``row`` (none:
    ``row``). A signature opens with the name, after modifiers and ``function``, followed by
    ``<`` or ``(``; it declares a return type (``): T``), and holds no line that opens, closes or
    holds a body (``{`` or ``}`` at its end, ``}`` first), no blank line and no comment, so a
    previous definition's body or a call of the name is not read as one.
    """
    head = re.compile(rf"^\s*{_MODIFIERS}(?:function\s*\*?\s*)?{re.escape(name)}\s*[<(]")
    while row >= 0:
        top = row
        while top >= 0 and row - top < MAX_SIGNATURE_LINES and not head.match(lines[top]):
            top -= 1
        if top < 0 or not head.match(lines[top]):
            return row
        run = [s.strip() for s in lines[top : row + 1]]
        if any(not s or s.endswith(("{", "}")) or s.startswith(("}", "//", "/*", "*")) for s in run):
            return row
        if not _RETURN_TYPE.search(" ".join(run)):  # an overload's return type: not a call ``name(x)``
            return row
        row = top - 1
    return row


def _strip_block_line(line: str) -> str:
    s = line.strip()
    s = re.sub(r"^/\*+!?", "", s)
    s = re.sub(r"\*+/$", "", s)
    s = re.sub(r"^\*+(?!/)", "", s)
    return s.strip()
