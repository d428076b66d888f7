"""Go, Rust, C, C++ and Java definitions treeloom does not emit, found by tree-sitter
(greploom.shell.outline (outline_go, outline_rust, outline_c, outline_java)) and merged into the index.

The samples (tests/samples/native) are small idiomatic files, one language
each, holding the forms treeloom 0.9 misses: a Go interface and its methods,
named non-struct types, an alias and a function in a package variable; a Rust
trait, union, type alias, ``macro_rules!``, a closure constant and impl
methods; a C header whose export macro (``RING_API``) makes treeloom skip it
(a typedef'd enum and struct, a function-pointer typedef, a function-like
macro, prototypes) and a C file with an enum; a C++ ``.h`` treeloom skips (it
reads ``.h`` as C) with in-class method declarations, ``enum class``, ``using``
aliases, an operator overload and a namespace; a Java annotation type and
lambdas held in fields.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from greploom.core.cpg import CpgData, CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.outline import FileOutline, Form, FoundDefinition
from greploom.shell.outline import available, outline_file
from greploom.shell.outline import available as native_available
from greploom.shell.outline import outline_file as outline_native
from greploom.shell.serde import load_cpg
from greploom.shell.sources import read_sources
from tests.cli_helpers import cli
from tests.conftest import build_cpg_file

SAMPLES = ("store.go", "cell.rs", "ring.h", "ring.c", "lru.h", "lru.cpp", "Registry.java")
# The forms each sample is written to show (every one must reach the index).
FORMS = {
    "store.go": {"declaration", "method", "prototype", "type", "variable"},
    "cell.rs": {"declaration", "method", "prototype", "type", "macro", "variable"},
    "ring.h": {"macro", "type", "prototype"},
    "ring.c": {"declaration", "type"},
    "lru.h": {"declaration", "method", "prototype", "type"},
    "lru.cpp": {"declaration"},
    "Registry.java": {"declaration", "method", "type", "variable"},
}


@pytest.fixture(scope="module")
def native_root(sample_dir: Path) -> Path:
    return sample_dir / "native"


@pytest.fixture(scope="module")
def native_db(native_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The samples indexed lexically, as a user would: ``greploom index DIR --provider none``."""
    db = tmp_path_factory.mktemp("native") / "native.db"
    done = cli("index", native_root, "--db", db, "--provider", "none")
    assert done.code == 0, done.err
    return db, done.err


