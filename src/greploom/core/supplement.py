"""Add the definitions treeloom did not emit, found by a real parser, to the CPG.

treeloom stays the primary source: a definition it emitted is never added a
second time, and its nodes keep their ids, names and attributes, with two
repairs: a node it left unnamed (``<arrow>``, ``<anonymous>``) takes the name
the code gives it (``handle = () => {}`` is ``handle``), and a node that sits
inside an added definition moves into it (a call in ``res.send``'s body
belongs to ``res.send``, not to the module); a top-level definition also takes
the owner the code writes for it (a Go method's receiver type). Added nodes:

- carry the attributes treeloom's would (``source_text`` from the statement's
  first line, ``end_location``, ``doc_comment``, ``is_async``, ``bases``,
  parameters as ``parameter`` nodes with ``has_parameter`` edges), plus
  ``supplemented`` (true), ``form`` (how the code wrote it,
  :class:`~greploom.core.outline.Form`) and ``owner`` (``Router`` for
  ``Router.prototype.handle``: keys and qualified names include it);
- sit in the innermost definition whose span holds them, else the module;
- for a file the CPG lacks (treeloom skipped it), come with a module node,
  the file's calls and its imports.

Laws (tests/properties/test_supplement.py): nothing treeloom emitted is added
again; every added definition's span lies inside its file and holds its name;
the keys of added definitions do not change when ids are renumbered or lines
shift; supplementing twice adds nothing the second time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import attrs

from greploom.core.cpg import (
    AttrPairs,
    AttrValue,
    CpgData,
    CpgEdge,
    CpgNode,
    EdgeKind,
    NodeKind,
    SourceLocation,
)
from greploom.core.doc_comments import doc_comment, overloaded_name
from greploom.core.keys import is_indexable
from greploom.core.outline import FileOutline, FoundDefinition, Point, contains
from greploom.core.source_file import SourceFile

PLACEHOLDER_NAMES = frozenset(("<arrow>", "<anonymous>", "<lambda>", "anonymous", ""))


def is_placeholder(name: str) -> bool:
    """A name treeloom gives what it could not name: ``<arrow>``, Java's ``lambda$51$55``."""
    return name in PLACEHOLDER_NAMES or name.startswith("lambda$")


# In the counter part of added ids: kind:file:line:column:greploomN, N counted per file, so that
# a file's ids do not depend on the other files (an index run may read only some files again).
ID_MARK = "greploom"


@attrs.frozen
class Supplemented:
    """The CPG with what the parser added, and what was done (for the run's warnings)."""

    data: CpgData
    added: tuple[tuple[str, int], ...] = ()  # (form, count) of added definitions
    renamed: int = 0  # treeloom nodes that had no name and got the code's
    new_files: tuple[str, ...] = ()  # files the CPG lacked, indexed from the parse
    # (file, (form, count) added, renamed) for each file merged: ``added`` and ``renamed`` by file
    per_file: tuple[tuple[str, tuple[tuple[str, int], ...], int], ...] = ()

    @property
    def added_total(self) -> int:
        """How many definitions were added in all."""
        return sum(n for _, n in self.added)


def _pairs(values: Mapping[str, AttrValue]) -> AttrPairs:
    return tuple(sorted((k, v) for k, v in values.items() if v is not None and v != ()))


def _with(pairs: AttrPairs, extra: Mapping[str, AttrValue]) -> AttrPairs:
    kept = {k: v for k, v in pairs if k not in extra}
    return _pairs({**kept, **extra})


def _family(kind: NodeKind) -> NodeKind:
    return kind if kind in (NodeKind.CLASS, NodeKind.VARIABLE, NodeKind.BLOCK) else NodeKind.FUNCTION


def _points(found: FoundDefinition) -> tuple[Point, ...]:
    return (found.value_at, found.name_at, found.start)


def _matches(node: CpgNode, found: FoundDefinition) -> bool:
    if node.location is None or node.kind is not _family(found.kind):
        return False
    own_name = is_placeholder(node.name) or node.name in (found.name, found.name.rsplit(".", 1)[-1])
    return own_name and (node.line, node.location.column) in _points(found)


def _source(src: SourceFile, found: FoundDefinition) -> str:
    first = src.starts[found.start[0] - 1]
    last_line = min(found.end[0], len(src.lines))
    end = src.starts[last_line - 1] + len(src.lines[last_line - 1]) if last_line >= 1 else first
    return src.text[first:end]


def _holds_name(src: SourceFile, found: FoundDefinition) -> bool:
    """The file still holds the name where the parser saw it (it was read once, so
    this fails only for an outline of another text: then nothing is added)."""
    line, _column = found.name_at
    if not 1 <= line <= len(src.lines):
        return False
    return found.name.rsplit(".", 1)[-1] in " ".join(src.lines[line - 1].split())


