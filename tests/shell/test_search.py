"""Search on real indexes: the definitions a query names are always candidates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from greploom.core.locations import query_locations
from greploom.core.ranking import named_symbols
from greploom.shell.store import IndexStore
from tests.cli_helpers import cli
from tests.conftest import build_cpg_file

ENGINE = '''
class Engine:
    """A machine that turns fuel into motion."""

{methods}
'''
METHOD = '''    def step_{i}(self, fuel):
        """Advance the cycle by one stroke."""
        total = fuel * {i}
        for stroke in range(4):
            total = total + stroke * fuel - {i}
        return total
'''
PART = '''
def part_{i}(engine):
    """Fit a part to the engine: the engine's engine mount holds the engine."""
    return engine.engine_mount(engine, {i})
'''


@pytest.fixture(scope="module")
def garage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lexical-only index of a code base where every row mentions `engine`.

    The word is in every path and most bodies, so BM25 gives it no weight and
    prefers short bodies that repeat it over the long class that defines it.
    """
    root = tmp_path_factory.mktemp("garage")
    package = root / "engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    methods = "\n".join(METHOD.format(i=i) for i in range(30))
    (package / "engine.py").write_text(ENGINE.format(methods=methods))
    (package / "engine_parts.py").write_text("".join(PART.format(i=i) for i in range(20)))
    cpg = build_cpg_file(root, root / "cpg.json")
    db = root / "index.db"
    assert cli("index", cpg, "--db", db, "--provider", "none").code == 0
    return db


@pytest.fixture(scope="module")
def indexed_pyshop(pyshop_cpg: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("idx") / "index.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    return db


def test_a_symbol_query_finds_the_definition_bm25_misses(garage: Path) -> None:
    """`Engine` answers with class Engine first, however little BM25 thinks of it."""
    store = IndexStore.open_existing(garage)
    try:
        lexical = [k for k, _ in store.search_lexical('"engine"', 30)]
    finally:
        store.close()
    assert lexical[0] != "class:engine/engine.py:Engine"  # the trap is real
    for query in ("Engine", "engine.Engine", "Engine()"):
        results = cli("query", query, "--db", garage, "--format", "json", "--top-k", "3").json()["results"]
        assert results[0]["key"] == "class:engine/engine.py:Engine", query


def test_every_definition_is_found_by_its_names(indexed_pyshop: Path) -> None:
    """The name lookup finds each function, class and module by its name and its qualified name,
    in their case or all in lower case."""
    store = IndexStore.open_existing(indexed_pyshop)
    try:
        rows = list(store.conn.execute("SELECT key, name, qualname FROM nodes"))
        assert len(rows) == 19
        for key, name, qualname in rows:
            for text in (name, qualname, qualname.lower()):
                assert key in store.definitions_named(named_symbols(text), 100), (key, text)
            # Smart case: a capital asks for that case.
            assert key not in store.definitions_named(named_symbols(qualname.upper()), 100)
        # A whole qualified name comes before a name that only ends like it.
        cart = store.definitions_named(named_symbols("shop.cart.Cart"), 100)
        assert cart[0] == "class:shop/cart.py:Cart"
        assert store.definitions_named((), 10) == [] and store.definitions_named(("zebra",), 10) == []
    finally:
        store.close()


def test_an_index_run_adds_the_lookup_indexes_to_an_older_file(pyshop_cpg: Path, tmp_path: Path) -> None:
    """A file from before the name and file indexes answers the same; the next index run adds them."""
    db = tmp_path / "old.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    store = IndexStore.open_existing(db)
    try:
        store.conn.execute("DROP INDEX nodes_by_name")
        store.conn.execute("DROP INDEX nodes_by_file")
        placed = store.definitions_at(query_locations("shop/cart.py:29"))
        before = store.definitions_named(("Cart", "backoff_delay"), 10)
    finally:
        store.close()
    assert before == ["class:shop/cart.py:Cart", "function:shop/net.py:backoff_delay"]
    first = cli("query", "Cart", "--db", db, "--format", "json").json()["results"][0]["key"]
    assert first == "class:shop/cart.py:Cart"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    store = IndexStore.open_existing(db)
    try:
        names = [n for (n,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
        assert {"nodes_by_name", "nodes_by_file"} <= set(names)
        assert store.definitions_named(("Cart", "backoff_delay"), 10) == before
        assert store.definitions_at(query_locations("shop/cart.py:29")) == placed == [
            "function:shop/cart.py:Cart.total"
        ]
    finally:
        store.close()


def test_a_place_in_the_query_answers_with_its_definition(indexed_pyshop: Path) -> None:
    """`cart.py:29`, a traceback's frames, a bare file: the definitions they point at come first."""

    def top(query: str, k: int = 1) -> list[str]:
        results = cli("query", query, "--db", indexed_pyshop, "--format", "json", "--top-k", "5").json()
        return [r["key"] for r in results["results"][:k]]

    assert top("shop/cart.py:29") == ["function:shop/cart.py:Cart.total"]
    assert top("why is this wrong (cart.py:41:12)?") == ["function:shop/cart.py:GiftCart.total"]
    assert top("cart.py:17") == ["class:shop/cart.py:Cart"]  # in the class, outside its methods
    assert top("shop/cart.py") == ["module:shop/cart.py"]
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/home/dev/.venv/lib/python3.11/site-packages/shop/cart.py", line 24, in add_item\n'
        "    self.items.append(item)\n"
        '  File "/home/dev/.venv/lib/python3.11/site-packages/shop/cart.py", line 41, in total\n'
        "    return base * 2\n"
        "ValueError: bad total\n"
    )
    assert top(traceback, 2) == [
        "function:shop/cart.py:GiftCart.total",
        "function:shop/cart.py:Cart.add_item",
    ]
    # A place in no indexed file changes nothing: the query is answered as words, and says so.
    assert top("lib/other.py:3 cart total", 5) == top("cart total", 5)
    missed = cli("query", "lib/other.py:3 cart total", "--db", indexed_pyshop)
    assert missed.code == 0
    assert missed.out.splitlines()[0].endswith(" | place not found: lib/other.py:3")
    assert "no indexed file matches lib/other.py:3; answered as words" in missed.err
    found = cli("query", "shop/cart.py:29", "--db", indexed_pyshop, "--format", "json")
    assert found.json()["metadata"]["places_not_found"] == [] and found.err == ""


GREETING = '''
def greet(name, punctuation="!"):
    """{doc}"""
    words = ["hello", name]
    return " ".join(words) + punctuation
