"""Resident mode: `greploom query` answered by a running `greploom serve`, the same as cold.

Real processes throughout: the server is `greploom serve` (HTTP and stdio),
the client the installed `greploom` executable. Which path answered is read
from the server itself (`greploom status` counts the CLI queries it answered).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_helpers import GREPLOOM, Run, cli

SIDECAR = ".greploom/index.db.serve"


@pytest.fixture(scope="module")
def project(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python sample, indexed where a user would: `.greploom/index.db` in the project."""
    root = tmp_path_factory.mktemp("resident") / "pyshop"
    shutil.copytree(sample_dir / "pyshop", root)
    assert cli("index", root, "--db", root / ".greploom" / "index.db").code == 0
    return root


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _sidecar_pid(project: Path) -> int | None:
    try:
        return int(json.loads((project / SIDECAR).read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        return False
    return True


def _wait_for(condition: object, what: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert proc.poll() is None, f"the server exited before {what}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


@contextmanager
def server(project: Path, *extra: str, stdio: bool = False) -> Iterator[subprocess.Popen[bytes]]:
    """`greploom serve` for the project's index, until its sidecar is written; stopped after."""
    port = _free_port()
    args = ["--transport", "stdio"] if stdio else ["--port", str(port)]
    proc = subprocess.Popen(
        [str(GREPLOOM), "serve", *args, *extra],
        cwd=project,
        stdin=subprocess.PIPE,  # stdio: the MCP stream stays open (and idle) until the test ends
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if "--no-resident" not in extra:
            _wait_for(lambda: _sidecar_pid(project) == proc.pid, "sidecar", proc)
        if not stdio:  # up once it accepts MCP connections: a signal before that meets uvicorn starting
            _wait_for(lambda: _accepts(port), "MCP port", proc)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def query(project: Path, *args: str, cold: bool = False) -> Run:
    env = dict(os.environ, GREPLOOM_RESIDENT="0") if cold else dict(os.environ)
    env.pop("GREPLOOM_DB", None)
    command = [str(GREPLOOM), "query", *args]
    done = subprocess.run(command, check=False, cwd=project, env=env, capture_output=True, text=True)
    return Run(done.returncode, done.stdout, done.stderr)


def answered(project: Path) -> int:
    """How many CLI queries the resident server says it answered (-1: no server answers)."""
    line = query_status(project)
    found = re.search(r"(\d+) CLI queries answered", line)
    return int(found.group(1)) if found else -1


def query_status(project: Path) -> str:
    done = subprocess.run(
        [str(GREPLOOM), "status", "--format", "json"],
        check=False, cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["server"])


def _same(a: Run, b: Run) -> None:
    age = re.compile(r"index age: \w+|\"index_age(_seconds)?\": [^,\n]+")
    assert (a.code, age.sub("age", a.out), a.err) == (b.code, age.sub("age", b.out), b.err)


CASES = [
    ("retry backoff", "--budget", "600"),
    ("Cart.total",),
    ("how is the cart total computed", "--format", "json", "--budget", "900"),
    ("--node", "Cart.total", "--node", "no_such_thing", "--budget", "700"),  # a warning on stderr
    ("shop/cart.py:29", "--depth", "0", "--no-source"),
    ("retry", "--budget", "5"),  # a budget too small: one error line, exit 2
]


def test_queries_through_a_server_print_what_cold_ones_print(project: Path) -> None:
    """Every kind of query, warm and cold: the same stdout, stderr and exit code."""
    with server(project):
        before = answered(project)
        assert before == 0
        for case in CASES:
            warm, cold = query(project, *case), query(project, *case, cold=True)
            _same(warm, cold)
        assert answered(project) == before + len(CASES)  # every warm one was the server's


def test_a_stdio_server_answers_the_cli_too(project: Path) -> None:
    """An MCP client's `serve --transport stdio` makes the project's CLI queries warm as well."""
    with server(project, stdio=True):
        _same(query(project, "retry backoff"), query(project, "retry backoff", cold=True))
        assert answered(project) == 1


def test_settings_from_the_environment_are_the_clients(project: Path) -> None:
    """GREPLOOM_* variables of the query's shell decide, not the server's."""
    with server(project):
        env = dict(os.environ, GREPLOOM_BUDGET="1500", GREPLOOM_TOP_K="2")
        warm = subprocess.run(
            [str(GREPLOOM), "query", "cart total", "--format", "json"],
            cwd=project, env=env, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        meta = json.loads(warm.stdout)["metadata"]
        assert (meta["budget"], meta["top_k"]) == (1500, 2)
        assert answered(project) == 1


def test_a_killed_server_leaves_queries_answering_cold(project: Path) -> None:
    """kill -9 leaves the sidecar behind: queries notice nothing but the time they take."""
    with server(project) as proc:
        proc.kill()
        proc.wait(timeout=30)
        assert (project / SIDECAR).exists()
        warm, cold = query(project, "retry backoff"), query(project, "retry backoff", cold=True)
        assert warm.code == 0
        _same(warm, cold)
        assert query_status(project).startswith("none")
    (project / SIDECAR).unlink()


@pytest.mark.parametrize("stdio", [False, True], ids=["http", "stdio"])
def test_a_stopped_server_removes_its_sidecar(project: Path, stdio: bool) -> None:
    """SIGTERM stops a server (over HTTP gracefully, exit 0): the sidecar goes, queries run cold."""
    with server(project, stdio=stdio) as proc:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert not (project / SIDECAR).exists()
    assert code == (-signal.SIGTERM if stdio else 0)
    assert query(project, "retry backoff").code == 0


def test_no_resident_serves_mcp_only(project: Path) -> None:
    """`--no-resident` writes no sidecar: the CLI runs cold beside the server."""
    with server(project, "--no-resident") as proc:
        assert proc.poll() is None
        assert not (project / SIDECAR).exists()
        assert query(project, "retry").code == 0


def _handshake(port: int, request: dict[str, object], token: str) -> dict[str, object]:
    """One exchange as a client would make it, proving ``token`` (the right one or not)."""
    from greploom.shell.resident_client import proof, proven

    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        lines = conn.makefile("rb")
        conn.sendall(json.dumps({"protocol": 1, "hello": "n1"}).encode() + b"\n")
        hello = json.loads(lines.readline())
        real = json.loads((Path(request.pop("_project")) / SIDECAR).read_text())["token"]  # type: ignore[arg-type]
        assert proven(hello["proof"], real, "server", "n1")  # the server proves itself first
        body = {**request, "proof": proof(token, "client", hello["nonce"])}
        conn.sendall(json.dumps(body).encode() + b"\n")
        return dict(json.loads(lines.readline()))


def test_the_sidecar_is_private_and_a_wrong_token_gets_nothing(project: Path) -> None:
    """Only the server's user can read the token; a client that cannot prove it gets nothing."""
    with server(project):
        sidecar = project / SIDECAR
        assert sidecar.stat().st_mode & 0o077 == 0
        port = json.loads(sidecar.read_text())["port"]
        request: dict[str, object] = {"op": "status", "_project": str(project)}
        assert _handshake(port, dict(request), json.loads(sidecar.read_text())["token"])["answered"] is True
        refused = _handshake(port, dict(request), "guess")
        assert refused["answered"] is False and "queries" not in refused


def test_a_readable_sidecar_or_a_silent_listener_is_not_trusted(project: Path, tmp_path: Path) -> None:
    """A sidecar others can read is ignored; a listener that never proves itself is left at once."""
    with server(project):
        sidecar = project / SIDECAR
        sidecar.chmod(0o644)
        _same(query(project, "retry backoff"), query(project, "retry backoff", cold=True))
        sidecar.chmod(0o600)
        assert answered(project) == 0  # the readable sidecar was not used
        saved = sidecar.read_text()
        heard: list[bytes] = []
        with socket.socket() as silent:  # accepts, then says nothing, as another program might
            silent.bind(("127.0.0.1", 0))
            silent.listen()

            def listen() -> None:
                conn, _ = silent.accept()
                with conn:
                    conn.settimeout(5)
                    with contextlib.suppress(OSError):
                        while chunk := conn.recv(65536):
                            heard.append(chunk)

            listener = threading.Thread(target=listen)
            listener.start()
            sidecar.write_text(json.dumps(dict(json.loads(saved), port=silent.getsockname()[1])))
            sidecar.chmod(0o600)
            _same(query(project, "retry backoff"), query(project, "retry backoff", cold=True))
            listener.join()
        sidecar.write_text(saved)
        said = b"".join(heard)
        assert b'"hello"' in said  # it was asked to prove itself ...
        assert b"retry" not in said and b"argv" not in said and b"token" not in said  # ... and told nothing
