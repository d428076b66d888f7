"""Every definition of real JavaScript and TypeScript code is indexed, whatever form it takes.

The code is real and pinned (tests/samples/VENDORED.md): koa 2.15.3 (CommonJS
objects with methods and getters, ``module.exports = class``), connect 3.7.0
(``proto.use = function use``), ts-results-es 4.2.0 (classes, interfaces, type
aliases); plus a TypeScript file treeloom skips whole (variance annotations).
The definitions are counted with tree-sitter queries written here, independently
of greploom's walker, and each must be in the index under the name the code gives it.
"""

from __future__ import annotations

import collections
import importlib
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.cpg import CpgGraph, NodeKind
from greploom.core.keys import node_identities
from greploom.shell.outline_ts_signatures import separated
from greploom.shell.serde import load_cpg
from greploom.shell.sources import read_sources
from tests.cli_helpers import cli
from tests.conftest import build_cpg_file

ts = pytest.importorskip("tree_sitter", reason="the test extras install the tree-sitter grammars")

# (form, query, capture holding the name). One pattern per form of item 1 of the issue.
JS_FORMS = (
    (
        "assigned, prototype or exports",
        "(assignment_expression left: (member_expression property: (_) @name) "
        "right: [(function_expression) (arrow_function) (class)] @value)",
    ),
    # Objects bound to a name or exported; one returned or passed holds callbacks, not definitions.
    (
        "object-literal method",
        "([(variable_declarator value: (object (method_definition name: (_) @name))) "
        "(assignment_expression right: (object (method_definition name: (_) @name)))])",
    ),
    (
        "object-literal function",
        "([(variable_declarator value: (object (pair key: (_) @name value: "
        "[(function_expression) (arrow_function)]))) "
        "(assignment_expression right: (object (pair key: (_) @name "
        "value: [(function_expression) (arrow_function)])))])",
    ),
    (
        "class field holding a function",
        "(field_definition property: (_) @name value: [(arrow_function) (function_expression)])",
    ),
    (
        "function in a variable",
        "(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])",
    ),
    ("function declaration", "(function_declaration name: (identifier) @name)"),
    ("class method", "(class_body (method_definition name: (_) @name))"),
)
TS_FORMS = (
    *(f for f in JS_FORMS if "class field" not in f[0]),
    (
        "public field holding a function",
        "(public_field_definition name: (_) @name value: [(arrow_function) (function_expression)])",
    ),
    (
        "exported const",
        "(export_statement [(lexical_declaration (variable_declarator name: (identifier) @name)) "
        "(variable_declaration (variable_declarator name: (identifier) @name))])",
    ),
    ("interface", "(interface_declaration name: (_) @name)"),
    ("type alias", "(type_alias_declaration name: (_) @name)"),
    ("class", "(class_declaration name: (_) @name)"),
)


# Lines of interfaces, type literals and expressions, for the repair's law.
LINES = (
    b"export interface F {",
    b"    <T>(fn: T): T",
    b"    <T extends X>(name: string, fn: T): T",
    b"\t<K>(key: K): V",
    b"    // named",
    b"    (name: string): D",
    b"}",
    b"const f =",
    b"  <T>(x: T) => x",
    b"    a <b",
    b"",
)


def _language(ext: str) -> object:
    if ext == ".js":
        return ts.Language(importlib.import_module("tree_sitter_javascript").language())
    return ts.Language(importlib.import_module("tree_sitter_typescript").language_typescript())