'''


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package that keeps its old API beside the new one (pkg/v1/ beside pkg/v2/), and its tests.

    The old copy's docstring says more of the query's words than the new one's,
    so BM25 alone prefers it.
    """
    root = tmp_path_factory.mktemp("versioned")
    for folder in ("pkg", "pkg/v1", "pkg/v2", "tests"):
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text("")
    old = "Say hello to someone by name: hello, name, and an exclamation mark."
    (root / "pkg/v1/greeting.py").write_text(GREETING.format(doc=old))
    (root / "pkg/v2/greeting.py").write_text(GREETING.format(doc="Say hello to someone."))
    (root / "tests/test_greeting.py").write_text(
        "from pkg.v2.greeting import greet\n\n\ndef test_greet():\n    assert greet('ada') == 'hello ada!'\n"
    )
    db = root / "index.db"
    assert cli("index", root, "--db", db, "--provider", "none").code == 0
    return db


def test_current_code_ranks_above_its_legacy_copy(versioned: Path) -> None:
    """greet of pkg/v2 comes before the pkg/v1 copy BM25 prefers, which stays among the results;
    a query that says v1 gets the v1 tree first."""
    old, new = "function:pkg/v1/greeting.py:greet", "function:pkg/v2/greeting.py:greet"

    def keys(query: str, ranking: str = "signals") -> list[str]:
        run = cli("query", query, "--db", versioned, "--format", "json", "--top-k", "5", "--ranking", ranking)
        assert run.code == 0, run.err
        return [r["key"] for r in run.json()["results"]]

    question = "say hello to someone by name"
    assert keys(question, "plain").index(old) < keys(question, "plain").index(new)  # the trap is real
    for query in (question, "greet", "greeting.greet"):
        found = keys(query)
        assert found.index(new) < found.index(old), query
    for query in ("v1 greet", "say hello to someone by name in v1"):
        found = keys(query)
        # First the v1 tree (for "v1 greet" its empty __init__.py: BM25 likes short rows), its greet
        # before the current one.
        assert found[0].split(":")[1].startswith("pkg/v1/") and found.index(old) < found.index(new), query
    assert keys("say hello to someone by name in v1")[0] == old


def test_tests_crowding_the_candidates_do_not_hide_the_product(tmp_path: Path) -> None:
    """A question that does not ask about tests gets the product code first, even when tests
    fill the whole first page of a backend's candidates (that backend is asked deeper)."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "headers.py").write_text(
        'def split_fields(raw):\n    """Break a raw header value into its fields."""\n'
        '    return [part.strip() for part in raw.split(";")]\n'
    )
    cases = "".join(
        f'def test_parse_header_value_{i}():\n    """Parse the header value, parse the header value {i}."""\n'
        f'    assert split_fields("a; b{i}") == ["a", "b{i}"]  # parse header value\n\n\n'
        for i in range(14)
    )
    (root / "tests" / "test_headers.py").write_text("from pkg.headers import split_fields\n\n\n" + cases)
    db = _indexed(root, tmp_path)
    found = _results(db, "where do we parse the header value")
    assert found[0]["key"] == "function:pkg/headers.py:split_fields"
    assert _results(db, "which tests parse the header value")[0]["file"] == "tests/test_headers.py"


def test_old_copies_crowding_the_candidates_do_not_hide_the_current_code(tmp_path: Path) -> None:
    """Old code crowds a backend's candidates as tests do (pydantic's v1/ copies filled the ten
    vector candidates of a question about its current decorator): that backend is asked deeper,
    and the current definition comes first; a question naming the tree gets the copies."""
    root = tmp_path / "proj"
    (root / "pkg" / "v1").mkdir(parents=True)
    (root / "pkg" / "headers.py").write_text(
        'def split_fields(raw):\n    """Break a raw header value into its fields."""\n'
        '    return [part.strip() for part in raw.split(";")]\n'
    )
    copies = "".join(
        f'def parse_header_value_{i}(raw):\n    """Parse the header value, parse the header value {i}."""\n'
        f'    return raw.split(";")  # parse header value\n\n\n'
        for i in range(14)
    )
    (root / "pkg" / "v1" / "headers.py").write_text(copies)
    db = _indexed(root, tmp_path)
    current = "function:pkg/headers.py:split_fields"
    assert _results(db, "where do we parse the header value")[0]["key"] == current
    assert _results(db, "where does v1 parse the header value")[0]["file"] == "pkg/v1/headers.py"


WHOLE = '''class Request:
    def prepare(self, m, u, h, b):
        """Get everything ready."""
        self._verb(m)
        self._target(u)
        self._fields(h)
        self._payload(b)
        return self

    def _verb(self, m):
        """Normalise the HTTP method of the request."""
        self.m = m.upper()

    def _target(self, u):
        """Quote the url of the request."""
        self.u = u.strip()

    def _fields(self, h):
        """Lower-case the names of the headers of the request."""
        self.h = {k.lower(): v for k, v in h.items()}

    def _payload(self, b):
        """Encode the body of the request as bytes."""
        self.b = b.encode()
