"""Source spans and doc comments of definitions treeloom gives no source for.

treeloom records ``source_text`` and ``end_location`` only for Python (and
``source_text`` for Java); a JavaScript, TypeScript, Go, Rust, C or C++
function or class has a start position and nothing else
(``../shared/TREELOOM_CPG.md``). Without its body greploom could show no code
for those languages and had nothing but a signature to search. Given the
file's text (the shell reads it), these functions find where a definition
ends and what comment documents it:

- :func:`definition_end`: from the definition's start, skip strings,
  comments, template literals, regex literals, raw strings, char literals and
  lifetimes of the file's language family, and end at the ``}`` that closes
  the first ``{`` opened outside parentheses; a definition without a body
  (a prototype, an abstract method, ``type T int``, an arrow function
  returning an expression) ends at its ``;``, at the end of its line where the
  language ends statements there, or before a blank line. No end found (an
  unclosed body) gives None: nothing is invented.
- the comment that documents it: greploom.core.doc_comments.
- :func:`with_sources`: a copy of the CPG whose function and class nodes in
  those languages carry the recovered ``source_text``, ``end_location`` and
  ``doc_comment`` (greploom's own attribute; treeloom writes none), unless
  the file no longer holds the definition's name at its line (edited since
  the CPG was built: counted, left without source rather than shown wrong).

Laws (tests/properties/test_spans.py): a body's braces, strings and
comments holding any braces never move its end; the span never ends before
it starts nor past the text; the source of a definition starts at its line
and ends with its closing brace; Python nodes and nodes that have source are
left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

from greploom.core.cpg import AttrPairs, AttrValue, CpgData, CpgNode, NodeKind, SourceLocation
from greploom.core.doc_comments import doc_comment, overloaded_name
from greploom.core.source_file import SourceFile, line_offset

# Lexical family of each extension treeloom parses without recording source.
FAMILIES: dict[str, str] = {
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), "js"),
    ".go": "go",
    ".rs": "rust",
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".java"), "c"),
}
_REGEX_BEFORE = frozenset("(,=:[!&|?{};~+-*%<>^")
_REGEX_KEYWORDS = frozenset(("return", "typeof", "case", "in", "of", "void", "yield", "await", "delete"))
_RUST_CHAR = re.compile(r"'(?:[^\\'\n]|\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.))'")
_PLAIN_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_RUST_RAW = re.compile(r'b?r(#*)"')
_CPP_RAW = re.compile(r'(?:u8|[uUL])?R"([^()\\\s]{0,16})\(')



def family_of(file: str) -> str | None:
    """The lexical family of a file by its extension, or None for the languages with source."""
    dot = file.rfind(".")
    return FAMILIES.get(file[dot:].lower()) if dot >= 0 else None


def _skip_line_comment(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end  # the newline itself is still read


def _skip_block_comment(text: str, i: int, nested: bool) -> int:
    depth, j = 1, i + 2
    while j < len(text):
        if nested and text.startswith("/*", j):
            depth, j = depth + 1, j + 2
        elif text.startswith("*/", j):
            depth, j = depth - 1, j + 2
            if depth == 0:
                return j
        else:
            j += 1
    return len(text)


def _skip_quoted(text: str, i: int, quote: str, *, multiline: bool) -> int:
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n" and not multiline:
            return j  # an unterminated literal ends at its line
        j += 1
    return len(text)


def _skip_raw(text: str, i: int, closing: str) -> int:
    end = text.find(closing, i)
    return len(text) if end < 0 else end + len(closing)


def _skip_template(text: str, i: int) -> int:
    """A JS template literal from its opening backtick; ``${...}`` may nest code."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1
        elif text.startswith("${", j):
            j = _skip_code_until_close(text, j + 2)
        else:
            j += 1
    return len(text)


def _skip_code_until_close(text: str, i: int) -> int:
    """Past the ``}`` closing a ``${`` substitution (JS code inside a template)."""
    depth, j, last = 1, i, ""
    while j < len(text):
        skipped = _skip_literal(text, j, "js", last)
        if skipped is not None:
            j = skipped
            continue
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        if not c.isspace():
            last = c
        j += 1
    return len(text)