def _pair(existing: list[CpgNode], found: list[FoundDefinition]) -> dict[int, CpgNode]:
    """Which treeloom definition each found one is (by index into ``found``): the first,
    in input order, not yet paired that :func:`_matches` it. Looked up by position, so a
    file with thousands of definitions is not compared all against all."""
    order = {n.id: i for i, n in enumerate(existing)}
    at: dict[Point, list[CpgNode]] = {}
    for node in existing:
        if node.location is not None:
            at.setdefault((node.line, node.location.column), []).append(node)
    paired: dict[int, CpgNode] = {}
    used: set[str] = set()
    for index, item in enumerate(found):
        near = {n.id: n for point in set(_points(item)) for n in at.get(point, ())}
        hit = min(
            (n for n in near.values() if n.id not in used and _matches(n, item)),
            key=lambda n: order[n.id],
            default=None,
        )
        if hit is not None:
            paired[index] = hit
            used.add(hit.id)
    return paired


class _FileMerge:
    """The merge of one file's outline into its CPG nodes."""

    def __init__(
        self, file: str, nodes: list[CpgNode], src: SourceFile, ids: set[str], counter: list[int]
    ) -> None:
        self.file = file
        self.nodes = nodes  # this file's nodes, input order; updated in place
        self.src = src
        self.ids = ids
        self.counter = counter
        self.new_nodes: list[CpgNode] = []
        self.new_edges: list[CpgEdge] = []
        self.added: Counter[str] = Counter()
        self.renamed = 0

    def fresh_id(self, kind: NodeKind, at: Point) -> str:
        self.counter[0] += 1
        node_id = f"{kind.value}:{self.file}:{at[0]}:{at[1]}:{ID_MARK}{self.counter[0]}"
        while node_id in self.ids:
            node_id += "+"
        self.ids.add(node_id)
        return node_id

    def module(self) -> tuple[str, bool]:
        for node in self.nodes:
            if node.kind is NodeKind.MODULE:
                return node.id, False
        stem = self.file.rsplit("/", 1)[-1].split(".", 1)[0] or self.file
        module = CpgNode(
            self.fresh_id(NodeKind.MODULE, (1, 0)),
            NodeKind.MODULE,
            stem,
            SourceLocation(self.file, 1, 0),
            None,
            None,
            _pairs({"supplemented": True}),
        )
        self.new_nodes.append(module)
        return module.id, True

    def run(self, outline: FileOutline) -> None:
        module_id, new_file = self.module()
        existing = [n for n in self.nodes if is_indexable(n) and n.kind is not NodeKind.MODULE]
        # Parents before children: by start, the longer span first.
        found = sorted(outline.definitions, key=lambda d: (d.start, (-d.end[0], -d.end[1])))
        open_spans: list[tuple[FoundDefinition, str]] = []  # the chain of spans holding the current one
        added: list[tuple[FoundDefinition, str, str]] = []  # (found, new id, container id)
        by_id = {n.id: i for i, n in enumerate(self.nodes)}
        paired = _pair(existing, found)
        # A treeloom definition no position matches (the file changed since the
        # CPG was built) still claims a definition of its name and kind: an
        # edited file is never indexed twice, and the run says it is stale.
        matched = {n.id for n in paired.values()}
        leftovers: dict[tuple[NodeKind, str], list[CpgNode]] = {}
        for node in existing:
            if node.id not in matched:
                leftovers.setdefault((node.kind, node.name), []).append(node)
        for index, item in enumerate(found):
            while open_spans and not contains(open_spans[-1][0].start, open_spans[-1][0].end, item.start):
                open_spans.pop()
            container = open_spans[-1][1] if open_spans else module_id
            match = paired.get(index)
            if match is not None:
                self.repair(match, item, by_id[match.id], container == module_id)
                open_spans.append((item, match.id))
                continue
            claimed = leftovers.get((_family(item.kind), item.name))
            if claimed:
                claimed.pop(0)
                continue
            if not _holds_name(self.src, item):
                continue
            node_id = self.add_definition(item, container)
            added.append((item, node_id, container))
            open_spans.append((item, node_id))
        self.rescope(added)
        with_parameters = {n.scope for n in self.nodes if n.kind is NodeKind.PARAMETER}
        for item, node_id, _container in added:
            if node_id not in with_parameters:
                self.add_parameters(item, node_id)
        if new_file:
            self.add_calls_and_imports(outline, module_id, added)

    def repair(self, match: CpgNode, item: FoundDefinition, index: int, at_top: bool) -> None:
        """Name what treeloom left unnamed; give a top-level definition the owner the code
        writes (a Go method's receiver type, ``Router`` of ``Router.prototype.handle``)."""
        extra: dict[str, AttrValue] = {}
        name = match.name
        if is_placeholder(match.name):
            name = item.name
            self.renamed += 1
        if item.owner and (at_top or name != match.name) and match.attr("owner") is None:
            extra["owner"] = item.owner
        if item.keyword and match.attr("keyword") is None:  # treeloom writes an interface as a class
            extra["keyword"] = item.keyword
        if name != match.name or extra:
            self.nodes[index] = attrs.evolve(match, name=name, attrs=_with(match.attrs, extra))

    def add_definition(self, item: FoundDefinition, container: str) -> str:
        node_id = self.fresh_id(item.kind, item.start)
        values: dict[str, AttrValue] = {
            "supplemented": True,
            "form": item.form.value,
            "owner": item.owner or None,
            "source_text": _source(self.src, item),
            "source_from_line_start": True,
            "doc_comment": doc_comment(self.src, item.start[0], overloaded_name(self.file, item.name)),
            "is_async": True if item.is_async else None,
            "bases": item.bases or None,
            "keyword": item.keyword or None,
        }
        self.new_nodes.append(
            CpgNode(
                node_id,
                item.kind,
                item.name,
                SourceLocation(self.file, item.start[0], item.start[1]),
                SourceLocation(self.file, item.end[0], item.end[1]),
                container,
                _pairs(values),
            )
        )
        self.added[item.form.value] += 1
        return node_id

    def rescope(self, added: list[tuple[FoundDefinition, str, str]]) -> None:
        """Move treeloom's nodes that lie in an added definition, and in its container, into it."""
        if not added:
            return
        for index, node in enumerate(self.nodes):
            if node.location is None or node.kind is NodeKind.MODULE:
                continue
            at = (node.line, node.location.column)
            scope = node.scope
            for item, node_id, container in added:  # parents first, so a chain moves step by step
                if scope == container and contains(item.start, item.end, at):
                    scope = node_id
            if scope != node.scope:
                self.nodes[index] = attrs.evolve(node, scope=scope)

    def add_parameters(self, item: FoundDefinition, node_id: str) -> None:
        if item.kind is not NodeKind.FUNCTION:
            return
        for position, (name, annotation) in enumerate(item.parameters):
            values: dict[str, AttrValue] = {"position": position, "type_annotation": annotation}
            param_id = self.leaf(NodeKind.PARAMETER, name, item.value_at, node_id, values)
            self.new_edges.append(CpgEdge(node_id, param_id, EdgeKind.HAS_PARAMETER))

    def add_calls_and_imports(
        self, outline: FileOutline, module_id: str, added: list[tuple[FoundDefinition, str, str]]
    ) -> None:
        def owner_of(at: Point) -> str:
            best = module_id
            for item, node_id, _c in added:  # parents first: the last match is the innermost
                if contains(item.start, item.end, at):
                    best = node_id
            return best

        for call in outline.calls:
            self.leaf(NodeKind.CALL, call.name, call.at, owner_of(call.at), {"args_count": call.args_count})
        for imp in outline.imports:
            values: dict[str, AttrValue] = {"module": imp.module, "names": imp.names, "is_from": imp.is_from}
            self.leaf(NodeKind.IMPORT, imp.module, imp.at, module_id, values)

    def leaf(self, kind: NodeKind, name: str, at: Point, scope: str, values: Mapping[str, AttrValue]) -> str:
        """Add a node that is not a definition (a parameter, call or import); its id."""
        node_id = self.fresh_id(kind, at)
        location = SourceLocation(self.file, at[0], at[1])
        self.new_nodes.append(CpgNode(node_id, kind, name, location, None, scope, _pairs(values)))
        return node_id


