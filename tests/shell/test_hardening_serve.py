"""Issue 12 faults at the server's edge, through real HTTP on loopback and a real MCP client.

A bad token, path or node id from a client, or a busy port at start, is one short line and
the right status or exit code, never a traceback.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from greploom.core.errors import UsageError
from greploom.shell.guard import PathGuard, clip
from tests.cli_helpers import GREPLOOM
from tests.shell.test_mcp import _free_port, workdir  # noqa: F401 - workdir is a fixture

SHORT = 300  # an error a client sees must fit on one line of a terminal or so
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@contextmanager
def logged_server(workdir: Path, log: Path, token: str | None = None) -> Iterator[str]:  # noqa: F811
    """`greploom serve` on a free loopback port, its stderr in ``log``, stopped afterwards."""
    port = _free_port()
    env = dict(os.environ)
    env.pop("GREPLOOM_API_TOKEN", None)
    if token:
        env["GREPLOOM_API_TOKEN"] = token
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [str(GREPLOOM), "serve", "--db", str(workdir / "index.db"), "--port", str(port)],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    assert proc.poll() is None, log.read_text()
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def served(workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:  # noqa: F811
    """One server for the module's MCP tests, and the file its log goes to."""
    log = tmp_path_factory.mktemp("log") / "serve.log"
    with logged_server(workdir, log) as url:
        yield url, log


def _assert_clean_log(log: Path) -> None:
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert "unexpected failure" not in text, text[-3000:]


async def _tool_error(url: str, tool: str, args: dict[str, Any]) -> str:
    async with Client(StreamableHttpTransport(url)) as client:
        with pytest.raises(ToolError) as caught:
            await client.call_tool(tool, args)
    return str(caught.value)


def _post(url: str, authorization: bytes | None) -> httpx.Response:
    headers = {k.encode(): v.encode() for k, v in MCP_HEADERS.items()}
    if authorization is not None:
        headers[b"authorization"] = authorization
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)


def test_non_ascii_bearer_tokens_get_401_or_in_never_500(workdir: Path, tmp_path: Path) -> None:  # noqa: F811
    """A wrong or non-ASCII bearer token gets 401, not 500; a right non-ASCII one sent as UTF-8 gets in."""
    log = tmp_path / "serve.log"
    token = "pässwörd-ключ"
    with logged_server(workdir, log, token=token) as url:
        assert _post(url, "Bearer wröng".encode()).status_code == 401
        assert _post(url, b"Bearer wrong").status_code == 401
        assert _post(url, f"Bearer {token}".encode()[:-1]).status_code == 401  # a cut UTF-8 tail
        assert _post(url, b"Bearer \xff\xfe").status_code == 401
        assert _post(url, None).status_code == 401
        assert _post(url, f"Bearer {token}".encode()).status_code == 200
    _assert_clean_log(log)


@pytest.mark.parametrize(
    ("tool", "args", "what"),
    [
        ("search_code", {"query": "x", "db_path": "index\x00.db"}, "db_path"),
        ("search_code", {"query": "x", "cpg_path": "pyshop\x00.json"}, "cpg_path"),
        ("index_code", {"path": "pyshop.json\x00"}, "path"),
        ("index_code", {"path": "pyshop.json", "source_root": "src\x00"}, "source_root"),
        ("search_code", {"query": "x", "db_path": "d/" * 500_000}, "db_path"),
        ("search_code", {"query": "x", "db_path": "~nosuchuser-greploom/index.db"}, "db_path"),
    ],
    ids=["nul-db", "nul-cpg", "nul-path", "nul-source-root", "1mb-path", "unknown-user"],
)
def test_malformed_tool_paths_are_one_short_line(
    served: tuple[str, Path], tool: str, args: dict[str, Any], what: str
) -> None:
    """A NUL byte, a megabyte or an unknown ~user in a tool path is a short ToolError, not a crash."""
    url, log = served
    message = asyncio.run(_tool_error(url, tool, args))
    assert message.startswith(what + " "), message[:SHORT]
    assert "failed unexpectedly" not in message
    assert len(message) < SHORT and "\n" not in message, message[:SHORT]
    _assert_clean_log(log)


def test_a_lone_surrogate_in_a_path_is_a_usage_error(tmp_path: Path) -> None:
    """A tool path with a lone surrogate (MCP's JSON parser refuses one today) is a one-line UsageError."""
    with pytest.raises(UsageError, match=r"^db_path a\\ud800b\.db is not valid Unicode") as caught:
        PathGuard([tmp_path]).check("a\ud800b.db", "db_path")
    assert len(str(caught.value)) < SHORT


def test_clip_echoes_a_short_single_line() -> None:
    """An error echoes a short one-line prefix of a client's value and says how long the value was."""
    assert clip("function:shop/net.py:send_order") == "function:shop/net.py:send_order"
    long = clip("n" * 1_000_000)
    assert long.startswith("n" * 80 + "...") and "1000000 characters" in long and len(long) < 120
    assert "\n" not in clip("a\nb\x00c" * 100) and len(clip("\x00" * 1000)) < 120


def test_a_megabyte_node_id_is_refused_in_a_short_error(served: tuple[str, Path]) -> None:
    """A 1 MB node id is refused by the tool's schema with a short error, not echoed back whole."""
    url, log = served
    message = asyncio.run(_tool_error(url, "get_node_context", {"node_ids": ["n" * 1_000_000]}))
    assert len(message) < SHORT, message[:SHORT]
    _assert_clean_log(log)


def test_unknown_long_node_ids_are_echoed_short(served: tuple[str, Path]) -> None:
    """A hundred unknown node ids of the longest allowed size are named in a short error, not echoed whole."""
    url, log = served
    message = asyncio.run(_tool_error(url, "get_node_context", {"node_ids": ["n" * 1000] * 100}))
    assert "unknown node" in message
    assert len(message) < SHORT, message[:SHORT]
    _assert_clean_log(log)


@contextmanager
def held_port() -> Iterator[int]:
    """A loopback port another program is listening on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_serve_on_a_busy_port_is_one_line_and_exit_2(workdir: Path) -> None:  # noqa: F811
    """`greploom serve` on a port in use says so in one line and exits 2, without claiming to serve."""
    with held_port() as port:
        done = subprocess.run(
            [str(GREPLOOM), "serve", "--db", str(workdir / "index.db"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"greploom: error: port {port} on 127.0.0.1 is already in use; "
        "stop the other server or pick another with --port"
    ]


LOSE_THE_RACE = """
import sys
import greploom.shell.serve as serve
serve.check_port = lambda host, port: None  # another program takes the port after the check
from greploom.shell.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_port_lost_after_the_check_is_exit_2_not_3(workdir: Path) -> None:  # noqa: F811
    """A port taken between the check and the bind is one greploom line and exit 2, not uvicorn's 3."""
    with held_port() as port:
        done = subprocess.run(
            [sys.executable, "-c", LOSE_THE_RACE, "serve", "--db", workdir / "index.db", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("greploom: error:")]
    assert len(errors) == 1 and f"127.0.0.1:{port} failed to start" in errors[0], done.stderr
    assert "Traceback" not in done.stderr
