"""Reading docs and config with their own parsers: where the headings are, what is marked as code.

Each format is read by a maintained parser, never by patterns over its
structure (a ``#`` in a fenced block is not a heading, a ``[x]`` in a TOML
string is not a table):

- Markdown: markdown-it-py (CommonMark, with tables): ``heading_open``
  tokens give level and lines, ``code_inline`` tokens the code spans.
- reStructuredText: docutils, quiet (Sphinx's roles and directives are
  unknown to plain docutils; they are reported at a level nothing prints,
  and their text stays in the section): a section's title node gives its
  line; ``literal``, ``title_reference`` and the unknown roles' text
  (``:func:`x```) are the code spans.
- YAML: PyYAML's composer (no object is constructed, so tags such as
  Ansible's ``!vault`` need no constructor): top-level keys whose value is
  a mapping or a list are headings, their own such keys one level down; a
  file of several documents has one heading per document.
- TOML: ``tomllib`` (``tomli`` before Python 3.11) checks the file; it keeps
  no positions, so the table header lines are found by the header syntax
  and kept only when the parsed file holds that table.
- JSON: the standard decoder reads each top-level value and says where it
  ends: keys whose value is an object or a list are headings.
- INI (``.ini``, ``.cfg``, ``.conf``, Ansible inventories): configparser,
  leniently (no interpolation, keys without values); its own section
  pattern (``ConfigParser.SECTCRE``) gives the header lines.
- Dockerfile: each ``FROM`` instruction starts a build stage.
- shell scripts and ``.env.example``: no headings (whole, or cut at blank lines).

A file its parser refuses is read as one document without headings (a Helm
template is YAML only after rendering), and the run counts it.
"""

from __future__ import annotations

import configparser
import json
import re
import sys
from collections.abc import Callable
from typing import Any

import attrs

from greploom.core.doc_files import DocFormat
from greploom.core.doc_sections import Heading

# What a parse holds and how: a change of any reader below raises it, and the parses kept
# beside the index (greploom.shell.doc_cache) are made again.
PARSE_VERSION = "1"


@attrs.frozen
class ParsedDoc:
    """What a parser found in a file: its headings and the code spans by line (1-based)."""

    headings: tuple[Heading, ...] = ()
    code_spans: tuple[tuple[int, str], ...] = ()
    refused: bool = False  # the parser refused the file: no headings, read whole


def parse_doc(fmt: DocFormat, text: str) -> ParsedDoc:
    """The headings and code spans of a file of format ``fmt``."""
    reader = _READERS.get(fmt)
    if reader is None:
        return ParsedDoc()
    try:
        return reader(text)
    except Exception:  # any parser failure means the same: read the file whole
        return ParsedDoc(refused=True)


def _markdown(text: str) -> ParsedDoc:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    matter = _front_matter(text)
    headings: list[Heading] = []
    spans: list[tuple[int, str]] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None and i + 1 < len(tokens):
            start, end = token.map
            if start < matter:
                continue  # `title: Foo` over the front matter's closing `---` is no setext heading
            title = _plain(tokens[i + 1])
            headings.append(Heading(start + 1, title, int(token.tag[1:]), max(1, end - start)))
        elif token.type == "inline" and token.map is not None:
            line = token.map[0] + 1
            children = token.children or ()
            spans.extend((line, c.content) for c in children if c.type == "code_inline")
    return ParsedDoc(tuple(headings), tuple(spans))


def _front_matter(text: str) -> int:
    """How many lines a Jekyll/Hugo front matter block (``---`` lines around YAML) takes at the
    top of a Markdown file (0: none)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return 0
    return next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)


def _plain(inline: Any) -> str:
    """A heading's words without its markup: ``Install [it](url) `pip` `` -> ``Install it pip``."""
    children = inline.children or ()
    words = [c.content for c in children if c.type in ("text", "code_inline") and c.content]
    return " ".join(words) if words else str(inline.content)


