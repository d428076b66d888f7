"""Shared hypothesis strategies: small random CPGs, ranked lists, context blocks.

A random program is drawn as a plain tree (files holding classes and
functions holding parameters, calls, imports and docstrings) and rendered to
:class:`CpgData` the way treeloom would write it: ids ``kind:file:line:col:n``
with a build-wide counter, scopes, ``contains``/``has_parameter``/``calls``/
``data_flows_to`` edges. Rendering takes an id offset and per-file line
shifts, so tests can renumber ids or move code without changing it.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from hypothesis import strategies as st

from greploom.core.budget import ContextBlock, Rendering
from greploom.core.cpg import CpgData, CpgEdge, CpgNode, EdgeKind, NodeKind, SourceLocation

NAMES = ("run", "load", "save", "parse", "Cart", "total", "get_item", "HTTPClient")
FILES = ("pkg/a.py", "pkg/b.py", "pkg/sub/c.py")


@attrs.frozen
class Def:
    """A function or class in a drawn program."""

    kind: NodeKind
    name: str
    params: tuple[tuple[str, str | None], ...]
    doc: str | None
    calls: tuple[int, ...]  # indexes into the program's flat list of functions
    imports: tuple[str, ...]
    body: tuple[Def, ...]
    in_branch: bool = False


@attrs.frozen
class Program:
    """Files, each a tuple of top-level definitions."""

    files: tuple[tuple[str, tuple[Def, ...]], ...]

    def rename(self, path: tuple[int, ...], new_name: str) -> Program:
        """The same program with one definition (by index path) renamed."""
        file_index, *rest = path
        name, defs = self.files[file_index]
        new_defs = _rename(defs, tuple(rest), new_name)
        files = list(self.files)
        files[file_index] = (name, new_defs)
        return Program(tuple(files))


def _rename(defs: tuple[Def, ...], path: tuple[int, ...], new_name: str) -> tuple[Def, ...]:
    index, *rest = path
    items = list(defs)
    target = items[index]
    if rest:
        items[index] = attrs.evolve(target, body=_rename(target.body, tuple(rest), new_name))
    else:
        items[index] = attrs.evolve(target, name=new_name)
    return tuple(items)


identifiers = st.sampled_from(NAMES)
annotations = st.sampled_from((None, "int", "str", "list[Item]", "Cart"))


def defs(depth: int = 2) -> st.SearchStrategy[Def]:
    """A function or class, nested up to ``depth`` levels."""
    children: st.SearchStrategy[tuple[Def, ...]] = (
        st.lists(st.deferred(lambda: defs(depth - 1)), max_size=3).map(tuple) if depth > 0 else st.just(())
    )
    return st.builds(
        Def,
        kind=st.sampled_from((NodeKind.FUNCTION, NodeKind.CLASS)),
        name=identifiers,
        params=st.lists(
            st.tuples(st.sampled_from(("x", "y", "item", "n")), annotations),
            max_size=3,
            unique_by=lambda p: p[0],
        ).map(tuple),
        doc=st.one_of(st.none(), st.sampled_from(("Load the cart.", "Compute a total."))),
        calls=st.lists(st.integers(0, 20), max_size=3).map(tuple),
        imports=st.lists(st.sampled_from(("os", "json", "pkg.util")), max_size=2).map(tuple),
        body=children,
        in_branch=st.booleans(),
    )


programs = st.builds(
    Program,
    files=st.lists(
        st.tuples(st.sampled_from(FILES), st.lists(defs(), max_size=4).map(tuple)),
        min_size=1,
        max_size=3,
        unique_by=lambda f: f[0],
    ).map(tuple),
)


@attrs.define
class _Builder:
    id_offset: int
    shifts: Mapping[str, int]
    nodes: list[CpgNode] = attrs.Factory(list)
    edges: list[CpgEdge] = attrs.Factory(list)
    functions: list[str] = attrs.Factory(list)
    pending_calls: list[tuple[str, int]] = attrs.Factory(list)
    counter: int = 0
    line: int = 0

    def add(
        self,
        kind: NodeKind,
        name: str,
        file: str,
        scope: str | None,
        *,
        attrs_: tuple[tuple[str, object], ...] = (),
        col: int = 0,
    ) -> str:
        self.counter += 1
        self.line += 1
        line = self.line + self.shifts.get(file, 0)
        node_id = f"{kind.value}:{file}:{line}:{col}:{self.counter + self.id_offset}"
        loc = SourceLocation(file, line, col)
        self.nodes.append(CpgNode(node_id, kind, name, loc, loc, scope, tuple(sorted(attrs_))))  # type: ignore[arg-type]
        if scope is not None:
            self.edges.append(CpgEdge(scope, node_id, EdgeKind.CONTAINS))
        return node_id

    def definition(self, d: Def, file: str, scope: str) -> None:
        if d.in_branch:
            scope = self.add(NodeKind.BRANCH, "if", file, scope, attrs_=(("branch_type", "if"),))
        node_id = self.add(
            d.kind,
            d.name,
            file,
            scope,
            attrs_=(("is_async", False),) if d.kind is NodeKind.FUNCTION else (),
        )
        if d.kind is NodeKind.FUNCTION:
            self.functions.append(node_id)
            for pos, (pname, ann) in enumerate(d.params):
                pid = self.add(
                    NodeKind.PARAMETER,
                    pname,
                    file,
                    node_id,
                    attrs_=(("position", pos), ("type_annotation", ann)),
                    col=pos + 1,
                )
                self.edges.append(CpgEdge(node_id, pid, EdgeKind.HAS_PARAMETER))
        if d.doc is not None:
            self.add(
                NodeKind.LITERAL,
                f'"""{d.doc}"""',
                file,
                node_id,
                attrs_=(("literal_type", "str"), ("raw_value", f'"""{d.doc}"""')),
                col=4,
            )
        for module in d.imports:
            self.add(
                NodeKind.IMPORT,
                f"import {module}",
                file,
                node_id,
                attrs_=(("is_from", False), ("module", module), ("names", (module,))),
                col=4,
            )
        for target in d.calls:
            call_id = self.add(NodeKind.CALL, "helper", file, node_id, attrs_=(("args_count", 1),), col=8)
            self.pending_calls.append((call_id, target))
        for child in d.body:
            self.definition(child, file, node_id)


def build_cpg(program: Program, id_offset: int = 0, shifts: Mapping[str, int] | None = None) -> CpgData:
    """Render a program as treeloom would; ``id_offset`` and ``shifts`` move ids and lines."""
    b = _Builder(id_offset, shifts or {})
    for file, top in program.files:
        b.line = 0
        module_id = b.add(NodeKind.MODULE, file.rsplit("/", 1)[-1].removesuffix(".py"), file, None)
        for d in top:
            b.definition(d, file, module_id)
    names: dict[str, str] = {}  # call id -> the callee's name: greploom links calls by what they say
    by_id = {n.id: n for n in b.nodes}
    for call_id, target in b.pending_calls:
        if b.functions:
            callee = b.functions[target % len(b.functions)]
            names[call_id] = by_id[callee].name
            b.edges.append(CpgEdge(call_id, callee, EdgeKind.CALLS))
            b.edges.append(CpgEdge(call_id, callee, EdgeKind.DATA_FLOWS_TO))
    nodes = tuple(attrs.evolve(n, name=names[n.id]) if n.id in names else n for n in b.nodes)
    return CpgData(nodes=nodes, edges=tuple(b.edges), treeloom_version="test")


def def_paths(program: Program) -> list[tuple[int, ...]]:
    """Index paths of every definition in a program (for picking one to change)."""
    paths: list[tuple[int, ...]] = []

    def walk(prefix: tuple[int, ...], items: tuple[Def, ...]) -> None:
        for i, d in enumerate(items):
            paths.append((*prefix, i))
            walk((*prefix, i), d.body)

    for fi, (_, top) in enumerate(program.files):
        walk((fi,), top)
    return paths


keys = st.text(alphabet="abcdefghij", min_size=1, max_size=3)
ranked_lists = st.lists(st.lists(keys, max_size=8, unique=True), min_size=1, max_size=4)

_line = st.text(
    alphabet=st.characters(codec="ascii", exclude_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85"),
    max_size=30,
)
block_texts = st.builds(
    lambda header, body, fenced, ticks: "\n".join(
        [f"## hit: {header}"] + ([f"{'`' * ticks}python", *body, "`" * ticks] if fenced else body)
    ),
    header=st.text(alphabet="abcdefgh ", min_size=1, max_size=12),
    body=st.lists(_line, max_size=8),
    fenced=st.booleans(),
    ticks=st.integers(3, 5),
)
blocks = st.lists(
    st.builds(ContextBlock, key=keys, text=block_texts, relevance=st.floats(0.0, 1.0)),
    max_size=8,
)
# Blocks offering shorter renderings of themselves, as search hits and neighbours do.
tiered_blocks = st.lists(
    st.builds(
        ContextBlock,
        key=keys,
        text=block_texts,
        relevance=st.floats(0.0, 1.0),
        label=st.just("full"),
        fallbacks=st.lists(
            st.builds(
                Rendering,
                label=st.sampled_from(["focused", "summary", "reference"]),
                text=block_texts,
                essential=st.booleans(),
            ),
            max_size=2,
        ).map(tuple),
        may_cut=st.booleans(),
        reserved=st.booleans(),
        essential=st.booleans(),
    ),
    max_size=8,
)

# Scope graphs as hand-written CPGs can make them: any node may name any id as its
# scope (itself, a cycle, a missing id), and ids repeat (the graph keeps the first).
_SCOPE_IDS = tuple(f"n{i}" for i in range(4))
scope_graphs = st.lists(
    st.builds(
        CpgNode,
        id=st.sampled_from(_SCOPE_IDS),
        kind=st.sampled_from((NodeKind.MODULE, NodeKind.FUNCTION, NodeKind.BRANCH, NodeKind.CALL)),
        name=st.just("x"),
        scope=st.sampled_from((None, *_SCOPE_IDS, "missing")),
    ),
    min_size=1,
    max_size=8,
).map(lambda nodes: CpgData(nodes=tuple(nodes), edges=()))


# -- Programs whose calls are written as code writes them (tests/properties/test_calls.py) --
#
# Definitions carry real call names (``run``, ``self.total``, ``super.total``,
# ``Cart.load``, ``item.save``, ``b.parse``) and imports name what they bind, so
# the call resolver has something to decide. treeloom's ``calls`` edges are
# rendered as treeloom makes them (by bare name, to the first function of that
# name anywhere), so a test can see they are not what decides.

CALL_FUNCTIONS = ("run", "load", "save", "parse", "total")
CALL_CLASSES = ("Cart", "Store", "Base")
CALL_PARAMS = ("x", "item", "n")  # never a definition's name: parameters shadow nothing drawn
CALL_FILES = ("pkg/a", "pkg/b", "pkg/sub/c")  # the extension is drawn per program


@attrs.frozen
class CallDef:
    """A function (with parameters and calls) or a class (with methods and bases)."""

    kind: NodeKind
    name: str
    params: tuple[tuple[str, str | None], ...] = ()
    calls: tuple[str, ...] = ()  # written callee names; ``self.`` is ``this.`` outside Python
    methods: tuple[CallDef, ...] = ()
    bases: tuple[str, ...] = ()


@attrs.frozen
class CallImport:
    """``from <file's module> import name`` (``module`` false) or ``from pkg import <stem>``."""

    file: str  # the imported file, without extension
    name: str
    module: bool = False


