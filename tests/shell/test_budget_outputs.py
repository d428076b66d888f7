"""Every output within its budget, the true minimum named, follow-ups by name, on real indexes.

Indexes of the pyshop and koa samples built here with ``--provider none``;
answers counted with the cl100k counter as they are printed (the CLI) or as
they are sent (the MCP structured result, serialized as pydantic puts it on
the wire), and as ``json.dumps`` writes the envelope.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.errors import UsageError
from greploom.shell.config import GrepLoomConfig
from greploom.shell.querying import QueryAnswer, QueryEngine
from greploom.shell.tokens import count_tokens
from tests.cli_helpers import GREPLOOM, cli

QUERIES = {
    "pyshop": ("retry backoff", "cart total", "apply discount", "send order", "Cart.total", "shop/net.py:17"),
    "koa": ("response body", "middleware compose", "request header", "context cookies", "toJSON", "redirect"),
}
SMALLEST = re.compile(r"the smallest that can is (\d+) tokens")
HEADER_TOKENS = re.compile(r"\| (\d+)/(\d+) tokens \|")


@pytest.fixture(scope="module")
def indexes(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Lexical indexes of two sample projects, built from their source directories."""
    root = tmp_path_factory.mktemp("budget")
    built = {}
    for name in QUERIES:
        db = root / f"{name}.db"
        run = cli("index", sample_dir / name, "--db", db, "--provider", "none")
        assert run.code == 0, run.err
        built[name] = db
    return built


@pytest.fixture(scope="module")
def engines(indexes: dict[str, Path]) -> Iterator[dict[str, QueryEngine]]:
    """One warm engine per index, as the MCP server keeps them."""
    warm = {name: QueryEngine(GrepLoomConfig(db_path=db)) for name, db in indexes.items()}
    yield warm
    for engine in warm.values():
        engine.close()