'''


def test_the_definition_calling_the_matching_parts_answers_for_the_whole(tmp_path: Path) -> None:
    """A question describing a whole matches each part a little and the whole hardly at all;
    the method that calls the parts comes first, before a lone function of another file that
    matches better than any part (requests' ``prepare`` calling its ``prepare_*``)."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "request.py").write_text(WHOLE)
    (root / "pkg" / "log.py").write_text(
        "def log_request(method, url, headers, body):\n"
        '    """Log the method, url, headers and body of a request."""\n'
        "    print(method, url, headers, body)\n"
    )
    db = _indexed(root, tmp_path)
    question = "get the method, url, headers and body of a request ready to send"
    found = [r["key"] for r in _results(db, question)]
    assert found[:2] == ["function:pkg/request.py:Request.prepare", "function:pkg/log.py:log_request"]


FACTORY = """import { MaxLengthCheck } from "./checks";

/** A check that a string or an array is no longer than the maximum length. */
export function _maxLength(maximum: number, message?: string): MaxLengthCheck {
  const check = new MaxLengthCheck({ maximum, message });
  return check;
}

/** The string without whitespace at either end. */
export function _trimmed(value: string): string {
  return value.trim();
}
"""
BUILT = """export class MaxLengthCheck {
  maximum = 0;

  run(value: string | unknown[]): boolean {
    return value.length <= this.maximum;
  }
}
"""


def test_a_private_factory_gives_its_place_to_what_it_builds(tmp_path: Path) -> None:
    """zod's ``_maxLength`` says the question's words (its doc, its parameters) and only news
    the check that enforces them: the check comes first, the factory right after it; named,
    the factory is found first."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "api.ts").write_text(FACTORY)
    (root / "src" / "checks.ts").write_text(BUILT)
    db = _indexed(root, tmp_path)
    found = [r["key"] for r in _results(db, "reject a string or an array longer than the maximum length")]
    assert found[:2] == ["class:src/checks.ts:MaxLengthCheck", "function:src/api.ts:_maxLength"]
    assert _results(db, "_maxLength")[0]["key"] == "function:src/api.ts:_maxLength"


def test_the_calls_among_candidates_are_read_from_either_end_of_each_edge(tmp_path: Path) -> None:
    """``calls_among``: the calls between the keys given, once each, none to keys not given; an
    edge the caller's row has lost is still known from the callee's callers."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "request.py").write_text(WHOLE)
    db = _indexed(root, tmp_path)
    whole, parts = "function:pkg/request.py:Request.prepare", ["_verb", "_target", "_fields", "_payload"]
    keys = [f"function:pkg/request.py:Request.{p}" for p in parts]
    store = IndexStore.open_existing(db)
    try:
        assert store.calls_among([whole, *keys]) == {whole: sorted(keys)}
        assert store.calls_among([whole, keys[0], "function:pkg/nowhere.py:f"]) == {whole: [keys[0]]}
        assert store.calls_among(keys) == {}
        with store.write():
            emptied = "UPDATE nodes SET structure = json_set(structure, '$.callees', json('[]'))"
            store.conn.execute(emptied + " WHERE key = ?", (whole,))
        assert store.calls_among([whole, *keys]) == {whole: sorted(keys)}
    finally:
        store.close()


OLD_API = '''import warnings
from typing import overload