def parser_count(
    root: Path, ext: str, forms: tuple[tuple[str, str], ...]
) -> dict[str, list[tuple[str, int, str]]]:
    """(file, line, name) of every definition each form's query finds under ``root``."""
    language = _language(ext)
    parser = ts.Parser(language)
    found: dict[str, list[tuple[str, int, str]]] = collections.defaultdict(list)
    for path in sorted(root.rglob(f"*{ext}")):
        tree = parser.parse(path.read_bytes())
        rel = path.relative_to(root).as_posix()
        for form, pattern in forms:
            cursor = ts.QueryCursor(ts.Query(language, pattern))
            for _index, match in cursor.matches(tree.root_node):
                node = match["name"][0]
                name = node.text.decode().strip("'\"")
                if name == "exports" and "value" in match:  # module.exports = function f / class A
                    own = match["value"][0].child_by_field_name("name")
                    name = own.text.decode() if own is not None else path.name.split(".")[0]
                found[form].append((rel, node.start_point.row + 1, name))
    return found


def indexed(root: Path, tmp: Path) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(file, name) -> [(first line, last line)] of every indexed definition, as an index run makes them."""
    cpg = build_cpg_file(root, tmp / f"{root.name}.json")
    data, _report = read_sources(load_cpg(cpg, USED_EDGE_KINDS), root, walk=True)
    graph = CpgGraph(data)
    out: dict[tuple[str, str], list[tuple[int, int]]] = collections.defaultdict(list)
    for ident in node_identities(graph):
        if ident.kind is NodeKind.MODULE:
            continue
        out[(ident.file, ident.name)].append((ident.line, ident.end_line or ident.line))
    return out


def _missing(
    wanted: dict[str, list[tuple[str, int, str]]], have: dict[tuple[str, str], list[tuple[int, int]]]
) -> dict[str, list[tuple[str, int, str]]]:
    out: dict[str, list[tuple[str, int, str]]] = {}
    for form, items in wanted.items():
        lost = [
            (file, line, name)
            for file, line, name in items
            if not any(first <= line <= last for first, last in have.get((file, name), ()))
        ]
        if lost:
            out[form] = lost
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("sample", "ext", "forms"), [("koa", ".js", JS_FORMS), ("connect", ".js", JS_FORMS)])
def test_no_javascript_form_is_missing(
    sample: str, ext: str, forms: tuple[tuple[str, str], ...], sample_dir: Path, tmp_path: Path
) -> None:
    """Each definition the parser's queries find is indexed, by its name, at its line."""
    root = sample_dir / sample
    wanted = parser_count(root, ext, forms)
    assert sum(len(v) for v in wanted.values()) > 8  # the sample exercises the forms
    assert _missing(wanted, indexed(root, tmp_path)) == {}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sample", "forms"),
    [
        ("ts-results", ("interface", "type alias", "class", "exported const")),
        ("mobx", ("interface", "class", "exported const", "object-literal method")),
    ],
)
def test_no_typescript_form_is_missing(
    sample: str, forms: tuple[str, ...], sample_dir: Path, tmp_path: Path
) -> None:
    """Classes, interfaces, type aliases, exported bindings (const, let, var; a comment on the
    line or not) and function fields of real TypeScript."""
    root = sample_dir / sample
    wanted = parser_count(root, ".ts", TS_FORMS)
    for form in forms:
        assert wanted[form], form
    assert _missing(wanted, indexed(root, tmp_path)) == {}


@pytest.mark.slow
def test_call_signatures_the_grammar_cannot_separate_lose_nothing(sample_dir: Path, tmp_path: Path) -> None:
    """mobx's IActionFactory holds generic call signatures separated by line breaks, which
    tree-sitter-typescript cannot parse: the definitions after it are indexed all the same."""
    text = (sample_dir / "mobx" / "src" / "api" / "action.ts").read_bytes()
    assert ts.Parser(_language(".ts")).parse(text).root_node.has_error  # the grammar's bug stands
    have = indexed(sample_dir / "mobx", tmp_path)
    for name, line in (("IActionFactory", 40), ("action", 85), ("runInAction", 93), ("isAction", 97)):
        spans = have[("src/api/action.ts", name)]
        assert any(first <= line <= last for first, last in spans), (name, spans)
    assert (40, 48) in have[("src/api/action.ts", "IActionFactory")]  # its whole body, no more
    # observable.ts: the same, and its factories' methods under `{...} as any`
    for name, line in (("observable", 227), ("box", 188), ("object", 210), ("IObservableFactory", 163)):
        spans = have[("src/api/observable.ts", name)]
        assert any(first <= line <= last for first, last in spans), (name, spans)


