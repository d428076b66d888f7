"""Related code: `query --like KEY` and the MCP tool `find_related`.

A real index of the Python sample, built by the real CLI (with vectors, and
lexical-only); the answer holds the definitions nearest the given one in
meaning and in the graph, never the definition itself, within the budget.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from greploom.shell.store_file import connect
from greploom.shell.tokens import count_tokens
from tests.cli_helpers import cli, cli_process, said
from tests.shell.test_mcp import http_server, stdio
from tests.shell.test_resident import answered, query, server

TOTAL = "function:shop/cart.py:Cart.total"
CALLEE = "function:shop/pricing.py:total_price"
SIBLING = "function:shop/cart.py:Cart.add_item"
HEADER = re.compile(r"^# greploom: related to (\S+) \((\d+) by meaning, (\d+) by the graph\) \| ")


@pytest.fixture(scope="module")
def indexed(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(source copy, index with vectors, lexical-only index) of the Python sample."""
    root = tmp_path_factory.mktemp("related") / "proj"
    shutil.copytree(sample_dir / "pyshop", root)
    db = root / ".greploom" / "index.db"
    lexical = root / ".greploom" / "lexical.db"
    for args in ((db,), (lexical, "--provider", "none")):
        run = cli("index", root, "--db", *args)
        assert run.code == 0, run.err
    return root, db, lexical


def _keys(answer: dict[str, object]) -> list[str]:
    results = answer["results"]
    assert isinstance(results, list)
    return [str(r["key"]) for r in results]


