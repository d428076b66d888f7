"""Collections end to end: a greploom.toml, real indexes of two samples, one answer over both.

The workspace holds copies of the Python and JavaScript samples (and a second copy of
the Python one, whose keys are all the same as the first's), a config naming them,
and the indexes `greploom index` builds from it; the MCP tests talk to a real
`greploom serve` over stdio.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from greploom.shell.tokens import count_tokens
from tests.cli_helpers import GREPLOOM, cli, cli_process, said

CONFIG = """\
[collections.shop]
path = "pyshop"
provider = "none"

[collections.js]
path = "jsutil"
provider = "none"

[collections.twin]   # the same code as shop: every key collides with one of shop's
path = "twin"
provider = "none"
exclude = ["shop/net.py"]
"""
QUESTION = "cart total capitalize words"


@pytest.fixture(scope="module")
def space(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder with its greploom.toml and three collections indexed from it."""
    root = tmp_path_factory.mktemp("collections")
    shutil.copytree(sample_dir / "pyshop", root / "pyshop")
    shutil.copytree(sample_dir / "pyshop", root / "twin")
    shutil.copytree(sample_dir / "jsutil", root / "jsutil")
    (root / "greploom.toml").write_text(CONFIG)
    run = cli("index", "--config", root / "greploom.toml")
    assert run.code == 0, run.err
    return root


def test_index_indexes_every_collection(space: Path) -> None:
    """Without PATH every collection is indexed into its own file beside the config, one line each."""
    assert all((space / ".greploom" / f"{name}.db").is_file() for name in ("shop", "js", "twin"))
    run = cli("index", "--config", space / "greploom.toml")
    assert run.code == 0
    lines = run.out.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == ["js", "shop", "twin"]
    assert all("0 embedded" in line for line in lines)  # nothing changed since the first run


def test_index_dash_c_indexes_one(space: Path) -> None:
    """`-c NAME` runs that collection alone; the collection's exclude left a file out."""
    run = cli("index", "-c", "twin", "--config", space / "greploom.toml")
    assert run.code == 0, run.err
    assert run.out.startswith("twin: ") and len(run.out.splitlines()) == 1
    shown = cli("query", "send order", "-c", "twin", "--config", space / "greploom.toml", "--format", "json")
    assert all(r["file"] != "shop/net.py" for r in shown.json()["results"])


def test_index_finds_the_nearest_config_above(space: Path) -> None:
    """Run from a subfolder, `greploom index` finds the project's greploom.toml (as a user runs it)."""
    run = cli_process("index", "-c", "js", cwd=space / "pyshop" / "shop")
    assert run.code == 0, run.err
    assert run.out.startswith("js: ")


def test_query_two_collections_is_one_answer(space: Path) -> None:
    """One ranking and one budget over two indexes; every block names its collection."""
    budget = 1500
    args = ("query", QUESTION, "-c", "shop", "-c", "js", "--config", space / "greploom.toml")
    text = cli(*args, "--budget", budget)
    assert text.code == 0, text.err
    header, *_ = text.out.splitlines()
    assert "over collections js, shop" in header
    blocks = [line for line in text.out.splitlines() if line.startswith("## ")]
    assert blocks and all(" collection: js " in b or " collection: shop " in b for b in blocks)
    assert {" collection: js " in b for b in blocks} == {True, False}  # both collections answer
    assert count_tokens(text.out) <= budget
    # A JSON result carries its structure: the same ten hits need more room as JSON.
    envelope = cli(*args, "--budget", 3 * budget, "--format", "json").json()
    meta, results = envelope["metadata"], envelope["results"]
    assert meta["tokens_used"] <= 3 * budget
    assert [c["name"] for c in meta["collections"]] == ["js", "shop"]
    assert {r["collection"] for r in results} == {"js", "shop"}
    hits = [r for r in results if r["relationship"] == "hit"]
    assert len(hits) == meta["hits"] == meta["top_k"]


def test_naming_order_does_not_matter(space: Path) -> None:
    """`-c js -c shop` answers exactly as `-c shop -c js`."""
    config = space / "greploom.toml"
    a = cli("query", QUESTION, "-c", "shop", "-c", "js", "--config", config, "--format", "json").json()
    b = cli("query", QUESTION, "-c", "js", "-c", "shop", "--config", config, "--format", "json").json()
    assert a["results"] == b["results"]