def supplement(data: CpgData, outlines: Iterable[FileOutline], texts: Mapping[str, str]) -> Supplemented:
    """The CPG with every definition of ``outlines`` that treeloom did not emit.

    ``texts`` maps a file to the text its outline was parsed from (the source
    of added definitions is cut from it); an outline without its text is
    passed over.
    """
    by_file: dict[str, list[CpgNode]] = {}
    for node in data.nodes:
        by_file.setdefault(node.file, []).append(node)
    ids = {n.id for n in data.nodes}
    replaced: dict[str, list[CpgNode]] = {}
    extra_nodes: list[CpgNode] = []
    extra_edges: list[CpgEdge] = []
    added: Counter[str] = Counter()
    renamed = 0
    new_files: list[str] = []
    per_file: list[tuple[str, tuple[tuple[str, int], ...], int]] = []
    for outline in sorted(outlines, key=lambda o: o.file):
        text = texts.get(outline.file)
        if text is None:
            continue
        merge = _FileMerge(outline.file, list(by_file.get(outline.file, ())), SourceFile.of(text), ids, [0])
        merge.run(outline)
        per_file.append((outline.file, tuple(sorted(merge.added.items())), merge.renamed))
        if outline.file not in by_file:
            new_files.append(outline.file)
        replaced[outline.file] = merge.nodes
        extra_nodes.extend(merge.new_nodes)
        extra_edges.extend(merge.new_edges)
        added.update(merge.added)
        renamed += merge.renamed
    if not replaced:
        return Supplemented(data)
    changed = {n.id: n for nodes in replaced.values() for n in nodes}
    nodes = tuple(changed.get(n.id, n) for n in data.nodes) + tuple(extra_nodes)
    return Supplemented(
        attrs.evolve(data, nodes=nodes, edges=data.edges + tuple(extra_edges)),
        tuple(sorted(added.items())),
        renamed,
        tuple(new_files),
        tuple(per_file),
    )
