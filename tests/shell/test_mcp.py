"""The MCP server through a real MCP client: stdio subprocess and streamable HTTP on loopback."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from fastmcp.exceptions import ToolError

from tests.cli_helpers import GREPLOOM, cli, cli_process


@pytest.fixture(scope="module")
def workdir(pyshop_cpg: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A served directory: an index of the Python sample and a copy of its CPG."""
    root = tmp_path_factory.mktemp("served")
    shutil.copy(pyshop_cpg, root / "pyshop.json")
    assert cli("index", root / "pyshop.json", "--db", root / "index.db").code == 0
    return root


def stdio(workdir: Path, *extra: str) -> Client[Any]:
    transport = StdioTransport(
        command=str(GREPLOOM),
        args=["serve", "--transport", "stdio", "--db", str(workdir / "index.db"), *extra],
        cwd=str(workdir),
    )
    return Client(transport)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(workdir: Path, token: str | None = None) -> Iterator[str]:
    """`greploom serve` on a free loopback port, stopped afterwards."""
    port = _free_port()
    env = dict(os.environ)
    env.pop("GREPLOOM_API_TOKEN", None)
    if token:
        env["GREPLOOM_API_TOKEN"] = token
    proc = subprocess.Popen(
        [str(GREPLOOM), "serve", "--db", str(workdir / "index.db"), "--port", str(port)],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def http_url(workdir: Path) -> Iterator[str]:
    """One streamable-HTTP server for the module's transport-parametrised tests."""
    with http_server(workdir) as url:
        yield url


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, workdir: Path) -> Callable[[], Client[Any]]:
    """A factory of connected-on-enter clients, over stdio or over streamable HTTP."""
    if request.param == "stdio":
        return lambda: stdio(workdir)
    url = request.getfixturevalue("http_url")
    return lambda: Client(StreamableHttpTransport(url))


def _normalise(text: str) -> str:
    return re.sub(r"index age: \w+", "index age: _", text)


def _normalise_envelope(envelope: dict[str, Any]) -> dict[str, Any]:
    meta = dict(envelope["metadata"], index_age="_", index_age_seconds=0)
    return {"metadata": meta, "results": envelope["results"]}


def test_tools_are_listed_with_schemas(workdir: Path, connect: Callable[[], Client[Any]]) -> None:
    """The tools, typed and bounded parameters, read-only hints where they apply."""

    async def go() -> None:
        async with connect() as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert set(tools) == {
                "search_code",
                "get_node_context",
                "index_code",
                "trace_calls",
                "context_for_code",
                "find_related",
            }
            search = tools["search_code"].input_schema
            assert search["required"] == ["query"]
            budget = search["properties"]["budget"]["anyOf"][0]
            assert budget["minimum"] == 100 and budget["type"] == "integer"
            assert search["properties"]["top_k"]["anyOf"][0]["maximum"] == 100
            assert tools["search_code"].annotations.read_only_hint is True
            assert tools["get_node_context"].annotations.read_only_hint is True
            assert tools["index_code"].annotations.read_only_hint is False

    asyncio.run(go())


def test_search_and_node_context(workdir: Path, connect: Callable[[], Client[Any]]) -> None:
    """search_code finds the function; get_node_context shows it with its graph."""

    async def go() -> None:
        async with connect() as client:
            found = await client.call_tool("search_code", {"query": "where is the retry backoff computed"})
            text = found.content[0].text
            assert text.startswith("# greploom: hybrid search | ")
            key = "key: function:shop/net.py:backoff_delay"
            assert f"## hit: function shop.net.backoff_delay (shop/net.py:8) {key}" in text
            assert found.structured_content["metadata"]["search_mode"] == "hybrid"
            # A traceback frame pasted as the query: the function around its line comes first.
            frame = 'File "/srv/app/shop/net.py", line 17, in send_order\nConnectionError'
            placed = await client.call_tool("search_code", {"query": frame})
            assert placed.structured_content["results"][0]["key"] == "function:shop/net.py:send_order"
            node = await client.call_tool(
                "get_node_context", {"node_ids": ["function:shop/net.py:send_order", "nope"]}
            )
            envelope = node.structured_content
            assert envelope["results"][0]["key"] == "function:shop/net.py:send_order"
            assert envelope["metadata"]["unknown_nodes"] == ["nope"]

    asyncio.run(go())


