"""Definitions treeloom misses, added from a real parse (greploom.core.supplement).

The programs are JavaScript written in every form the parser knows
(declarations, methods, functions assigned to properties, prototypes and
exports, arrow functions in variables, object-literal methods, class fields,
exported constants); "treeloom" emits a drawn subset of them, as treeloom
does, at the position it writes (the function itself), sometimes unnamed.

Laws:

1. Every definition the parser finds is in the supplemented CPG exactly once:
   nothing treeloom emitted is added again.
2. An added definition's span lies inside its file and its source holds its name.
3. The keys of all definitions are unchanged when ids are renumbered or lines
   are inserted above the code.
4. Supplementing a supplemented CPG adds nothing.
5. A call inside an added definition belongs to the innermost definition
   holding it, not to the module.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgData, CpgGraph, CpgNode, NodeKind, SourceLocation
from greploom.core.keys import is_indexable, node_identities
from greploom.core.outline import FileOutline, Form, FoundDefinition, Point, contains
from greploom.core.supplement import supplement
from greploom.shell.outline import outline_file

FILE = "lib/app.js"
NAMES = st.sampled_from(("send", "handle", "init", "render", "compile", "parse", "route"))
OWNERS = st.sampled_from(("res", "app", "Router", "proto"))
FORMS = (
    "function {n}(a) {{\n  return helper(a);\n}}",
    "{o}.{n} = function {n}(body) {{\n  helper(body);\n}};",
    "{o}.prototype.{n} = function (req, res) {{\n  helper(req);\n}};",
    "exports.{n} = (x) => helper(x);",
    "const {n}Fn = (a) => {{\n  return helper(a);\n}};",
    "const {o}Table = {{\n  {n}() {{ return helper(); }},\n  {n}Alt: function () {{ helper(); }},\n}};",
    "class {O}Box {{\n  {n} = () => {{\n    helper();\n  }};\n  {n}Method() {{ helper(); }}\n}}",
    "export const {N}_LIMIT = 10;",
)


@st.composite
def programs(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(FORMS), NAMES, OWNERS), min_size=1, max_size=7))
    blocks = [
        form.format(n=n, o=o, O=o.capitalize(), N=n.upper()) + f"\n// block {i}"
        for i, (form, n, o) in enumerate(parts)
    ]
    return "\n\n".join(blocks) + "\n"


def outline(text: str) -> FileOutline:
    found = outline_file(FILE, text.encode())
    assert found is not None  # the grammar is installed with the test extras
    return found


def treeloom_cpg(text: str, emitted: list[bool], unnamed: list[bool], id_base: int = 0) -> CpgData:
    """What treeloom would write: the module, some definitions (at the function's position),
    and every call, all scoped to the module."""
    found = outline(text)
    module = CpgNode(f"module:{FILE}:1:0:{id_base}", NodeKind.MODULE, "app", SourceLocation(FILE, 1, 0))
    nodes = [module]
    spans: list[tuple[FoundDefinition, str]] = []  # what treeloom emitted, parents first
    for i, item in enumerate(found.definitions):
        if emitted[i % len(emitted)] and item.kind is not NodeKind.VARIABLE:
            # treeloom leaves class fields unnamed; it names what it emits otherwise
            placeholder = unnamed[i % len(unnamed)] and item.form is Form.CLASS_FIELD
            line, column = item.value_at
            node_id = f"{item.kind.value}:{FILE}:{line}:{column}:{id_base + i + 1}"
            scope = _innermost(spans, item.start) or module.id
            nodes.append(
                CpgNode(
                    node_id,
                    item.kind,
                    "<arrow>" if placeholder else item.name,
                    SourceLocation(FILE, line, column),
                    None,
                    scope,
                )
            )
            spans.append((item, node_id))
    for j, call in enumerate(found.calls):
        nodes.append(
            CpgNode(
                f"call:{FILE}:{call.at[0]}:{call.at[1]}:{id_base + 1000 + j}",
                NodeKind.CALL,
                call.name,
                SourceLocation(FILE, call.at[0], call.at[1]),
                None,
                _innermost(spans, call.at) or module.id,
            )
        )
    return CpgData(nodes=tuple(nodes), edges=())


def _innermost(spans: list[tuple[FoundDefinition, str]], at: Point) -> str | None:
    holding = [node_id for item, node_id in spans if contains(item.start, item.end, at)]
    return holding[-1] if holding else None


def supplemented(text: str, emitted: list[bool], unnamed: list[bool], id_base: int = 0) -> CpgData:
    return supplement(treeloom_cpg(text, emitted, unnamed, id_base), [outline(text)], {FILE: text}).data


FLAGS = st.lists(st.booleans(), min_size=1, max_size=5)


@given(programs(), FLAGS, FLAGS)
def test_every_definition_is_there_once(text: str, emitted: list[bool], unnamed: list[bool]) -> None:
    """Law 1: what treeloom emitted is kept, what it did not is added, nothing twice."""
    found = outline(text)
    data = supplemented(text, emitted, unnamed)
    defs = [n for n in data.nodes if is_indexable(n) and n.kind is not NodeKind.MODULE]
    assert len(defs) == len(found.definitions)
    assert sorted(n.name for n in defs) == sorted(d.name for d in found.definitions)


@given(programs(), FLAGS, FLAGS)
def test_added_spans_lie_in_the_file_and_hold_the_name(
    text: str, emitted: list[bool], unnamed: list[bool]
) -> None:
    """Law 2."""
    lines = text.splitlines()
    for node in supplemented(text, emitted, unnamed).nodes:
        if node.attr("supplemented") is True and node.kind is not NodeKind.MODULE:
            assert node.end_line is not None
            assert 1 <= node.line <= node.end_line <= len(lines)
            source = node.attr("source_text")
            assert isinstance(source, str) and node.name in source
            assert source == "\n".join(lines[node.line - 1 : node.end_line])


@given(programs(), FLAGS, FLAGS, st.integers(1, 4), st.integers(1, 500))
def test_keys_survive_renumbering_and_line_shifts(
    text: str, emitted: list[bool], unnamed: list[bool], shift: int, id_base: int
) -> None:
    """Law 3."""
    before = {i.key: i.qualname for i in node_identities(CpgGraph(supplemented(text, emitted, unnamed)))}
    moved = "// inserted\n" * shift + text
    after = {
        i.key: i.qualname for i in node_identities(CpgGraph(supplemented(moved, emitted, unnamed, id_base)))
    }
    assert before == after


@given(programs(), FLAGS, FLAGS)
def test_supplementing_twice_adds_nothing(text: str, emitted: list[bool], unnamed: list[bool]) -> None:
    """Law 4."""
    once = supplemented(text, emitted, unnamed)
    twice = supplement(once, [outline(text)], {FILE: text})
    assert twice.added_total == 0
    assert twice.data.nodes == once.nodes


@given(programs(), FLAGS, FLAGS)
def test_calls_belong_to_the_innermost_definition(
    text: str, emitted: list[bool], unnamed: list[bool]
) -> None:
    """Law 5: a call's enclosing definition is the innermost one whose span holds it."""
    found = outline(text)
    graph = CpgGraph(supplemented(text, emitted, unnamed))
    for node in graph.nodes.values():
        if node.kind is not NodeKind.CALL or node.location is None:
            continue
        at = (node.line, node.location.column)
        holding = [d for d in found.definitions if contains(d.start, d.end, at)]
        owner = graph.enclosing(node, NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.VARIABLE, NodeKind.MODULE)
        assert owner is not None
        if not holding:
            assert owner.kind is NodeKind.MODULE
            continue
        innermost = max(holding, key=lambda d: (d.start, (-d.end[0], -d.end[1])))
        assert owner.name == innermost.name


def test_an_unnamed_treeloom_node_takes_the_name_the_code_gives() -> None:
    """treeloom's ``<arrow>`` for a class field becomes the field's name, keeping its id."""
    text = "class Box {\n  handle = () => {\n    helper();\n  };\n}\n"
    data = supplemented(text, [True], [True])
    arrow_id = next(n.id for n in treeloom_cpg(text, [True], [True]).nodes if n.name == "<arrow>")
    renamed = next(n for n in data.nodes if n.id == arrow_id)
    assert renamed.name == "handle"
    keys = {i.key for i in node_identities(CpgGraph(data))}
    assert "function:lib/app.js:Box.handle" in keys


def test_owners_are_part_of_keys_and_qualified_names() -> None:
    """``res.send = function`` is ``res.send``, ``Router.prototype.handle`` is ``Router.handle``."""
    text = (
        "res.send = function send(body) {};\nRouter.prototype.handle = function () {};\n"
        "exports.compile = () => 1;\n"
    )
    idents = {i.key: i.qualname for i in node_identities(CpgGraph(supplemented(text, [False], [False])))}
    assert idents["function:lib/app.js:res.send"] == "lib.app.res.send"
    assert idents["function:lib/app.js:Router.handle"] == "lib.app.Router.handle"
    assert idents["function:lib/app.js:compile"] == "lib.app.compile"


def test_a_file_the_cpg_lacks_gets_its_module_calls_and_imports() -> None:
    """A file treeloom skipped comes whole from the parse."""
    text = 'import { helper } from "./util.js";\nexport function run(a: number) {\n  return helper(a);\n}\n'
    found = outline_file("lib/skipped.ts", text.encode())
    assert found is not None
    done = supplement(CpgData(nodes=(), edges=()), [found], {"lib/skipped.ts": text})
    assert done.new_files == ("lib/skipped.ts",)
    graph = CpgGraph(done.data)
    kinds = sorted(n.kind.value for n in graph.nodes.values())
    assert kinds == ["call", "function", "import", "module", "parameter"]
    call = next(n for n in graph.nodes.values() if n.kind is NodeKind.CALL)
    owner = graph.enclosing_definition(call)
    assert owner is not None and owner.name == "run"
    param = next(n for n in graph.nodes.values() if n.kind is NodeKind.PARAMETER)
    assert (param.name, param.attr("type_annotation")) == ("a", "number")


def test_an_outline_of_another_text_adds_nothing_wrong() -> None:
    """An outline whose names are not where it says (another text) adds nothing."""
    text = "function run() {}\n"
    other = "\n\n\nfunction zzz() {}\n"
    done = supplement(CpgData(nodes=(), edges=()), [outline(other)], {FILE: text})
    assert [n.kind for n in done.data.nodes] == [NodeKind.MODULE]
    assert attrs.has(type(done))
