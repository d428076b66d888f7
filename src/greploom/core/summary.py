"""Summaries of function, class and module nodes: what is shown and what is embedded.

Two tiers:

- ``fast``: one signature line (``def name(a: int, b)``, ``class C(Base)``,
  ``module pkg.mod``);
- ``enhanced``: the signature, decorators, a bounded docstring excerpt,
  callees (qualified names of the definitions the calls are linked to by
  :func:`greploom.core.calls.resolve_calls`, the others as written), bases and
  methods of a class, and for a module its
  docstring, top-level definitions and imports.

The text to embed is ``{qualname} ({file})`` followed by the summary and, at
the enhanced tier, a ``words:`` line (the name split into words) and for a
definition without a docstring a ``notes:`` line (its comments and prose
strings, :mod:`greploom.core.notes`). It names the file but holds no line
number, so moving code does not change it.

Laws (tests/properties/test_summary.py): a function with parameters never
prints as ``name()``; parameters appear in positional order; no line number
appears in the embedded text; the fast summary is one line and is the first
line of the enhanced one.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

from greploom.core.cpg import CpgGraph, CpgNode, EdgeKind, NodeKind
from greploom.core.deprecation import deprecation
from greploom.core.keys import is_indexable, module_path, written_name
from greploom.core.notes import body_notes, body_words, identifier_words
from greploom.core.top_names import TOP_NAMES_ATTR, parse_top_names

MODULE_NAME_WORDS = 24  # a module's top-level names whose words are embedded with it

if TYPE_CHECKING:  # greploom.core.calls imports this module
    from greploom.core.calls import CallLinks

DOC_EXCERPT_CHARS = 400  # enough for a docstring's summary paragraph, bounded for huge ones
# The summary rules: a change of what summaries say raises this, and the next index run
# reads the CPG again instead of finding nothing to do (only rows whose text changed are
# embedded again; HASH_VERSION, which re-embeds everything, is for the hash itself).
# Measured and not kept: a module's summary naming what it binds at its top level
# (module-name cases 0.585 -> 0.610, but legacy 0.685 -> 0.669 and the base corpora
# 0.797 -> 0.795 NDCG@10): the names are found by name (greploom.shell.module_names).
# 2: docs and config sections (greploom.core.doc_sections): their cutting, masking
# (greploom.core.secrets) and links (greploom.core.mentions) are rules of the same kind.
# 3: a line saying a definition is deprecated, as its code marks it (greploom.core.deprecation).
# 4: what the outlines find (greploom.shell.outline_js: exported let and var bindings, a
# constant with a comment on its line): rows an index made before does not have.
# 5: TypeScript's generic call signatures the grammar cannot separate, separated for it
# (greploom.shell.outline_ts_signatures): the definitions after them.
# 6: an object literal's methods under a type assertion (`{...} as any`: greploom.shell.outline_js).
# 7: a TypeScript function's doc comment above its overload signatures (greploom.core.spans).
# 8: a JSDoc block whose example lines hold ``/*`` (``text/*``) still documents
#    (greploom.core.doc_comments): express's req.accepts and req.is had no doc.
# 9: the comment above a chained assignment's other target (``req.get =`` over
#    ``req.header = function header(name)``) documents the definition.
# 10: a module's embedded text says the words of its top-level names (``names:``).
SUMMARY_VERSION = "10"
MAX_LISTED = 24  # callees, methods, definitions or imports listed per summary line
_PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
_STRING_PREFIX = re.compile(r"^[rRuUbBfF]{0,2}(\"\"\"|'''|\"|')")
_CALL_NAME = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


class Tier(str, enum.Enum):
    """How much a summary says; part of the content hash."""

    FAST = "fast"
    ENHANCED = "enhanced"


@attrs.frozen
class Summary:
    """A node's summary: ``text`` is shown to readers, ``embed_text`` is embedded."""

    text: str
    embed_text: str
    tier: Tier


def is_python(file: str) -> bool:
    """Whether a file is Python source, where docstrings and decorators exist."""
    return file.endswith(_PYTHON_SUFFIXES)