def test_same_keys_in_two_collections_never_collide(space: Path) -> None:
    """shop and twin hold the same keys: both copies are shown, each under its own collection."""
    run = cli(
        "query",
        "Cart total",
        "-c",
        "shop",
        "-c",
        "twin",
        "--config",
        space / "greploom.toml",
        "--format",
        "json",
        "--top-k",
        "4",
    )
    assert run.code == 0, run.err
    results = run.json()["results"]
    pairs = [(r["collection"], r["key"]) for r in results]
    assert len(set(pairs)) == len(pairs)
    keys_of = {name: {k for c, k in pairs if c == name} for name in ("shop", "twin")}
    assert keys_of["shop"] & keys_of["twin"]  # one key, two blocks


def test_one_collection_answers_as_its_db(space: Path) -> None:
    """A single -c is --db on that collection's file, its blocks labelled."""
    config = space / "greploom.toml"
    by_c = cli("query", QUESTION, "-c", "shop", "--config", config, "--format", "json").json()["results"]
    by_db = cli("query", QUESTION, "--db", space / ".greploom" / "shop.db", "--format", "json").json()[
        "results"
    ]
    assert [r["key"] for r in by_c] == [r["key"] for r in by_db]
    assert {r["collection"] for r in by_c} == {"shop"}
    assert all("collection" not in r for r in by_db)


def test_node_lookup_over_collections(space: Path) -> None:
    """--node with -c looks the key up in each collection named."""
    run = cli(
        "query",
        "--node",
        "function:shop/cart.py:Cart.total",
        "-c",
        "shop",
        "-c",
        "twin",
        "--config",
        space / "greploom.toml",
        "--format",
        "json",
    )
    assert run.code == 0, run.err
    hits = [r for r in run.json()["results"] if r["relationship"] == "hit"]
    assert sorted(r["collection"] for r in hits) == ["shop", "twin"]


def test_unknown_collection_lists_the_known(space: Path) -> None:
    """A name the file does not have is bad usage: one line naming the file and every collection."""
    run = cli("query", "cart", "-c", "nope", "--config", space / "greploom.toml")
    assert run.code == 2
    assert said(run.err) == [said(run.err)[0]]
    assert "'nope'" in run.err and "js, shop, twin" in run.err and "greploom.toml" in run.err


def test_collections_and_db_contradict(space: Path) -> None:
    """-c takes the config's indexes; --db names another: an error, not a guess."""
    run = cli("query", "cart", "-c", "shop", "--db", "x.db", "--config", space / "greploom.toml")
    assert run.code == 2 and "--db" in run.err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[collections.a\npath = 'x'\n", "not valid TOML"),
        ("[collections.a]\npath = 'src'\nexlcude = ['gen/']\n", "collections.a.exlcude"),
        ("[collections.a]\nexclude = ['gen/']\n", "collections.a needs one of path"),
        ("[collections.a]\npath = 3\n", "collections.a.path must be"),
        ("[collections.a]\npath = 'src'\ninclude = 'x'\n", "collections.a.include must be a list"),
        ("[collections.a]\npath = 'missing'\n", "does not exist"),
        ("[colections.a]\npath = 'src'\n", "unknown key colections"),
        ("[collections.'a b']\npath = 'src'\n", "a collection name is"),
        ("[collections.a]\npath = 'src'\nprovider = 'magic'\n", "collections.a.provider 'magic'"),
        ("[collections.a]\npath = 'src'\ninclude = ['!x']\n", "collections.a.include '!x' would re-include"),
        ("[collections.a]\npath = 'src'\nexclude = ['# x']\n", "collections.a.exclude '# x' is not"),
        # Collections that would write one index file, or one another keeps beside its own:
        ("[collections.a]\npath = 'src'\n[collections.b]\npath = 'src'\ndb = '.greploom/a.db'\n", "share"),
        ("[collections.a]\npath = 'src'\n[collections.b]\npath = 'src'\ndb = '.greploom/A.db'\n", "share"),
        ("[collections.a]\npath = 'src'\n[collections.b]\npath = 'src'\ndb = '.greploom/a.parts.db'\n", "sh"),
        ("[collections.'a.parts']\npath = 'src'\n", "rename it"),
        ("[collections.index]\npath = 'src'\n", "`greploom index`'s"),
    ],
)
def test_malformed_config_is_one_line(tmp_path: Path, text: str, expected: str) -> None:
    """Every mistake in the file is exit 2 and one line naming the file and the key, no traceback."""
    (tmp_path / "src").mkdir()
    config = tmp_path / "greploom.toml"
    config.write_text(text)
    run = cli("index", "--config", config)
    assert run.code == 2, run.err
    lines = said(run.err)
    assert len(lines) == 1 and lines[0].startswith("greploom: error: ")
    assert str(config) in lines[0] and expected in lines[0]
    assert "Traceback" not in run.err


