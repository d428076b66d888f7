"""Context for code being written: `query --code` and the MCP tool `context_for_code`.

A real index of the Python sample; the code is given on stdin, as a place in a
file, or as an MCP argument; the answer holds the definitions it uses.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from tests.cli_helpers import cli, cli_process, said
from tests.shell.test_mcp import http_server, stdio


@pytest.fixture(scope="module")
def indexed(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(source copy, index) of the Python sample, indexed from its directory."""
    root = tmp_path_factory.mktemp("code") / "proj"
    shutil.copytree(sample_dir / "pyshop", root)
    db = root / ".greploom" / "index.db"
    run = cli("index", root, "--db", db)
    assert run.code == 0, run.err
    return root, db


def _keys(answer: dict[str, object]) -> list[str]:
    results = answer["results"]
    assert isinstance(results, list)
    return [str(r["key"]) for r in results]


def test_code_on_stdin_answers_with_what_it_calls(indexed: tuple[Path, Path]) -> None:
    """A line of code, nothing else: the definitions it calls come first, other files' included."""
    _root, db = indexed
    code = "    discounted = apply_discount(price, percent)\n    return add_tax(discounted)\n"
    run = cli_process("query", "--code", "-", "--db", db, "--format", "json", "--budget", "1000", stdin=code)
    assert run.code == 0, run.err
    answer = run.json()
    keys = _keys(answer)
    assert set(keys[:2]) == {"function:shop/pricing.py:apply_discount", "function:shop/pricing.py:add_tax"}
    assert answer["metadata"]["search_mode"] == "code context"
    assert answer["metadata"]["tokens_used"] <= 1000
    text = cli_process("query", "--code", "-", "--db", db, "--budget", "1000", stdin=code)
    assert text.code == 0 and text.out.startswith("# greploom: context for code (")
    assert "key: function:shop/pricing.py:apply_discount" in text.out


def test_a_place_in_a_file_is_read_and_its_own_definition_left_out(indexed: tuple[Path, Path]) -> None:
    """`--code FILE:LINE`: the lines are read from the file; the definition around them is the
    code's own, not its context; what it calls is."""
    root, db = indexed
    lines = (root / "shop" / "cart.py").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "return total_price(" in text)
    run = cli_process("query", "--code", f"shop/cart.py:{line}", "--db", db, "--format", "json", cwd=root)
    assert run.code == 0, run.err
    answer = run.json()
    keys = _keys(answer)
    assert keys[0] == "function:shop/pricing.py:total_price"
    assert "function:shop/cart.py:Cart.total" not in keys
    assert answer["metadata"]["own_definitions"] == ["function:shop/cart.py:Cart.total"]
    ranged = cli_process("query", "--code", f"shop/cart.py:{line - 2}-{line}", "--db", db, cwd=root)
    assert ranged.code == 0 and "key: function:shop/pricing.py:total_price" in ranged.out


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (("--code", "shop/cart.py"), None, "--code takes - (stdin) or FILE:LINE[-LINE]"),
        (("--code", "shop/missing.py:3"), None, "--code shop/missing.py: cannot read it"),
        (("--code", "shop/cart.py:9000"), None, "the file has"),
        (("--code", "shop/cart.py:9-3"), None, "must not run backwards"),
        (("--code", "-"), "   \n", "the code is empty"),
        (("--code", "-"), "return None if True else 'x'\n", "the code uses no names to look up"),
        (("words", "--code", "-"), "f(x)", "--code and query text"),
        (("--code", "-", "--node", "Cart.total"), "f(x)", "--code and query text"),
    ],
)
def test_bad_code_arguments_are_one_line(
    indexed: tuple[Path, Path], args: tuple[str, ...], stdin: str | None, says: str
) -> None:
    root, db = indexed
    run = cli_process("query", *args, "--db", db, cwd=root, stdin=stdin)
    assert run.code == 2, run.err
    assert len(said(run.err)) == 1 and says in run.err, run.err
    assert run.out == ""


@pytest.fixture(params=["stdio", "http"])
def connect(
    request: pytest.FixtureRequest, indexed: tuple[Path, Path]
) -> Iterator[Callable[[], Client[Any]]]:
    """A client factory over stdio or streamable HTTP, serving the sample's index."""
    _root, db = indexed
    if request.param == "stdio":
        yield lambda: stdio(db.parent)
        return
    with http_server(db.parent) as url:
        yield lambda: Client(StreamableHttpTransport(url))


def test_the_mcp_tool_answers_and_refuses_like_the_cli(connect: Callable[[], Client[Any]]) -> None:
    """context_for_code over a real MCP client: a structured answer within the budget, and a
    ToolError for code with nothing to look up; the same over stdio and streamable HTTP."""

    async def call() -> None:
        async with connect() as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert tools["context_for_code"].annotations is not None
            assert tools["context_for_code"].annotations.read_only_hint is True
            result = await client.call_tool(
                "context_for_code", {"code": "price = apply_discount(cart.total(), 10)", "budget": 1500}
            )
            envelope = result.structured_content
            assert envelope is not None and envelope["metadata"]["tokens_used"] <= 1500
            # cart.total: the qualifier names class Cart, so GiftCart.total is not the one meant
            assert _keys(envelope)[:2] == [
                "function:shop/cart.py:Cart.total",
                "function:shop/pricing.py:apply_discount",
            ]
            assert result.content[0].text.startswith("# greploom: context for code (")
            placed = await client.call_tool(
                "context_for_code",
                {
                    "code": "return total_price([i.price for i in self.items], percent)",
                    "file": "shop/cart.py",
                    "line": 30,
                },
            )
            assert placed.structured_content is not None
            assert placed.structured_content["metadata"]["own_definitions"] == [
                "function:shop/cart.py:Cart.total"
            ]
            with pytest.raises(ToolError, match="no names to look up"):
                await client.call_tool("context_for_code", {"code": "return None"})

    asyncio.run(call())