def parameters(graph: CpgGraph, node: CpgNode) -> tuple[CpgNode, ...]:
    """The parameter nodes of a function in positional order."""
    params = [
        p
        for e in graph.out_edges(node.id, EdgeKind.HAS_PARAMETER)
        if (p := graph.node(e.target)) is not None and p.kind is NodeKind.PARAMETER
    ]
    if not params:
        params = [c for c in graph.children(node.id) if c.kind is NodeKind.PARAMETER]
    unique = {p.id: p for p in params}.values()

    def position(p: CpgNode) -> tuple[int, int, int]:
        pos = p.attr("position")
        column = p.location.column if p.location else 0
        return (pos if isinstance(pos, int) else 1 << 30, p.line, column)

    return tuple(sorted(unique, key=position))


def parameter_text(param: CpgNode) -> str:
    """``name: annotation`` or ``name``."""
    annotation = param.attr("type_annotation")
    return f"{param.name}: {annotation}" if isinstance(annotation, str) and annotation else param.name


def signature(graph: CpgGraph, node: CpgNode, qualname: str) -> str:
    """The one-line signature of a function, class or module node."""
    if node.kind is NodeKind.MODULE:
        return f"module {qualname}"
    name = written_name(node)
    keyword = node.attr("keyword")
    if node.kind is NodeKind.CLASS and isinstance(keyword, str) and keyword != "abstract class":
        bases = _strings(node.attr("bases"))  # interface I extends A, B; type T; enum E
        return f"{keyword} {name} extends {', '.join(bases)}" if bases else f"{keyword} {name}"
    if node.kind is NodeKind.CLASS:
        bases = _strings(node.attr("bases"))
        word = keyword if isinstance(keyword, str) else "class"
        return f"{word} {name}({', '.join(bases)})" if bases else f"{word} {name}"
    if node.kind is NodeKind.BLOCK:  # a section of a file no parser reads
        return f"section of {node.file}: {node.name}"
    if node.kind is NodeKind.VARIABLE:  # an exported constant: its first line says what it is
        source = node.attr("source_text")
        first = source.strip().split("\n", 1)[0] if isinstance(source, str) and source.strip() else ""
        return excerpt(first, 160) if first else f"const {name}"
    params = ", ".join(parameter_text(p) for p in parameters(graph, node))
    if is_python(node.file):
        keyword = "async def" if node.attr("is_async") is True else "def"
    else:
        keyword = "async function" if node.attr("is_async") is True else "function"
    return f"{keyword} {name}({params})"


def docstring(graph: CpgGraph, node: CpgNode) -> str | None:
    """The docstring: a string literal that is the first statement of the body.

    Python's docstrings are literals: for a function or class the literal
    must sit below the ``def``/``class`` line (so a default value is never
    taken). Other languages document a definition with the comment above it,
    which :mod:`greploom.core.spans` recovers as the ``doc_comment`` attribute.
    """
    if not is_python(node.file):
        comment = node.attr("doc_comment")
        return comment.strip() or None if isinstance(comment, str) else None
    literal = docstring_node(graph, node)
    if literal is None:
        return None
    raw = literal.attr("raw_value")
    return _unquote(raw if isinstance(raw, str) else literal.name)


def docstring_node(graph: CpgGraph, node: CpgNode) -> CpgNode | None:
    """The literal node holding a definition's docstring, if it has one."""
    if not is_python(node.file):
        return None
    body = [
        c
        for c in graph.children(node.id)
        if c.kind is not NodeKind.PARAMETER and (node.kind is NodeKind.MODULE or c.line > node.line)
    ]
    if not body:
        return None
    first = min(body, key=lambda c: (c.line, c.location.column if c.location else 0))
    if first.kind is not NodeKind.LITERAL or first.attr("literal_type") != "str":
        return None
    return first


def _unquote(raw: str) -> str | None:
    match = _STRING_PREFIX.match(raw)
    if match is None:
        return None
    quote = match.group(1)
    body = raw[match.end() :]
    if body.endswith(quote):
        body = body[: -len(quote)]
    text = inspect.cleandoc(body).strip()
    return text or None