def test_per_call_budget_changes_the_answer(workdir: Path, connect: Callable[[], Client[Any]]) -> None:
    """The budget argument is honoured call by call."""

    async def go() -> None:
        async with connect() as client:
            small = await client.call_tool("search_code", {"query": "cart total", "budget": 700})
            large = await client.call_tool("search_code", {"query": "cart total", "budget": 3000})
            assert small.structured_content["metadata"]["tokens_used"] <= 700
            assert large.structured_content["metadata"]["tokens_used"] > 700
            assert len(large.content[0].text) > len(small.content[0].text)

    asyncio.run(go())


def test_errors_are_tool_errors(workdir: Path, tmp_path: Path, connect: Callable[[], Client[Any]]) -> None:
    """Out-of-root paths, missing indexes and unknown nodes raise ToolError, never a normal result."""

    async def go() -> None:
        async with connect() as client:
            with pytest.raises(ToolError, match="outside the allowed roots"):
                await client.call_tool("search_code", {"query": "x", "db_path": "/etc/passwd"})
            with pytest.raises(ToolError, match="outside the allowed roots"):
                await client.call_tool("search_code", {"query": "x", "db_path": "../../../etc/x.db"})
            link = workdir / "escape.db"
            if not link.is_symlink():
                link.symlink_to(tmp_path / "elsewhere.db")
            with pytest.raises(ToolError, match="outside the allowed roots"):
                await client.call_tool("search_code", {"query": "x", "db_path": str(link)})
            with pytest.raises(ToolError, match="outside the allowed roots"):
                await client.call_tool("index_code", {"path": "pyshop.json", "source_root": "/etc"})
            with pytest.raises(ToolError, match="no index at"):
                await client.call_tool("search_code", {"query": "x", "db_path": "missing.db"})
            with pytest.raises(ToolError, match="unknown node"):
                await client.call_tool("get_node_context", {"node_ids": ["nope"]})
            with pytest.raises(ToolError):
                await client.call_tool("search_code", {"query": "x", "budget": 5})

    asyncio.run(go())


def test_index_then_search_and_concurrency(workdir: Path, connect: Callable[[], Client[Any]]) -> None:
    """index_code builds a new index while searches on the old one keep answering."""

    async def go() -> None:
        async with connect() as client:
            calls = [client.call_tool("index_code", {"path": "pyshop.json", "db_path": "fresh.db"})]
            calls += [client.call_tool("search_code", {"query": f"cart {i}"}) for i in range(4)]
            results = await asyncio.gather(*calls)
            assert results[0].structured_content["total"] == 19
            assert all(r.structured_content["results"] for r in results[1:])
            again = await client.call_tool("index_code", {"path": "pyshop.json", "db_path": "fresh.db"})
            assert again.structured_content["embedded"] == 0
            found = await client.call_tool("search_code", {"query": "apply discount", "db_path": "fresh.db"})
            assert found.structured_content["results"][0]["key"] == "function:shop/pricing.py:apply_discount"

    asyncio.run(go())


def test_index_code_reads_javascript_source(workdir: Path, jsutil_cpg: Path, sample_dir: Path) -> None:
    """A CPG file and its source_root: JavaScript hits come with their code."""
    shutil.copy(jsutil_cpg, workdir / "jsutil.json")
    shutil.copytree(sample_dir / "jsutil", workdir / "jsutil", dirs_exist_ok=True)

    async def go() -> None:
        async with stdio(workdir) as client:
            args = {"path": "jsutil.json", "db_path": "js.db", "source_root": "jsutil"}
            done = await client.call_tool("index_code", args)
            assert done.structured_content["warnings"] == []
            found = await client.call_tool(
                "search_code", {"query": "slugify a title", "db_path": "js.db", "include_source": True}
            )
            top = found.structured_content["results"][0]
            assert top["key"] == "function:strings.js:slugify"
            assert top["source"].startswith("function slugify(title) {")

    asyncio.run(go())


