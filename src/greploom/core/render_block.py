"""One node as a markdown block: its header, summary, place and code.

A block reads::

    ## {relationship}: {kind} {qualname} ({file}:{line}[, stale])[ collection: {name}] key: {key}
    {summary}                                             (not in a brief block)
    Defined at {file}:{line}[-{end_line}]                  (not in a brief block)
    {relationship} of {qualname it was reached from}      (expanded nodes only)
    ```{language}
    {source}                                              (with include_source)
    ```

The fence is one backtick longer than the longest backtick run in the
source (at least three), so source containing fences cannot break out.
Above a definition's whole code only the summary's lines the code does not
say are shown (:func:`unsaid`); a brief block (a later hit's code) shows
neither its summary nor its place: its header says where, its code how far.
The stable key ends the header line
(greploom.core.render says why). Which blocks an answer holds, and what
each falls back to, is greploom.core.render's.
"""

from __future__ import annotations

import enum
import re

from greploom.core.deprecation import PREFIX as DEPRECATED
from greploom.core.doc_files import PROSE_KINDS
from greploom.core.expand import ExpandedNode, Relationship

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rb": "ruby",
    ".kt": "kotlin",
    ".cs": "csharp",
    ".php": "php",
    ".swift": "swift",
    # Docs and config (greploom.core.doc_files).
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".ini": "ini",
    ".cfg": "ini",
    ".sh": "bash",
    ".bash": "bash",
}
_TICKS = re.compile(r"`+")


class Detail(str, enum.Enum):
    """How much of a node a context shows (the ``detail`` of a JSON result)."""

    FULL = "full"  # header, summary, location, source
    # header, summary, location, the lines of the source that answer the query
    # (greploom.core.focus), elided runs named: a big hit's code within its share
    FOCUSED = "focused"
    SUMMARY = "summary"  # header, summary, location
    REFERENCE = "reference"  # one line: path:line qualname


LEAF_KINDS = frozenset({"parameter", "import"})  # shown as header plus one line
NOT_VERBATIM = frozenset({"module", *PROSE_KINDS})  # a source that is not the file's lines
# How a neighbour relates to the node it was reached from, where "{relationship} of" misreads:
# code a doc section names is "named in" it; the section is the code's documentation.
_RELATION_PHRASE = {Relationship.MENTIONS: "named in", Relationship.DOCUMENTED_BY: "documents"}


def language_of(file: str) -> str:
    """The fence language hint for a file, from its extension ('' when unknown)."""
    name = file.rsplit("/", 1)[-1]
    if "." not in name:
        return ""
    return LANGUAGES.get("." + name.rsplit(".", 1)[1].lower(), "")


def fence_for(source: str) -> str:
    """A backtick fence longer than any backtick run inside ``source``."""
    longest = max((len(m.group(0)) for m in _TICKS.finditer(source)), default=0)
    return "`" * max(3, longest + 1)


def location_text(file: str, line: int, end_line: int | None = None) -> str:
    """``file:line`` or ``file:line-end``."""
    if end_line is not None and end_line > line:
        return f"{file}:{line}-{end_line}"
    return f"{file}:{line}"


def block_key(node: ExpandedNode, key: str | None = None) -> str:
    """A node's identity in a packing: its stable key, prefixed with its collection's name in an
    answer over several (keys are only unique within one). ``key``: another node of the same
    collection's (a ``via``)."""
    key = node.ref.key if key is None else key
    return f"{node.collection}\x1f{key}" if node.collection else key


def render_block(
    node: ExpandedNode,
    include_source: bool = False,
    via_name: str | None = None,
    detail: Detail | None = None,
    *,
    partial: bool = False,
    brief: bool = False,
) -> str:
    """The markdown block for one expanded node.

    ``detail`` (adaptive context) overrides ``include_source``: FULL shows the
    source, SUMMARY does not, REFERENCE is the header line alone. Above a
    definition's whole code, as its file has it, the summary is not repeated
    (its signature, docstring and calls are the code's first lines: 1,445 ->
    1,354 tokens an answer on the quality harness, hit@1k 0.899 -> 0.901);
    above ``partial`` code (focused, or members left out) it says what the rest does.
    """
    ref = node.ref
    place = f"{ref.file}:{ref.line}, stale" if node.stale else f"{ref.file}:{ref.line}"
    where = f" collection: {node.collection}" if node.collection else ""
    lines = [f"## {node.relationship.value}: {ref.kind} {node.qualname} ({place}){where} key: {ref.key}"]
    if detail is Detail.REFERENCE:
        return lines[0]
    if detail is not None:
        include_source = detail is Detail.FULL
    relation = relation_of(node)
    if ref.kind in LEAF_KINDS:  # a parameter or import: one line says it all
        tail = f" ({relation} {via_name})" if via_name else ""
        lines.append(f"{node.summary}{tail}")
        return "\n".join(lines)
    code = include_source and bool(node.source)
    if brief and code:
        pass  # the code's own lines say it: a far hit's lines that answer the query
    elif node.summary and code and ref.kind not in NOT_VERBATIM:
        lines.extend(unsaid(node.summary, node.source or "", structure=partial))
    elif node.summary:
        lines.append(node.summary)
    if not (brief and code):  # a brief block's header says where; its code, how far
        lines.append(f"Defined at {location_text(ref.file, ref.line, node.end_line)}")
    if node.relationship is not Relationship.HIT and via_name:
        lines.append(f"{relation} {via_name}")
    if code and node.source:
        fence = fence_for(node.source)
        lines.append(f"{fence}{language_of(ref.file)}")
        lines.append(node.source.rstrip("\n"))
        lines.append(fence)
    return "\n".join(lines)


# Summary lines that list what the code itself shows: its calls, members. (Decorators sit
# above a Python definition's source, outside it: their line is kept.)
_STRUCTURE_LINES = ("calls: ", "methods: ", "classes: ", "defines: ", "imports: ")


def unsaid(summary: str, source: str, *, structure: bool = False) -> tuple[str, ...]:
    """The summary's lines its code does not say: not its signature (the first line) nor its
    structure, nor a line the code holds, whitespace aside (a Python docstring's excerpt, cut
    at a word with `` ...``); a JSDoc above the definition, or its decorators, it does not."""
    flat = " ".join(source.split())
    out = []
    for line in summary.split("\n")[1:]:
        if not line or (line.startswith(_STRUCTURE_LINES) and not structure):
            continue
        if line.startswith(_STRUCTURE_LINES):
            out.append(line)
            continue
        said = " ".join(line.removesuffix(" ...").split())
        said = said.removeprefix(DEPRECATED + ": ") if said != DEPRECATED else said
        if said not in flat:
            out.append(line)
    return tuple(out)


def relation_of(node: ExpandedNode) -> str:
    """How a neighbour relates to the node it was reached from: ``callee of``, ``named in``."""
    return _RELATION_PHRASE.get(node.relationship, node.relationship.value.replace("_", " ") + " of")