def excerpt(text: str, limit: int = DOC_EXCERPT_CHARS) -> str:
    """The first paragraph of a docstring, cut at a word boundary within ``limit``."""
    paragraph = text.split("\n\n", 1)[0]
    flat = " ".join(paragraph.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut + " ..."


def call_name(raw: str) -> str | None:
    """A call's name as written, tidied: whitespace folded, chained calls shortened.

    ``text\\n .split(x)\\n .join`` becomes ``join``; pseudo-calls such as
    treeloom's ``f-string`` are dropped.
    """
    name = "".join(raw.split())
    if ")" in name:
        name = name.rsplit(")", 1)[1].lstrip(".")
    return name if _CALL_NAME.match(name) else None


def callees(
    graph: CpgGraph, node: CpgNode, qualnames: Mapping[str, str], links: CallLinks | None = None
) -> tuple[str, ...]:
    """Names of what a definition calls: resolved qualnames, else the name as written.

    Calls resolve through ``links`` (:func:`greploom.core.calls.resolve_calls`);
    without them, through treeloom's ``calls`` edges, as before links existed.
    A callee of the caller's own module is named without the module's path:
    repeated in every function of a module, the path's words made them all
    alike (attrs' ``validators.in_`` ranked below ``le``, ``lt``...).
    """
    names: list[str] = []
    home = module_path(node.file)
    for child in graph.descendants_in(node):
        if child.kind is not NodeKind.CALL:
            continue
        if links is not None:
            target = links.target(child.id)
            targets = [target] if target is not None else []
        else:
            targets = [e.target for e in graph.out_edges(child.id, EdgeKind.CALLS)]
        resolved = [_near(qualnames[t], home) for t in targets if t in qualnames]
        if resolved:
            names.extend(resolved)
        elif (written := call_name(child.name)) is not None:
            names.append(written)
    return _unique(names)


def _near(qualname: str, home: str) -> str:
    """``qualname`` without ``home.`` when it is defined in the module ``home``."""
    return qualname[len(home) + 1 :] if home and qualname.startswith(home + ".") else qualname


def import_text(node: CpgNode) -> str:
    """An import as Python would write it: ``from m import a, b`` or ``import m``."""
    module = node.attr("module")
    module = module if isinstance(module, str) else node.name
    names = _strings(node.attr("names"))
    if node.attr("is_from") is True and names:
        return f"from {module} import {', '.join(names)}"
    return f"import {module}"


def import_targets(node: CpgNode) -> tuple[str, ...]:
    """What an import brings in, as dotted names: ``m.a, m.b`` or ``m``."""
    module = node.attr("module")
    module = module if isinstance(module, str) else node.name
    names = _strings(node.attr("names"))
    if node.attr("is_from") is True and names:
        return tuple(f"{module}.{n}" for n in names)
    return (module,)


def summarize_node(
    graph: CpgGraph,
    node: CpgNode,
    qualnames: Mapping[str, str],
    tier: Tier,
    links: CallLinks | None = None,
) -> Summary:
    """Summarise one function, class or module node at the given tier.

    ``qualnames`` maps CPG ids of indexable nodes to their qualified names
    (from :func:`greploom.core.keys.node_identities`), used to name callees;
    ``links`` (:func:`greploom.core.calls.resolve_calls`, built once per graph)
    say which definition each call invokes, so the summary names the callees
    the graph's contexts show.
    """
    qualname = qualnames.get(node.id, node.name)
    head = f"{qualname} ({node.file})"
    sig = signature(graph, node, qualname)
    if tier is Tier.FAST:
        return Summary(text=sig, embed_text=f"{head}\n{sig}", tier=tier)
    about, doc = _about_lines(graph, node)
    structure = _structure_lines(graph, node, qualnames, links)
    source = node.attr("source_text")
    python = is_python(node.file)
    # Shown and searched, not embedded: a definition's vector is what it does, and the
    # ranking demotes what its code marks deprecated (greploom.core.ranking).
    marked = deprecation(
        _strings(node.attr("decorators")),
        doc,
        source if isinstance(source, str) and node.kind is not NodeKind.MODULE else None,
        python=python,
    )
    text = "\n".join([sig, *about, *([marked] if marked else []), *structure])
    # Embedded, not shown (greploom.core.notes): the words of the name, and for
    # a definition without a docstring the prose in its body, which stands in
    # for one. Placed after the docstring and before the long lists, so the
    # model's 256 word pieces reach them. Measured on the quality harness:
    # the words lift questions (NDCG@10 0.720 -> 0.748); the notes help only
    # undocumented code and, added to documented code, cost questions 0.03.
    #
    # A module's text (its top-level statements, greploom.core.module_text) is
    # searched but not embedded as notes: its literals and imports made a module
    # the nearest vector of questions about its definitions (httpx 0.758 -> 0.770).
    # The words of the identifiers a body uses ("uses:") stand in for a docstring
    # outside Python: zod 0.673 -> 0.685, express 0.861 -> 0.882; Python code bases
    # document with docstrings, and there the words of an undocumented class's
    # methods diluted it (httpx 0.787 -> 0.758, attrs 0.738 -> 0.709 with them).
    evidence = ["words: " + " ".join(identifier_words(qualname))]
    # A module's top-level names, in words ("names: max email length; ..."), so that a
    # question saying what a constant holds finds the module binding it. Measured on the
    # quality harness (signals, NDCG@10 0.8213 -> 0.8247): module-level names 0.719 -> 0.760
    # (pydantic's COLORS_BY_NAME for "colour names mapped to their rgb values" 0.36 -> 1.00);
    # 8 names: 0.8243, 48: 0.8247.
    if node.kind is NodeKind.MODULE:
        bound = _named(parse_top_names(node.attr(TOP_NAMES_ATTR)))[:MODULE_NAME_WORDS]
        if bound:
            evidence.append("names: " + "; ".join(" ".join(identifier_words(n)) for n in bound))
    if isinstance(source, str) and not doc and node.kind is not NodeKind.MODULE:
        notes = body_notes(source, python=python)
        if notes:
            evidence.append("notes: " + "; ".join(notes))
        if not python:
            known = frozenset(identifier_words(qualname)) | frozenset(identifier_words(sig))
            used = body_words(source, python=python, known=known)
            if used:
                evidence.append("uses: " + " ".join(used))
    embed_text = "\n".join([head, sig, *about, *evidence, *structure])
    return Summary(text=text, embed_text=embed_text, tier=tier)


def _named(names: tuple[tuple[str, int], ...]) -> list[str]:
    """The names of ``(name, line)`` pairs, each once, in order, dunders (``__all__``) left out."""
    return list(dict.fromkeys(n for n, _ in names if not (n.startswith("__") and n.endswith("__"))))


def _about_lines(graph: CpgGraph, node: CpgNode) -> tuple[list[str], str | None]:
    """Decorators and the docstring excerpt; also the whole docstring."""
    lines: list[str] = []
    decorators = _strings(node.attr("decorators"))
    if decorators:
        lines.append("decorators: " + ", ".join(f"@{d}" for d in decorators))
    doc = docstring(graph, node)
    if doc:
        lines.append(excerpt(doc))
    return lines, doc


def _structure_lines(
    graph: CpgGraph, node: CpgNode, qualnames: Mapping[str, str], links: CallLinks | None
) -> list[str]:
    """Callees of a function, methods of a class, definitions and imports of a module."""
    lines: list[str] = []
    inner = list(graph.descendants_in(node))
    if node.kind in (NodeKind.FUNCTION, NodeKind.VARIABLE):
        called = callees(graph, node, qualnames, links)
        if called:
            lines.append("calls: " + _listing(called))
    elif node.kind is NodeKind.CLASS:
        methods = _unique(c.name for c in inner if c.kind is NodeKind.FUNCTION)
        if methods:
            lines.append("methods: " + _listing(methods))
        nested = _unique(c.name for c in inner if c.kind is NodeKind.CLASS)
        if nested:
            lines.append("classes: " + _listing(nested))
    else:
        defined = _unique(written_name(c) for c in inner if is_indexable(c) and c.kind is not NodeKind.MODULE)
        if defined:
            lines.append("defines: " + _listing(defined))
        imported = _unique(t for c in inner if c.kind is NodeKind.IMPORT for t in import_targets(c))
        if imported:
            lines.append("imports: " + _listing(imported))
    return lines


def _listing(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:MAX_LISTED])
    rest = len(names) - MAX_LISTED
    return f"{shown} (+{rest} more)" if rest > 0 else shown


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, tuple):
        return tuple(v for v in value if isinstance(v, str))
    if isinstance(value, str):
        return (value,)
    return ()