@attrs.frozen
class CallFile:
    path: str  # without extension
    imports: tuple[CallImport, ...]
    defs: tuple[CallDef, ...]


@attrs.frozen
class CallProgram:
    files: tuple[CallFile, ...]
    ext: str = ".py"

    def with_def(self, path: str, d: CallDef) -> CallProgram:
        """The program with one more top-level definition in a file (added, or the file created)."""
        files = list(self.files)
        for i, f in enumerate(files):
            if f.path == path:
                files[i] = attrs.evolve(f, defs=(*f.defs, d))
                return attrs.evolve(self, files=tuple(files))
        return attrs.evolve(self, files=(*files, CallFile(path, (), (d,))))


_annotation = st.sampled_from((None, None, "Cart", "Store", "list[Cart]", "Optional[Store]", "Base"))
_member = st.sampled_from(CALL_FUNCTIONS)
call_texts = st.one_of(
    st.sampled_from(CALL_FUNCTIONS + CALL_CLASSES),
    _member.map(lambda m: f"self.{m}"),
    _member.map(lambda m: f"super.{m}"),
    st.tuples(st.sampled_from(CALL_CLASSES), _member).map(".".join),
    st.tuples(st.sampled_from(CALL_PARAMS), _member).map(".".join),
    st.tuples(st.sampled_from(("a", "b", "c")), _member).map(".".join),
)