def wire_tokens(envelope: dict[str, Any]) -> dict[str, int]:
    """The envelope's tokens as printed by the CLI, as sent over MCP, and as json.dumps writes it."""
    return {
        "cli": count_tokens(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n"),
        "mcp": count_tokens(pydantic_core.to_json(envelope).decode()),
        "json.dumps": count_tokens(json.dumps(envelope)),
    }


def smallest(error: Exception) -> int:
    match = SMALLEST.search(str(error))
    assert match, str(error)
    return int(match.group(1))


def check_text(answer: QueryAnswer, budget: int) -> None:
    text = answer.text
    used = count_tokens(text)
    assert used <= budget
    header = text.split("\n", 1)[0]
    match = HEADER_TOKENS.search(header)
    assert match and (int(match.group(1)), int(match.group(2))) == (used, budget), header
    for line in text.split("\n"):
        if line.startswith("## "):
            assert " key: " in line, line


def check_json(answer: QueryAnswer, budget: int) -> None:
    envelope = answer.envelope
    sizes = wire_tokens(envelope)
    assert max(sizes.values()) <= budget, sizes
    meta = envelope["metadata"]
    assert max(sizes["cli"], sizes["json.dumps"]) <= meta["tokens_used"] <= budget
    for result in envelope["results"]:
        if result["source"] is not None:
            assert result["detail"] == "full" and not result["cut"]
        for name in ("callers", "callees", "parameters", "imports", "members", "data_sources"):
            listed = result["structural_context"][name]
            assert len(listed) <= 5
            total = result["structural_context"].get(f"{name}_total")
            assert total is None or total > len(listed)


queries = st.sampled_from([(name, q) for name, qs in QUERIES.items() for q in qs])


@given(queries, st.integers(1, 9000), st.booleans(), st.sampled_from((1, 5, 12)))
def test_text_and_json_fit_any_budget(
    engines: dict[str, QueryEngine], query: tuple[str, str], budget: int, include_source: bool, top_k: int
) -> None:
    """Whatever the budget: the text and the envelope each fit it, as printed and as sent,
    or the budget is refused naming the smallest that answers, which then fits."""
    name, text = query
    engine = engines[name]
    answer = engine.query(text, budget=budget, include_source=include_source, top_k=top_k)
    for check, get in ((check_text, lambda a: a.text), (check_json, lambda a: a.envelope)):
        try:
            get(answer)
        except UsageError as exc:
            least = smallest(exc)
            assert least > budget
            check(engine.query(text, budget=least, include_source=include_source, top_k=top_k), least)
            continue
        check(answer, budget)


def test_json_used_to_run_far_over_and_now_fits(indexes: dict[str, Path]) -> None:
    """`--format json` printed 48,156 tokens for a 2,807-token answer; now the printed whole fits."""
    for name, db in indexes.items():
        for budget in (600, 1500, 4000, 8192):
            for extra in ((), ("--include-source",)):
                run = cli(
                    "query", QUERIES[name][1], "--db", db, "--budget", budget, "--format", "json", *extra
                )
                assert run.code == 0, run.err
                assert count_tokens(run.out) <= budget
                envelope = run.json()
                assert count_tokens(json.dumps(envelope)) <= budget
                assert envelope["metadata"]["tokens_used"] == count_tokens(run.out)


def test_every_budget_from_the_true_minimum(indexes: dict[str, Path]) -> None:
    """For N up to 300: below the true minimum, one error line naming it (exit 2); from it on,
    at most N tokens printed, header included. The minimum is exact: N - 1 fails, N answers."""
    db = indexes["pyshop"]
    first = cli("query", "cart total", "--db", db, "--budget", "1")
    assert first.code == 2 and first.out == ""
    least = smallest(Exception(first.err))
    assert 40 < least < 300
    for n in range(1, 301):
        run = cli("query", "cart total", "--db", db, "--budget", n)
        if n < least:
            assert run.code == 2 and run.out == "", (n, run.out)
            assert run.err.count("\n") == 1 and smallest(Exception(run.err)) == least, run.err
        else:
            assert run.code == 0, (n, run.err)
            assert count_tokens(run.out) <= n, n


def test_json_minimum_is_exact(indexes: dict[str, Path]) -> None:
    """The same for the envelope, whose metadata alone is a few hundred tokens."""
    db = indexes["koa"]
    args = ("query", "response body", "--db", db, "--format", "json", "--budget")
    least = smallest(Exception(cli(*args, "100").err))
    below = cli(*args, least - 1)
    assert below.code == 2 and smallest(Exception(below.err)) == least
    for n in range(least, least + 40):
        run = cli(*args, n)
        assert run.code == 0 and count_tokens(run.out) <= n, n


def test_text_blocks_carry_their_keys(indexes: dict[str, Path]) -> None:
    """Every block names its key, references too: two blocks of one name tell apart."""
    run = cli("query", "response body", "--db", indexes["koa"], "--budget", "2000")
    headers = [line for line in run.out.split("\n") if line.startswith("## ")]
    assert (
        "## hit: function lib.response.body (lib/response.js:124) key: function:lib/response.js:body"
        in headers
    )
    assert any(h.endswith("key: function:lib/response.js:body#2") for h in headers)
    tight = cli("query", "cart price discount", "--db", indexes["pyshop"], "--budget", "150", "--top-k", "8")
    references = [b for b in tight.out.split("\n\n")[1:] if "\n" not in b.strip()]
    assert references and all(" key: " in r for r in references)


def test_node_by_qualified_name(indexes: dict[str, Path]) -> None:
    """--node takes the name a header prints, or a dotted suffix naming one definition."""
    db = indexes["pyshop"]
    by_key = cli("query", "--node", "function:shop/net.py:send_order", "--db", db, "--format", "json").json()
    for name in ("shop.net.send_order", "net.send_order", "send_order"):
        run = cli("query", "--node", name, "--db", db, "--format", "json")
        assert run.code == 0, run.err
        assert run.json()["results"] == by_key["results"]
    cart = cli("query", "--node", "Cart.total", "--db", db)
    assert cart.code == 0 and "key: function:shop/cart.py:Cart.total" in cart.out
    module = cli("query", "--node", "shop.net", "--db", db)
    assert module.out.split("\n\n")[1].startswith(
        "## hit: module shop.net (shop/net.py:1) key: module:shop/net.py"
    )


def test_a_name_naming_several_lists_them(indexes: dict[str, Path], tmp_path: Path) -> None:
    """Never a silent pick or an empty answer: one error line with the candidates' keys."""
    run = cli("query", "--node", "total", "--db", indexes["pyshop"])
    assert run.code == 2 and run.out == "" and run.err.count("\n") == 1
    assert (
        "total names 2 definitions: function:shop/cart.py:Cart.total, function:shop/cart.py:GiftCart.total"
        in (run.err)
    )
    koa = cli("query", "--node", "lib.context.cookies", "--db", indexes["koa"])
    assert koa.code == 2
    assert "function:lib/context.js:cookies, function:lib/context.js:cookies#2" in koa.err
    project = tmp_path / "many"
    project.mkdir()
    (project / "jobs.py").write_text(
        "".join(f"class Job{i}:\n    def run(self):\n        return {i}\n\n" for i in range(13))
    )
    db = tmp_path / "many.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    many = cli("query", "--node", "run", "--db", db)
    assert many.code == 2 and many.err.count("\n") == 1
    assert "run names 13 definitions: function:jobs.py:Job0.run, " in many.err
    assert many.err.rstrip().endswith("+3 more; pass one of these keys")
    assert cli("query", "--node", "Job7.run", "--db", db).code == 0


def test_mcp_results_fit_and_follow_up_by_name(indexes: dict[str, Path]) -> None:
    """Through the real MCP client: the structured result as sent and the text fit the budget;
    too small a budget is a ToolError naming the smallest; get_node_context takes names."""
    db = indexes["koa"]
    transport = StdioTransport(
        command=str(GREPLOOM), args=["serve", "--transport", "stdio", "--db", str(db)], cwd=str(db.parent)
    )

    async def go() -> None:
        async with Client(transport) as client:
            for budget in (700, 2000, 8192):
                for tool, args in (
                    ("search_code", {"query": "middleware compose", "include_source": True}),
                    (
                        "get_node_context",
                        {"node_ids": ["Application.use", "respond"], "include_source": True},
                    ),
                ):
                    got = await client.call_tool(tool, {**args, "budget": budget})
                    assert max(wire_tokens(got.structured_content).values()) <= budget
                    assert count_tokens(got.content[0].text) <= budget
            with pytest.raises(
                ToolError, match=r"cannot hold this answer as text and JSON; the smallest"
            ) as err:
                await client.call_tool("search_code", {"query": "response body", "budget": 150})
            least = smallest(err.value)
            fits = await client.call_tool("search_code", {"query": "response body", "budget": least})
            assert max(wire_tokens(fits.structured_content).values()) <= least
            node = await client.call_tool("get_node_context", {"node_ids": ["lib.application.respond"]})
            assert node.structured_content["results"][0]["key"] == "function:lib/application.js:respond"
            with pytest.raises(ToolError, match=r"toJSON names 4 definitions: function:lib/application\.js"):
                await client.call_tool("get_node_context", {"node_ids": ["toJSON"]})

    asyncio.run(go())