def _rst(text: str) -> ParsedDoc:
    import docutils.frontend
    import docutils.nodes
    import docutils.parsers.rst
    import docutils.utils

    parser = docutils.parsers.rst.Parser()
    settings = docutils.frontend.get_default_settings(docutils.parsers.rst.Parser)
    settings.report_level = 5  # nothing is reported: Sphinx's roles are unknown here, by design
    settings.halt_level = 5
    settings.warning_stream = False
    settings.file_insertion_enabled = False  # `.. include::` would read other files
    settings.raw_enabled = False
    document = docutils.utils.new_document("<doc>", settings)
    parser.parse(text, document)
    lines = text.splitlines()
    headings: list[Heading] = []
    for section in document.findall(docutils.nodes.section):
        title = section.next_node(docutils.nodes.title)
        if title is None or title.line is None:
            continue
        level = 1
        parent = section.parent
        while parent is not None:
            level += isinstance(parent, docutils.nodes.section)
            parent = parent.parent
        under = title.line  # docutils gives the underline's line
        first = under - 1
        overline = (
            first >= 2
            and _is_rule(lines[first - 2])
            and lines[first - 2].strip()[:1]
            == (lines[under - 1].strip()[:1] if under - 1 < len(lines) else "")
        )
        if overline:
            first -= 1
        headings.append(Heading(first, title.astext(), level, under - first + 1))
    spans: list[tuple[int, str]] = []
    kinds = (docutils.nodes.literal, docutils.nodes.title_reference, docutils.nodes.problematic)
    for node in document.findall(lambda n: isinstance(n, kinds)):
        holder = node
        while holder is not None and holder.line is None:
            holder = holder.parent
        if holder is not None and holder.line is not None:
            spans.append((int(holder.line), node.astext()))
    return ParsedDoc(tuple(headings), tuple(spans))


def _is_rule(line: str) -> bool:
    flat = line.strip()
    return len(flat) >= 2 and not flat[0].isalnum() and flat == flat[0] * len(flat)


def _yaml(text: str) -> ParsedDoc:
    import yaml

    documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    headings: list[Heading] = []
    several = len([d for d in documents if d is not None]) > 1
    for number, doc in enumerate(documents, 1):
        if doc is None:
            continue
        base = 1
        if several:
            headings.append(Heading(doc.start_mark.line + 1, _yaml_document_title(doc, number), 1))
            base = 2
        headings.extend(_yaml_entries(doc, base, depth=2))
    return ParsedDoc(tuple(headings))


def _yaml_entries(node: object, level: int, *, depth: int) -> list[Heading]:
    import yaml

    out: list[Heading] = []
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            # A key whose collection starts on its own line (`on: [push]` is a line of data).
            below = value.start_mark.line > key.start_mark.line
            if isinstance(value, (yaml.MappingNode, yaml.SequenceNode)) and value.value and below:
                title = key.value if isinstance(key, yaml.ScalarNode) else "(key)"
                out.append(Heading(key.start_mark.line + 1, str(title), level))
                if depth > 1 and isinstance(value, yaml.MappingNode):
                    out.extend(_yaml_entries(value, level + 1, depth=depth - 1))
    elif isinstance(node, yaml.SequenceNode) and level == 1:  # an Ansible playbook: a list of plays
        for i, item in enumerate(node.value, 1):
            out.append(Heading(item.start_mark.line + 1, _yaml_item_title(item, i), level))
    return out


def _yaml_scalar(node: object, name: str) -> str | None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == name and isinstance(value, yaml.ScalarNode):
                return str(value.value)
    return None


def _yaml_item_title(item: object, index: int) -> str:
    for name in ("name", "hosts", "id", "key"):
        if (value := _yaml_scalar(item, name)) is not None:
            return value
    return f"item {index}"


def _yaml_document_title(doc: object, number: int) -> str:
    import yaml

    kind = _yaml_scalar(doc, "kind")  # a Kubernetes manifest: "Deployment worker"
    name = None
    if isinstance(doc, yaml.MappingNode):
        for key, value in doc.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "metadata":
                name = _yaml_scalar(value, "name")
    if kind:
        return f"{kind} {name}" if name else kind
    return _yaml_scalar(doc, "name") or f"document {number}"


_TOML_HEADER = re.compile(r"^\s*\[\[?[^\[\]]+\]\]?\s*(#.*)?$")