@given(st.lists(st.sampled_from(LINES), max_size=12))
def test_separating_call_signatures_moves_no_line_or_column(lines: list[bytes]) -> None:
    """The repair keeps every byte's line and column: only a first indentation character
    becomes ``;``, and only before a generic call signature."""
    text = b"\n".join(lines)
    out = separated(text)
    assert len(out) == len(text) and out.count(b"\n") == text.count(b"\n")
    for before, after in zip(text.split(b"\n"), out.split(b"\n"), strict=True):
        repaired = after == b";" + before[1:] and before[:1] in (b" ", b"\t") and b"<" in before
        assert after == before or repaired


@pytest.mark.slow
def test_a_file_treeloom_skips_is_searchable(sample_dir: Path, tmp_path: Path) -> None:
    """A TypeScript file with one construct treeloom's grammar rejects keeps all its definitions."""
    root = sample_dir / "tsskipped"
    wanted = parser_count(root, ".ts", TS_FORMS)
    assert _missing(wanted, indexed(root, tmp_path)) == {}
    db = tmp_path / "s.db"
    done = cli("index", root, "--db", db, "--provider", "none")
    assert done.code == 0, done.err
    assert "treeloom skipped 1 file" in done.err and "store.ts (" in done.err
    found = cli("query", "persist every change of a store", "--db", db, "--include-source")
    assert "function store.persistentStore (store.ts:36)" in found.out
    assert "localStorage.setItem" in found.out
    method = cli("query", "Store.subscribe", "--db", db)
    assert "function store.Store.subscribe (store.ts:27)" in method.out


@pytest.mark.slow
def test_assigned_functions_are_found_by_the_name_the_code_writes(sample_dir: Path, tmp_path: Path) -> None:
    """``proto.use = function use`` is ``proto.use``, with its doc comment, code and callers."""
    db = tmp_path / "c.db"
    done = cli("index", sample_dir / "connect", "--db", db, "--provider", "none")
    assert done.code == 0, done.err
    assert "from a tree-sitter parse" in done.err
    found = cli("query", "proto.use", "--db", db, "--include-source")
    assert "## hit: function index.proto.use (index.js:" in found.out
    assert "proto.use = function use(route, fn) {" in found.out
    assert "Utilize the given middleware" in found.out  # its JSDoc, a blank line above it
    koa = tmp_path / "k.db"
    assert cli("index", sample_dir / "koa", "--db", koa, "--provider", "none").code == 0
    getter = cli("query", "request header getter", "--db", koa)
    assert "request.header" in getter.out


def test_unfit_files_are_left_out_with_one_line_each(tmp_path: Path) -> None:
    """A binary file, a 10 MB minified bundle and a file that is not UTF-8: one warning line
    each, no traceback, and the rest of the directory indexed. (Named `*.min.js`, a bundle is
    left out by its name before it is read: tests/shell/test_ignore_rules.py.)"""
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.js").write_text("/** Start the app. */\nfunction start() {\n  return 1;\n}\n")
    (project / "logo.js").write_bytes(b"\x00\x01PNG\x00function x() {}")
    bundle = "".join(f"function f{i}(a){{return a+{i}}}" for i in range(400_000))
    (project / "generated.js").write_text(bundle[: 10 * 1024 * 1024 - 1] + "\n")
    (project / "packed.js").write_text(bundle[: 1024 * 1024] + "\n")
    (project / "latin1.js").write_bytes(b"// caf\xe9\nfunction menu() {\n  return 2;\n}\n")
    done = cli("index", project, "--db", tmp_path / "p.db", "--provider", "none")
    assert done.code == 0, done.err
    assert "Traceback" not in done.err
    lines = done.err.splitlines()
    left_out = [line for line in lines if "left out, neither parsed nor indexed" in line]
    assert len(left_out) == 1
    assert "logo.js (binary)" in left_out[0] and "generated.js (larger than 4 MiB)" in left_out[0]
    assert "packed.js (minified: a line over 5000 characters)" in left_out[0]
    assert any("not valid UTF-8" in line and "latin1.js" in line for line in lines)
    found = cli("query", "menu", "--db", tmp_path / "p.db")
    assert "function latin1.menu (latin1.js:2)" in found.out
    assert "generated" not in cli("query", "f123", "--db", tmp_path / "p.db").out