from typing_extensions import deprecated


@overload
def validate_arguments(func: None = None) -> None: ...


@overload
def validate_arguments(func: object) -> object: ...


@deprecated("The `validate_arguments` method is deprecated; use `validate_call` instead.")
def validate_arguments(func=None):
    """Decorator to validate the arguments passed to a function."""
    warnings.warn(
        "The `validate_arguments` method is deprecated; use `validate_call` instead.", DeprecationWarning
    )
    return func
'''


def test_an_old_api_kept_twice_gives_way_to_what_replaces_it(tmp_path: Path) -> None:
    """The deprecation mark on an overloaded definition's implementation names its successor,
    and the same old API copied into ``v1/`` without a mark gives way to it too; a question
    asking for the v1 one still gets it."""
    root = tmp_path / "proj"
    for tree in ("pkg/deprecated", "pkg/v1"):
        (root / tree).mkdir(parents=True)
    (root / "pkg" / "validate_call.py").write_text(
        'def validate_call(func):\n    """Wrap a function so its call is checked against its hints."""\n'
        "    return func\n"
    )
    (root / "pkg" / "deprecated" / "decorator.py").write_text(OLD_API)
    (root / "pkg" / "v1" / "decorator.py").write_text(
        "def validate_arguments(func=None):\n"
        '    """Decorator to validate the arguments passed to a function."""\n'
        "    return func\n"
    )
    db = _indexed(root, tmp_path)
    found = _results(db, "validate the arguments passed to a function")
    assert found[0]["key"] == "function:pkg/validate_call.py:validate_call"
    assert _results(db, "the v1 validate_arguments decorator")[0]["file"] == "pkg/v1/decorator.py"


def _indexed(root: Path, tmp_path: Path) -> Path:
    """An index of ``root``, offline (no embedder)."""
    db = tmp_path / "i.db"
    assert cli("index", root, "--db", db, "--provider", "none").code == 0
    return db


def _results(db: Path, question: str) -> list[dict[str, Any]]:
    """The JSON results of a query, which must succeed."""
    found = cli("query", question, "--db", db, "--format", "json")
    assert found.code == 0, found.err
    results: list[dict[str, Any]] = found.json()["results"]
    return results