def _regex_may_start(last: str) -> bool:
    return last == "" or last in _REGEX_BEFORE or last in _REGEX_KEYWORDS


def _skip_regex(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return j
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return j + 1
        j += 1
    return len(text)


def _skip_literal(text: str, i: int, family: str, last: str) -> int | None:
    """Past a comment or literal starting at ``i``, or None when none starts there.

    ``last`` is the previous significant character or word (JS regex literals
    start only where an operand may).
    """
    c = text[i]
    if c == "/" and i + 1 < len(text):
        nxt = text[i + 1]
        if nxt == "/":
            return _skip_line_comment(text, i)
        if nxt == "*":
            return _skip_block_comment(text, i, nested=family == "rust")
        if family == "js" and _regex_may_start(last):
            return _skip_regex(text, i)
        return None
    if c == '"':
        return _skip_quoted(text, i, '"', multiline=family == "rust")
    if c == "'":
        if family == "rust":
            match = _RUST_CHAR.match(text, i)
            return match.end() if match else i + 1  # a lifetime: just the quote
        return _skip_quoted(text, i, "'", multiline=False)
    if c == "`":
        if family == "js":
            return _skip_template(text, i)
        if family == "go":
            return _skip_raw(text, i + 1, "`")
        return None
    word_start = i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
    if family == "rust" and c in "rb" and word_start:
        match = _RUST_RAW.match(text, i)
        if match:
            return _skip_raw(text, match.end(), '"' + match.group(1))
    if family == "c" and c in "uULR" and word_start:
        match = _CPP_RAW.match(text, i)
        if match:
            return _skip_raw(text, match.end(), ")" + match.group(1) + '"')
    return None


def definition_end(text: str, start: int, family: str) -> int | None:
    """The offset just past the definition starting at ``start``, or None when none is found."""
    parens = 0  # (), [] and any {} opened inside them
    braces = 0  # the body's {} nesting
    last = ""  # previous significant character, or the word just read
    arrow = False  # a JS `=>` read outside parentheses, before any body
    line_start = True  # only whitespace read since the last newline
    content_end = start  # end of the last non-space character read
    i, n = start, len(text)
    while i < n:
        skipped = _skip_literal(text, i, family, last)
        if skipped is not None:
            if not text.startswith(("//", "/*"), i):  # a literal is an operand; a comment is nothing
                last, content_end = '"', skipped
            i, line_start = skipped, False
            continue
        c = text[i]
        if c == "\n":
            if braces == 0 and parens == 0 and content_end > start:
                if line_start:  # a blank line before any body: a declaration
                    return content_end
                if family == "go" or (arrow and last not in "=>({[,"):
                    return content_end
            line_start = True
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        line_start = False
        if c.isalnum() or c in "_$":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            last, i, content_end = text[i:j], j, j
            continue
        content_end = i + 1
        if braces == 0 and parens == 0 and c == "{":
            braces = 1
        elif braces > 0 and parens == 0 and c in "{}":
            braces += 1 if c == "{" else -1
            if braces == 0:
                return i + 1
        elif c in "([{":
            parens += 1
        elif c in ")]}":
            parens = max(parens - 1, 0)
        elif braces == 0 and parens == 0:
            if c == ";":
                return i + 1
            if c == ">" and last == "=" and family == "js":
                arrow = True
        last = c
        i += 1
    return None


@attrs.frozen
class Recovered:
    """A definition's recovered source, last line and doc comment."""

    source: str
    end_line: int
    doc: str | None


def recover(
    file: str | SourceFile, line: int, column: int, family: str, overloads_of: str | None = None
) -> Recovered | None:
    """The source (whole lines, from the definition's line to its end), or None when no end is found.
    ``overloads_of``: as for :func:`doc_comment`."""
    src = SourceFile.of(file)
    start = line_offset(src, line, column)
    if start is None:
        return None
    end = definition_end(src.text, start, family)
    if end is None:
        return None
    first = src.starts[line - 1]
    last = src.text.find("\n", end)
    source = src.text[first : last if last >= 0 else len(src.text)]
    doc = doc_comment(src, line, overloads_of)
    return Recovered(source=source, end_line=line + source.count("\n"), doc=doc)


def _with_attrs(pairs: AttrPairs, extra: Mapping[str, AttrValue]) -> AttrPairs:
    kept = [(k, v) for k, v in pairs if k not in extra]
    return tuple(sorted([*kept, *((k, v) for k, v in extra.items() if v is not None)]))


def needs_source(node: CpgNode) -> bool:
    """A function or class in a language treeloom records no source for, still without it."""
    return (
        node.kind in (NodeKind.FUNCTION, NodeKind.CLASS)
        and node.location is not None
        and family_of(node.file) is not None
        and (not isinstance(node.attr("source_text"), str) or node.attr("doc_comment") is None)
    )


@attrs.frozen
class Recovery:
    """A CPG with recovered sources, and how it went."""

    data: CpgData
    recovered: int  # definitions that got their source
    stale: int  # definitions whose file does not hold their name at their line
    per_file: tuple[tuple[str, int, int], ...] = ()  # (file, recovered, stale) where either is not 0


def _in_file(src: SourceFile, node: CpgNode) -> bool:
    """Whether the file still holds the definition's name at its line (or the two after it).

    A file edited after the CPG was built would give another definition's
    code; a name that is not a plain identifier (``<anonymous>``) is not checked.
    """
    if not _PLAIN_NAME.fullmatch(node.name) or node.name.startswith("lambda$"):
        return True  # <anonymous>, Java's lambda$51$55: names the file does not hold
    rows = src.lines[max(node.line - 1, 0) : node.line + 2]
    return any(node.name in row for row in rows)


def with_sources(data: CpgData, files: Mapping[str, str]) -> Recovery:
    """The CPG with recovered source for the nodes that need it.

    ``files`` maps a node's ``file`` to that file's text; nodes of other files
    are left as they are, and so are nodes whose name is not where the CPG
    says (the file changed since: counted as stale). A node that already has
    ``source_text`` (Java) keeps it and its end, and gains only its doc comment.
    """
    nodes: list[CpgNode] = []
    recovered = stale = 0
    counts: dict[str, list[int]] = {}
    split: dict[str, SourceFile] = {}
    for node in data.nodes:
        family = family_of(node.file)
        raw = files.get(node.file)
        if raw is not None and node.file not in split:
            split[node.file] = SourceFile.of(raw)
        text = split.get(node.file)
        if family is None or text is None or node.location is None or not needs_source(node):
            nodes.append(node)
            continue
        if not _in_file(text, node):
            stale += 1
            counts.setdefault(node.file, [0, 0])[1] += 1
            nodes.append(node)
            continue
        if isinstance(node.attr("source_text"), str):
            doc = doc_comment(text, node.line, overloaded_name(node.file, node.name))
            nodes.append(attrs.evolve(node, attrs=_with_attrs(node.attrs, {"doc_comment": doc})))
            continue
        got = recover(text, node.line, node.location.column, family, overloaded_name(node.file, node.name))
        if got is None:
            nodes.append(node)
            continue
        recovered += 1
        counts.setdefault(node.file, [0, 0])[0] += 1
        end = SourceLocation(node.file, got.end_line, 0)
        # Whole lines, unlike treeloom's source_text, which starts at the definition's column.
        extra: dict[str, AttrValue] = {
            "source_text": got.source,
            "doc_comment": got.doc,
            "source_from_line_start": True,
        }
        nodes.append(
            attrs.evolve(node, end_location=node.end_location or end, attrs=_with_attrs(node.attrs, extra))
        )
    per_file = tuple((f, r, st) for f, (r, st) in sorted(counts.items()))
    return Recovery(attrs.evolve(data, nodes=tuple(nodes)), recovered, stale, per_file)