def test_a_long_file_no_parser_reads_is_indexed_in_sections(tmp_path: Path) -> None:
    """A Ruby file (no grammar here) answers with the section that holds the match."""
    project = tmp_path / "project"
    project.mkdir()
    classes = [
        f"class Model{i}\n  def weight_{i}(order)\n    order.items.sum(&:weight) * {i}\n  end\nend\n"
        for i in range(40)
    ]
    (project / "models.rb").write_text("\n".join(classes))
    done = cli("index", project, "--db", tmp_path / "r.db", "--provider", "none")
    assert done.code == 0 and "models.rb" in done.err
    found = cli("query", "weight_31", "--db", tmp_path / "r.db", "--include-source")
    first = found.out.split("## ", 2)[1]
    assert first.startswith("hit: block models.") and "def weight_31(order)" in first
    assert "class Model0" not in first  # a section, not the whole file


def test_a_typescript_function_is_documented_above_its_overloads(tmp_path: Path) -> None:
    """TypeScript writes a function's doc comment above its overload signatures (mobx's
    ``observe``; immer's ``each`` splits one over lines): it documents the function, so its
    summary says it and its words find it; a bundler's annotation documents nothing."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "observe.ts").write_text(
        "/**\n * Registers a listener that fires whenever the watched value changes.\n */\n"
        "export function observe<T>(value: T[], listener: (change: T) => void): () => void\n"
        "export function observe<T>(\n    value: Map<string, T>,\n    listener: (change: T) => void\n"
        "): () => void\n"
        "export function observe(thing, listener): () => void {\n    return thing.subscribe(listener)\n}\n"
        "\n/*#__PURE__*/\nexport function undocumented(x: number): number {\n    return observe(x)\n}\n"
    )
    done = cli("index", project, "--db", tmp_path / "o.db", "--provider", "none")
    assert done.code == 0, done.err
    found = cli("query", "listener that fires whenever the watched value changes", "--db", tmp_path / "o.db")
    head = found.out.split("## hit: function observe.observe (observe.ts:9)", 1)
    assert len(head) == 2, found.out
    assert head[1].split("\n", 2)[1] == "Registers a listener that fires whenever the watched value changes."
    other = cli("query", "undocumented", "--db", tmp_path / "o.db").out
    assert "__PURE__" not in other.split("## hit: function observe.undocumented", 1)[1].split("```")[0]


@pytest.mark.slow
def test_an_edit_to_a_file_treeloom_skips_is_seen_by_the_next_run(sample_dir: Path, tmp_path: Path) -> None:
    """The CPG of a directory does not change when a skipped file does; the index still does."""
    root = tmp_path / "tsskipped"
    shutil.copytree(sample_dir / "tsskipped", root)
    db = tmp_path / "s.db"
    assert cli("index", root, "--db", db, "--provider", "none").code == 0
    store = root / "store.ts"
    store.write_text(store.read_text() + "\nexport function resetEverything(): void {}\n")
    again = cli("index", root, "--db", db, "--provider", "none")
    assert again.code == 0 and "treeloom skipped 1 file" in again.err  # the warning is said again
    assert "2 embedded, 9 unchanged" in again.out  # the new function and its module, whose text changed
    found = cli("query", "resetEverything", "--db", db)
    assert "function store.resetEverything" in found.out