def _toml(text: str) -> ParsedDoc:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    data = tomllib.loads(text)
    headings: list[Heading] = []
    for number, line in enumerate(text.split("\n"), 1):
        if _TOML_HEADER.match(line) is None:
            continue
        try:  # the header alone, read by the parser: quoted keys keep their dots (`[tool."a.b"]`)
            parts = _key_path(tomllib.loads(line.strip().replace("[[", "[", 1).replace("]]", "]", 1)))
        except tomllib.TOMLDecodeError:
            continue
        if parts and _holds(data, parts):
            headings.append(Heading(number, ".".join(parts), 1))
    return ParsedDoc(tuple(headings))


def _key_path(table: object) -> list[str]:
    """The one path of keys down an empty table: ``{"tool": {"a.b": {}}}`` -> ``["tool", "a.b"]``."""
    path: list[str] = []
    while isinstance(table, dict) and len(table) == 1:
        key, table = next(iter(table.items()))
        path.append(str(key))
    return path


def _holds(data: object, parts: list[str]) -> bool:
    """Whether the parsed TOML holds the table ``parts`` names (a header, not a string's text)."""
    here = data
    for part in parts:
        if isinstance(here, list):
            here = here[-1] if here else None
        if not isinstance(here, dict) or part not in here:
            return False
        here = here[part]
    return isinstance(here, (dict, list))


def _json(text: str) -> ParsedDoc:
    text = text.removeprefix("\ufeff")
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    if at >= len(text) or text[at] != "{":
        json.loads(text)  # a list or a scalar: valid or refused, no headings either way
        return ParsedDoc()
    headings: list[Heading] = []
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "}":
        key, at = decoder.raw_decode(text, at)
        key_at = at
        at = _skip(text, at)
        if text[at] != ":":
            raise ValueError("expected ':'")
        start = _skip(text, at + 1)
        value, at = decoder.raw_decode(text, start)
        if isinstance(value, (dict, list)) and value and "\n" in text[start:at]:
            headings.append(Heading(text.count("\n", 0, key_at) + 1, str(key), 1))
        at = _skip(text, at)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
    if at >= len(text) or _skip(text, at + 1) != len(text):
        raise ValueError("not one JSON object")
    return ParsedDoc(tuple(headings))


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


_TOP = "\x00top"  # the section configparser is given for keys before the first header


def _ini(text: str) -> ParsedDoc:
    parser = configparser.ConfigParser(interpolation=None, allow_no_value=True, strict=False)
    try:
        parser.read_string(text)
    except configparser.MissingSectionHeaderError:  # keys before the first section: most .conf files
        parser.read_string("[" + _TOP + "]\n" + text)
    known = set(parser.sections())
    headings: list[Heading] = []
    for number, line in enumerate(text.split("\n"), 1):
        m = configparser.ConfigParser.SECTCRE.match(line)
        if m is not None and m.group("header") in known:
            headings.append(Heading(number, m.group("header"), 1))
    return ParsedDoc(tuple(headings))


_FROM = re.compile(r"^\s*FROM\s+(?P<rest>\S.*?)\s*$", re.IGNORECASE)
_HEREDOC = re.compile(r"<<-?[\"']?(?P<word>[A-Za-z_]\w*)[\"']?")


def _dockerfile(text: str) -> ParsedDoc:
    headings: list[Heading] = []
    continued = False
    heredoc: str | None = None  # the word ending a `<<EOF` body, whose lines are not instructions
    for number, line in enumerate(text.split("\n"), 1):
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            continue
        if not continued and (m := _FROM.match(line)):  # an instruction starts a line, unless continued
            headings.append(Heading(number, "FROM " + " ".join(m.group("rest").split()), 1))
        if (h := _HEREDOC.search(line)) is not None:
            heredoc = h.group("word")
        stripped = line.rstrip()
        continued = stripped.endswith("\\") and not stripped.lstrip().startswith("#")
    return ParsedDoc(tuple(headings) if len(headings) > 1 else ())


_READERS: dict[DocFormat, Callable[[str], ParsedDoc]] = {
    DocFormat.MARKDOWN: _markdown,
    DocFormat.RST: _rst,
    DocFormat.YAML: _yaml,
    DocFormat.TOML: _toml,
    DocFormat.JSON: _json,
    DocFormat.INI: _ini,
    DocFormat.DOCKERFILE: _dockerfile,
}