def test_a_method_s_relatives_hold_its_callee_and_class_sibling_never_itself(
    indexed: tuple[Path, Path, Path],
) -> None:
    """Cart.total calls total_price and shares class Cart with add_item: both are related, by
    meaning and by the graph; Cart.total itself is not, not even reached from a neighbour."""
    _root, db, _ = indexed
    run = cli("query", "--like", "Cart.total", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    answer = run.json()
    keys = _keys(answer)
    assert {CALLEE, SIBLING} <= set(keys) and TOTAL not in keys
    meta = answer["metadata"]
    assert (meta["search_mode"], meta["like"], meta["meaning"]) == ("related", TOTAL, "vectors")
    assert meta["by_meaning"] >= 1 and meta["by_graph"] >= 2 and meta["lexical"] is None
    text = cli("query", "--like", TOTAL, "--db", db)
    header = HEADER.match(text.out)
    assert text.code == 0 and header is not None, text.out[:300]
    assert header.group(1) == TOTAL and int(header.group(3)) >= 2
    assert f"key: {CALLEE}" in text.out and f"key: {SIBLING}" in text.out
    assert f"key: {TOTAL}" not in text.out
    deep = cli("query", "--like", TOTAL, "--db", db, "--depth", "2", "--format", "json")
    assert deep.code == 0 and TOTAL not in _keys(deep.json())


def test_a_lexical_only_index_searches_the_summary_as_words_and_says_so(
    indexed: tuple[Path, Path, Path],
) -> None:
    """No vectors: meaning is the definition's summary searched as words; the graph is the same."""
    _root, db, lexical = indexed
    run = cli("query", "--like", "shop.pricing.total_price", "--db", lexical, "--format", "json")
    assert run.code == 0, run.err
    answer = run.json()
    keys = _keys(answer)
    # total_price calls apply_discount and add_tax; Cart.total calls it
    assert {"function:shop/pricing.py:apply_discount", "function:shop/cart.py:Cart.total"} <= set(keys)
    assert CALLEE not in keys
    assert answer["metadata"]["meaning"] == "lexical-only"
    assert answer["metadata"]["lexical"] == "the index has no vectors"
    text = cli("query", "--like", "shop.pricing.total_price", "--db", lexical)
    assert text.code == 0 and HEADER.match(text.out)
    first = text.out.splitlines()[0]
    assert "| lexical-only: its summary searched as words (the index has no vectors) |" in first
    # An index with vectors, asked with --provider none, searches words too, and says why.
    words = cli("query", "--like", TOTAL, "--db", db, "--provider", "none")
    assert words.code == 0 and "searched as words (provider none)" in words.out.splitlines()[0]


def test_a_definition_without_its_vector_is_searched_by_words(
    indexed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A row whose vector is not there (a first run still embedding) falls back to words, and says so."""
    _root, db, _ = indexed
    copy = tmp_path / "index.db"
    shutil.copy(db, copy)
    conn = connect(copy, create=False)
    try:
        conn.execute("DELETE FROM vectors WHERE rowid = (SELECT id FROM nodes WHERE key = ?)", (TOTAL,))
    finally:
        conn.close()
    run = cli("query", "--like", TOTAL, "--db", copy, "--format", "json")
    assert run.code == 0, run.err
    assert run.json()["metadata"]["lexical"] == "it has no vector yet"
    assert {CALLEE, SIBLING} <= set(_keys(run.json()))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--like", "total"), f"total names 2 definitions: {TOTAL}, function:shop/cart.py:GiftCart.total"),
        (("--like", "shop.Cart.totl"), "unknown node shop.Cart.totl"),
        (("--like", "Shop.Cart.total"), f"definitions named total: {TOTAL}, "),
        (("--like", "  "), "--like takes a key"),
        (("words", "--like", TOTAL), "--like and query text, --node, --code or --cpg cannot go together"),
        (("--like", TOTAL, "--node", TOTAL), "--like and query text"),
        (("--like", TOTAL, "--code", "-"), "--like and query text"),
        (("--like", TOTAL, "--top-k", "0"), "top-k must be between 1 and 100"),
    ],
)
def test_bad_keys_are_one_line_usage_errors(
    indexed: tuple[Path, Path, Path], args: tuple[str, ...], says: str
) -> None:
    _root, db, _ = indexed
    run = cli("query", *args, "--db", db)
    assert run.code == 2, run.err
    assert len(said(run.err)) == 1 and says in run.err, run.err
    assert run.out == ""


def test_with_cpg_is_refused_in_the_cli_process(indexed: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """As users run it: the installed executable, one line, exit 2."""
    root, db, _ = indexed
    cpg = tmp_path / "cpg.json"
    cpg.write_text("{}")
    run = cli_process("query", "--like", TOTAL, "--cpg", cpg, "--db", db, cwd=root)
    assert run.code == 2 and len(said(run.err)) == 1 and "--like and query text" in run.err, run.err


@pytest.mark.parametrize("budget", [150, 400, 900, 3000])
def test_the_budget_holds_for_text_and_json(indexed: tuple[Path, Path, Path], budget: int) -> None:
    """Every token printed counts, header included; a budget too small names the smallest."""
    _root, db, _ = indexed
    text = cli("query", "--like", TOTAL, "--db", db, "--budget", str(budget))
    if text.code == 0:
        assert count_tokens(text.out) <= budget
        stated = re.search(r"\| (\d+)/(\d+) tokens \|", text.out)
        assert stated is not None and int(stated.group(1)) == count_tokens(text.out)
    else:
        assert text.code == 2 and "the smallest that can is" in text.err, text.err
    as_json = cli("query", "--like", TOTAL, "--db", db, "--budget", str(budget), "--format", "json")
    if as_json.code == 0:
        assert count_tokens(as_json.out) <= budget
        assert as_json.json()["metadata"]["tokens_used"] == count_tokens(as_json.out)
    else:
        assert as_json.code == 2 and "the smallest that can is" in as_json.err, as_json.err
    if budget >= 900:
        assert text.code == 0 and as_json.code == 0


def test_a_resident_server_answers_like_the_cold_path(indexed: tuple[Path, Path, Path]) -> None:
    """`--like` is answered warm by a running `greploom serve`, and the answer is the cold one."""
    root, _db, _ = indexed
    with server(root):
        before = answered(root)
        warm = query(root, "--like", "Cart.total", "--budget", "1200")
        assert answered(root) == before + 1
        cold = query(root, "--like", "Cart.total", "--budget", "1200", cold=True)
        age = re.compile(r"index age: \w+")
        assert warm.code == cold.code == 0, warm.err + cold.err
        assert age.sub("age", warm.out) == age.sub("age", cold.out) and warm.err == cold.err
        bad = query(root, "--like", "total")
        assert bad.code == 2 and bad.err == query(root, "--like", "total", cold=True).err


@pytest.fixture(params=["stdio", "http"])
def mcp_client(
    request: pytest.FixtureRequest, indexed: tuple[Path, Path, Path]
) -> Iterator[Callable[[], Client[Any]]]:
    """A client factory over stdio or streamable HTTP, serving the sample's index."""
    _root, db, _ = indexed
    if request.param == "stdio":
        yield lambda: stdio(db.parent, "--no-resident")
        return
    with http_server(db.parent) as url:
        yield lambda: Client(StreamableHttpTransport(url))


def test_the_mcp_tool_answers_and_refuses_like_the_cli(mcp_client: Callable[[], Client[Any]]) -> None:
    """find_related over a real MCP client (stdio and streamable HTTP): read-only, bounded, a
    structured answer within the budget, and a ToolError listing the keys of an ambiguous name."""

    async def call() -> None:
        async with mcp_client() as client:
            tools = {t.name: t for t in await client.list_tools()}
            tool = tools["find_related"]
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            schema = tool.input_schema
            assert schema["required"] == ["key"]
            assert schema["properties"]["key"]["maxLength"] == 1000
            assert schema["properties"]["top_k"]["anyOf"][0]["maximum"] == 100
            assert schema["properties"]["budget"]["anyOf"][0]["minimum"] == 100
            result = await client.call_tool("find_related", {"key": "Cart.total", "budget": 1500})
            envelope = result.structured_content
            assert envelope is not None and envelope["metadata"]["tokens_used"] <= 1500
            assert CALLEE in _keys(envelope) and TOTAL not in _keys(envelope)
            assert HEADER.match(result.content[0].text)
            assert count_tokens(result.content[0].text) <= 1500
            few = await client.call_tool("find_related", {"key": TOTAL, "top_k": 2, "code": "none"})
            assert few.structured_content is not None and few.structured_content["metadata"]["hits"] == 2
            with pytest.raises(ToolError, match="total names 2 definitions"):
                await client.call_tool("find_related", {"key": "total"})
            with pytest.raises(ToolError, match="unknown node"):
                await client.call_tool("find_related", {"key": "nowhere.at_all"})

    asyncio.run(call())