def test_a_tight_budget_holds_over_collections(space: Path) -> None:
    """Over three collections the text stays within small budgets, and the JSON within its own."""
    args = ("query", QUESTION, "-c", "shop", "-c", "js", "-c", "twin", "--config", space / "greploom.toml")
    for budget in (200, 400):
        text = cli(*args, "--budget", budget)
        assert text.code == 0, text.err
        assert count_tokens(text.out) <= budget
    envelope = cli(*args, "--budget", 1000, "--format", "json")
    assert envelope.code == 0, envelope.err
    assert envelope.json()["metadata"]["tokens_used"] <= 1000


def test_a_query_without_c_beside_a_config_says_so(space: Path) -> None:
    """No index at the default file, and a greploom.toml here: the error says to pass -c."""
    run = cli_process("query", "cart total", cwd=space / "pyshop")
    assert run.code == 4
    assert "names collections: search them with -c NAME" in run.err and "Traceback" not in run.err


def test_no_config_anywhere(tmp_path: Path) -> None:
    """`greploom index` with no PATH and no config says what to write (run where none is above)."""
    run = cli_process("index", cwd=tmp_path)
    if run.code == 0:  # pragma: no cover - a greploom.toml above the temporary folder
        pytest.skip("a config file above the temporary folder")
    assert run.code == 2 and "greploom.toml" in run.err and "Traceback" not in run.err


def test_pyproject_table_and_several_paths(space: Path, tmp_path: Path) -> None:
    """[tool.greploom] in pyproject.toml is read; a collection of two folders is one index of
    both, kept to them (the folder beside them is not walked), include globs narrowing it."""
    for name in ("pyshop", "jsutil", "twin"):
        shutil.copytree(space / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.greploom.collections.both]\n"
        "paths = ['pyshop', 'jsutil']\ninclude = ['*.js', 'cart.py']\n"
    )
    run = cli_process("index", cwd=tmp_path)
    assert run.code == 0, run.err
    assert run.out.startswith("both: ")
    found = cli_process(
        "query", "total capitalize", "-c", "both", "--format", "json", "--top-k", "10", cwd=tmp_path
    )
    assert found.code == 0, found.err
    files = {r["file"] for r in found.json()["results"]}
    assert files <= {"pyshop/shop/cart.py", "jsutil/strings.js", "jsutil/index.js"}
    assert "pyshop/shop/cart.py" in files and any(f.startswith("jsutil/") for f in files)
    assert "not matching include" in run.err  # pricing.py, net.py, __init__.py counted


def _stdio(space: Path) -> Client[Any]:
    transport = StdioTransport(
        command=str(GREPLOOM),
        args=["serve", "--transport", "stdio", "--db", str(space / ".greploom" / "shop.db")],
        cwd=str(space),
    )
    return Client(transport)


def test_mcp_search_code_over_collections(space: Path) -> None:
    """search_code and get_node_context take `collections` (the server's greploom.toml, found from
    its working directory); an unknown name is a ToolError listing the known ones."""

    async def go() -> None:
        async with _stdio(space) as client:
            found = await client.call_tool(
                "search_code", {"query": QUESTION, "collections": ["shop", "js"], "budget": 1500}
            )
            envelope = found.structured_content
            assert envelope["metadata"]["tokens_used"] <= 1500
            assert {r["collection"] for r in envelope["results"]} == {"js", "shop"}
            assert " collection: " in found.content[0].text
            node = await client.call_tool(
                "get_node_context",
                {"node_ids": ["function:shop/cart.py:Cart.total"], "collections": ["twin"]},
            )
            assert {r["collection"] for r in node.structured_content["results"]} == {"twin"}
            plain = await client.call_tool("search_code", {"query": QUESTION})
            assert all("collection" not in r for r in plain.structured_content["results"])
            with pytest.raises(ToolError, match="js, shop, twin"):
                await client.call_tool("search_code", {"query": "cart", "collections": ["nope"]})
            with pytest.raises(ToolError):  # an empty list would search the server's one index
                await client.call_tool("search_code", {"query": "cart", "collections": []})
            with pytest.raises(ToolError, match="db_path"):
                await client.call_tool(
                    "search_code", {"query": "cart", "collections": ["shop"], "db_path": "x.db"}
                )

    asyncio.run(go())