@pytest.fixture(scope="module")
def merged(
    native_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[CpgData, tuple[NodeIdentity, ...]]:
    """treeloom's CPG of the samples with what their outlines add, and the index's identities."""
    cpg = build_cpg_file(native_root, tmp_path_factory.mktemp("cpg") / "native.json")
    data, _report = read_sources(load_cpg(cpg), native_root, walk=True)
    return data, node_identities(CpgGraph(data))


def _outline(name: str, text: str) -> FileOutline:
    found = outline_native(name, text.encode())
    assert found is not None  # the grammars come with the test extras
    return found


def _by_name(outline: FileOutline) -> dict[str, FoundDefinition]:
    return {d.name: d for d in outline.definitions}


# -- what a user sees ------------------------------------------------------------


def test_the_run_says_which_headers_it_parsed(native_db: tuple[Path, str]) -> None:
    """Both headers are skipped by treeloom, and indexed from the parse instead."""
    _db, err = native_db
    assert "treeloom skipped 2 files" in err
    assert "lru.h (12 definitions)" in err and "ring.h (9 definitions)" in err
    assert "definitions treeloom does not emit, from a tree-sitter parse:" in err and "prototype" in err


@pytest.mark.parametrize(
    ("words", "hit"),
    [
        ("Put saves a value under key until the ttl passes", "function store.Store.Put (store.go:30)"),
        ("something that wants to hear about events", "trait cell.Listener (cell.rs:7)"),
        ("Looks up key cached value", "function lru.cache.LruCache.lookup (lru.h:36)"),
        ("What a ring operation reports", "enum ring.ring_status (ring.h:20)"),
        (
            "handler class the registry loads at start-up",
            "@interface Registry.AutoRegister (Registry.java:15)",
        ),
        ("Stores the value unless the cell already holds one", "function cell.OnceCell.set (cell.rs:38)"),
        ("Trims and lower-cases a handler name", "function Registry.Registry.normalize (Registry.java:33)"),
        ("Get returns the live value of key", "function store.MemStore.Get (store.go:54)"),
    ],
)
def test_query_finds_what_treeloom_misses(native_db: tuple[Path, str], words: str, hit: str) -> None:
    """A Go interface method, a Rust trait, a C++ method declared in a skipped header, a C enum,
    a Java annotation type (shown as the code declares them); methods under their owner; a
    field's lambda under the field's name."""
    db, _err = native_db
    run = cli("query", words, "--db", db)
    assert run.code == 0 and f"## hit: {hit}" in run.out, run.out


def test_a_skipped_header_shows_its_code(native_db: tuple[Path, str]) -> None:
    db, _err = native_db
    run = cli(
        "query", "--node", "function:lru.h:cache.LruCache.lookup", "--node", "function:ring.h:RING_MIN",
        "--db", db, "--include-source",
    )  # fmt: skip
    assert "## hit: function lru.cache.LruCache.lookup (lru.h:36)" in run.out
    assert "Looks up key; true and the value in out when it is cached." in run.out
    assert "bool lookup(const Key& key, std::string* out);\n```" in run.out
    assert "#define RING_MIN(a, b) ((a) < (b) ? (a) : (b))\n```" in run.out


def test_names_and_owners_follow_the_code(merged: tuple[CpgData, tuple[NodeIdentity, ...]]) -> None:
    _data, identities = merged
    names = {(i.kind.value, i.qualname) for i in identities}
    expected = {
        ("class", "store.Store"),
        ("function", "store.Store.Get"),
        ("function", "store.Level.String"),  # treeloom's method, the receiver as owner
        ("class", "store.Clock"),
        ("function", "store.DefaultTTL"),
        ("function", "cell.Listener.notify"),  # a required method, inside its trait
        ("function", "cell.Listener.label"),  # treeloom's default method, moved into the trait
        ("function", "cell.Bus.fmt"),  # impl fmt::Display for crate::Bus<L>
        ("function", "cell.Echo.notify"),  # treeloom nests this one itself: not Echo.Echo
        ("class", "cell.RawId"),
        ("function", "cell.bus"),
        ("function", "cell.NORMALIZE"),
        ("class", "ring.ring_t"),  # typedef struct {...} ring_t
        ("class", "ring.ring_log_level"),
        ("function", "ring.ring_push"),  # the prototype in ring.h (and the function in ring.c)
        ("class", "ring.ring_visit_fn"),
        ("class", "lru.cache.LruCache"),
        ("function", "lru.cache.LruCache.operator=="),
        ("class", "lru.cache.LruCache.Entry"),
        ("function", "lru.cache.detail.stable_hash"),
        ("function", "lru.cache.LruCache::store"),  # lru.cpp, as treeloom names it, in its namespace
        ("function", "Registry.Registry.validName"),
    }
    assert expected <= names, sorted(expected - names)
    assert not any(".Echo.Echo." in q or "OnceCell.OnceCell" in q for _k, q in names)
    assert not any("lambda$" in q for _k, q in names if "Registry" in q and q.count(".") == 2)


def _present(node: CpgNode, found: FoundDefinition, file: str) -> bool:
    family = NodeKind.FUNCTION if found.kind is NodeKind.FUNCTION else found.kind
    if node.file != file or node.kind is not family or node.location is None:
        return False
    at = (node.line, node.location.column)
    return at in (found.value_at, found.name_at, found.start) and node.name in (
        found.name,
        found.name.rsplit(".", 1)[-1],
    )


@pytest.mark.parametrize("file", SAMPLES)
def test_every_form_the_outline_reports_is_indexed(
    file: str, native_root: Path, merged: tuple[CpgData, tuple[NodeIdentity, ...]]
) -> None:
    """Each definition the parse finds is in the index once: treeloom's where it emitted
    it (matched by position), the parse's otherwise; counted per form."""
    data, identities = merged
    outline = outline_file(file, (native_root / file).read_bytes())
    assert outline is not None
    indexed = {i.node_id for i in identities}
    nodes = [n for n in data.nodes if n.id in indexed and n.file == file and n.kind is not NodeKind.MODULE]
    found = Counter(d.form.value for d in outline.definitions)
    present = Counter(
        d.form.value for d in outline.definitions if sum(_present(n, d, file) for n in nodes) == 1
    )
    assert set(found) == FORMS[file]
    assert present == found
    assert len(nodes) == len(outline.definitions)  # and nothing else: no definition twice


# -- the rules, on small texts ---------------------------------------------------


def test_languages_with_a_grammar_are_available() -> None:
    for name in ("a.go", "b.rs", "c.c", "d.h", "e.cc", "f.hpp", "G.java"):
        assert native_available(name) and available(name)
    assert not native_available("notes.txt") and outline_native("notes.txt", b"x") is None


def test_a_header_is_read_as_the_language_it_parses_as() -> None:
    """C unless C++ parses it with fewer errors; prototypes count only in headers."""
    c_header = _outline("p.h", "typedef struct { int x; } Point;\nint area(Point *p);\n")
    point = _by_name(c_header)["Point"]
    assert point.form is Form.TYPE and point.value_at == (1, 8)  # where treeloom writes <anonymous>
    assert _by_name(c_header)["area"].form is Form.PROTOTYPE
    assert "area" not in _by_name(_outline("p.c", "int area(Point *p);\n"))
    cpp_header = _outline("s.h", "class S {\n public:\n  int get() const;\n};\n")
    assert _by_name(cpp_header)["get"].form is Form.PROTOTYPE and cpp_header.errors == 0


def test_rust_impl_methods_take_the_type_as_owner() -> None:
    code = (
        "struct A;\n"
        "impl A { fn plain(&self) {} }\n"
        "impl<T> Cell<T> { fn generic(&self) {} }\n"
        "impl fmt::Display for crate::Bus<X> { fn fmt(&self) {} }\n"
    )
    found = _by_name(_outline("x.rs", code))
    assert found["plain"].owner == ""  # treeloom nests it in struct A already
    assert found["generic"].owner == "Cell" and found["fmt"].owner == "Bus"
    assert found["fmt"].value_at == (4, 38) and found["fmt"].form is Form.METHOD
    skipped = _by_name(_outline("y.rs", code + "fn broken( {}\n"))  # treeloom drops this file
    assert skipped["plain"].owner == "A"


def test_cpp_out_of_class_definitions_are_named_as_treeloom_names_them() -> None:
    code = "namespace a::b {\nint Foo::bar(int x) { return x; }\n}\n"
    parsed = _by_name(_outline("f.cc", code))["Foo::bar"]
    assert parsed.owner == "a.b" and parsed.value_at == (2, 0)
    skipped = _by_name(_outline("g.cc", code + "int broken( {\n"))["bar"]
    assert skipped.owner == "a.b.Foo"
    more = _by_name(_outline("h.cc", "struct P { int x; } origin;\nenum class Color : int { Red };\n"))
    assert more["P"].form is Form.DECLARATION and more["Color"].keyword == "enum"


def test_macros_that_break_the_parse_are_read_past() -> None:
    """``RING_API`` before a prototype, a calling convention before a name: the definition is
    found at its real position, and its statement starts at the macro."""
    code = (
        '#define RING_API __attribute__((visibility("default")))\n'
        "RING_API ring_t *ring_new(size_t capacity);\n"
        "static PyObject *FASTCALL_MSVC decode_true(struct State *ds) { return call(ds); }\n"
    )
    found = _outline("r.h", code)
    by_name = _by_name(found)
    assert by_name["ring_new"].start == (2, 0) and by_name["ring_new"].name_at == (2, 17)
    assert by_name["decode_true"].name_at == (3, 31) and by_name["decode_true"].value_at == (3, 0)
    assert [c.name for c in found.calls] == ["call"] and found.errors == 0


def test_go_types_sit_at_their_name_and_methods_name_the_receiver() -> None:
    code = (
        "package p\n"
        "// Box holds one value.\n"
        "type Box[T any] struct{ v T }\n"
        "func (b *Box[T]) Get() T { return b.v }\n"
        "type Level uint32\n"
    )
    found = _by_name(_outline("p.go", code))
    assert found["Box"].start == (3, 0) and found["Box"].value_at == (3, 5)
    assert found["Get"].owner == "Box" and found["Level"].form is Form.TYPE


def test_java_anonymous_classes_hold_no_definitions() -> None:
    code = (
        "class A {\n"
        "  Runnable r = new Runnable() { public void run() { go(); } };\n"
        "  enum Op { ADD { int apply() { return 1; } } }\n"
        "}\n"
    )
    found = _outline("A.java", code)
    assert "run" not in _by_name(found) and "apply" in _by_name(found)  # treeloom emits the enum's
    assert "go" in [c.name for c in found.calls]