def test_mcp_and_cli_give_identical_answers(workdir: Path) -> None:
    """The same question through MCP and through `greploom query` gives the same context and JSON."""

    async def go() -> tuple[str, dict[str, Any]]:
        async with stdio(workdir) as client:
            r = await client.call_tool(
                "search_code", {"query": "cart total", "budget": 900, "top_k": 3, "include_source": True}
            )
            return r.content[0].text, r.structured_content

    text, envelope = asyncio.run(go())
    # The path as the server resolves it: the envelope is packed with its metadata, path included.
    db = (workdir / "index.db").resolve()
    args = ("query", "cart total", "--db", db, "--budget", "900", "--top-k", "3")
    cli_text = cli(*args, "--include-source").out
    cli_json = cli(*args, "--include-source", "--format", "json").json()
    assert cli_json["metadata"]["index_path"] == envelope["metadata"]["index_path"]
    assert _normalise(text) == _normalise(cli_text)
    assert _normalise_envelope(envelope) == _normalise_envelope(cli_json)


def test_streamable_http(workdir: Path) -> None:
    """Over HTTP on loopback: tools answer; a foreign Host header is refused (DNS rebinding)."""
    with http_server(workdir) as url:

        async def go() -> None:
            async with Client(StreamableHttpTransport(url)) as client:
                found = await client.call_tool("search_code", {"query": "backoff"})
                assert found.structured_content["results"]

        asyncio.run(go())
        rebound = httpx.post(url, headers={"Host": "evil.example:80"}, json={})
        assert rebound.status_code == 421


def test_token_protected_http(workdir: Path) -> None:
    """With GREPLOOM_API_TOKEN set, a request needs the bearer token."""
    with http_server(workdir, token="s3cret") as url:
        assert httpx.post(url, json={}).status_code == 401
        assert httpx.post(url, json={}, headers={"Authorization": "Bearer wrong"}).status_code == 401

        async def without() -> None:
            async with Client(StreamableHttpTransport(url)) as client:
                await client.list_tools()

        with pytest.raises(Exception):  # noqa: B017 - the client raises its transport's error
            asyncio.run(without())

        async def with_token() -> None:
            transport = StreamableHttpTransport(url, headers={"Authorization": "Bearer s3cret"})
            async with Client(transport) as client:
                assert (await client.call_tool("search_code", {"query": "cart"})).structured_content

        asyncio.run(with_token())


def test_public_bind_needs_a_token(workdir: Path) -> None:
    """Binding beyond loopback without a token is refused before anything listens."""
    env_token = os.environ.pop("GREPLOOM_API_TOKEN", None)
    try:
        run = cli_process("serve", "--host", "0.0.0.0", "--db", workdir / "index.db")
    finally:
        if env_token is not None:
            os.environ["GREPLOOM_API_TOKEN"] = env_token
    assert run.code == 2
    assert "refusing to serve on 0.0.0.0 without authentication" in run.err


def test_rebuilt_index_is_picked_up_and_writers_do_not_collide(workdir: Path) -> None:
    """A re-index under a running server shows on the next call; two writers never corrupt an index."""
    db = workdir / "swap.db"
    assert cli("index", workdir / "pyshop.json", "--db", db).code == 0

    async def go() -> None:
        async with stdio(workdir) as client:
            before = await client.call_tool("search_code", {"query": "cart total", "db_path": "swap.db"})
            assert before.structured_content["metadata"]["search_mode"] == "hybrid"
            rebuilt = cli("index", workdir / "pyshop.json", "--db", db, "--provider", "none", "--force")
            assert rebuilt.code == 0, rebuilt.err
            after = await client.call_tool("search_code", {"query": "cart", "db_path": "swap.db"})
            assert after.structured_content["metadata"]["search_mode"] == "lexical-only"
            calls = [
                client.call_tool("index_code", {"path": "pyshop.json", "db_path": "swap.db", "force": True})
                for _ in range(2)
            ]
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            assert any(not isinstance(o, BaseException) for o in outcomes)
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    assert isinstance(outcome, ToolError) and "busy" in str(outcome)
            final = await client.call_tool("search_code", {"query": "apply discount", "db_path": "swap.db"})
            assert final.structured_content["results"][0]["key"] == "function:shop/pricing.py:apply_discount"

    asyncio.run(go())
    assert cli("status", "--db", db, "--format", "json").json()["nodes"] == 19