def _function(names: st.SearchStrategy[str]) -> st.SearchStrategy[CallDef]:
    return st.builds(
        CallDef,
        kind=st.just(NodeKind.FUNCTION),
        name=names,
        params=st.lists(
            st.tuples(st.sampled_from(CALL_PARAMS), _annotation), max_size=2, unique_by=lambda p: p[0]
        ).map(tuple),
        calls=st.lists(call_texts, max_size=4).map(tuple),
    )


call_defs = st.one_of(
    _function(st.sampled_from(CALL_FUNCTIONS)),
    st.builds(
        CallDef,
        kind=st.just(NodeKind.CLASS),
        name=st.sampled_from(CALL_CLASSES),
        methods=st.lists(_function(st.sampled_from(CALL_FUNCTIONS)), max_size=3).map(tuple),
        bases=st.lists(st.sampled_from(CALL_CLASSES), max_size=2, unique=True).map(tuple),
    ),
)
call_imports = st.builds(
    CallImport,
    file=st.sampled_from(CALL_FILES),
    name=st.sampled_from(CALL_FUNCTIONS + CALL_CLASSES),
    module=st.booleans(),
)
call_programs = st.builds(
    CallProgram,
    files=st.lists(
        st.builds(
            CallFile,
            path=st.sampled_from(CALL_FILES),
            imports=st.lists(call_imports, max_size=3).map(tuple),
            defs=st.lists(call_defs, max_size=4).map(tuple),
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda f: f.path,
    ).map(tuple),
    ext=st.sampled_from((".py", ".py", ".js")),
)


def _import_attrs(program: CallProgram, importer: str, imp: CallImport) -> tuple[tuple[str, object], ...]:
    stem = imp.file.rsplit("/", 1)[-1]
    if program.ext == ".py":
        module = "pkg" if imp.module else imp.file.replace("/", ".")
    else:
        import posixpath

        rel = posixpath.relpath(imp.file, posixpath.dirname(importer))
        module = (rel if rel.startswith(".") else f"./{rel}") + program.ext
    name = stem if imp.module else imp.name
    return (("is_from", True), ("module", module), ("names", (name,)))


def build_call_cpg(
    program: CallProgram, id_offset: int = 0, shifts: Mapping[str, int] | None = None
) -> CpgData:
    """Render a call program as treeloom would; ``id_offset`` and ``shifts`` move ids and lines."""
    b = _Builder(id_offset, shifts or {})
    python = program.ext == ".py"
    pending: list[tuple[str, str]] = []
    by_name: dict[str, str] = {}

    def function(d: CallDef, file: str, scope: str) -> None:
        node_id = b.add(NodeKind.FUNCTION, d.name, file, scope, attrs_=(("is_async", False),))
        by_name.setdefault(d.name, node_id)
        for pos, (pname, ann) in enumerate(d.params):
            pid = b.add(
                NodeKind.PARAMETER,
                pname,
                file,
                node_id,
                attrs_=(("position", pos), ("type_annotation", ann if python else None)),
                col=pos + 1,
            )
            b.edges.append(CpgEdge(node_id, pid, EdgeKind.HAS_PARAMETER))
        for text in d.calls:
            written = text if python or not text.startswith("self.") else "this." + text[5:]
            call_id = b.add(NodeKind.CALL, written, file, node_id, attrs_=(("args_count", 0),), col=8)
            pending.append((call_id, written.rsplit(".", 1)[-1]))

    for f in program.files:
        file = f.path + program.ext
        b.line = 0
        module_id = b.add(NodeKind.MODULE, f.path.rsplit("/", 1)[-1], file, None)
        for imp in f.imports:
            b.add(NodeKind.IMPORT, "import", file, module_id, attrs_=_import_attrs(program, f.path, imp))
        for d in f.defs:
            if d.kind is NodeKind.FUNCTION:
                function(d, file, module_id)
                continue
            class_id = b.add(
                NodeKind.CLASS, d.name, file, module_id, attrs_=(("bases", d.bases),) if d.bases else ()
            )
            for m in d.methods:
                function(m, file, class_id)
    for call_id, name in pending:  # treeloom's edge: by bare name, to the first such function
        if name in by_name:
            b.edges.append(CpgEdge(call_id, by_name[name], EdgeKind.CALLS))
    return CpgData(nodes=tuple(b.nodes), edges=tuple(b.edges), treeloom_version="test")
