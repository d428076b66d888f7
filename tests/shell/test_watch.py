"""`greploom watch`: a real watcher on real files; answers follow edits, adds, deletes and renames.

The watcher is the installed executable in its own process; the files are
edited on disk and the answers polled with a deadline (no timed assertions).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from greploom.shell.lock import index_lock
from tests.cli_helpers import GREPLOOM, cli
from tests.embed_server import Faults, embedding_server

DEADLINE_S = 90


@pytest.fixture
def project(sample_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "proj"
    shutil.copytree(sample_dir / "pyshop", target)
    return target


def _state(db: Path) -> dict[str, object] | None:
    try:
        return dict(json.loads(db.with_name(db.name + ".watch").read_text()))
    except (OSError, ValueError):
        return None


def _until(condition: Callable[[], bool], what: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert proc.poll() is None, f"the watcher exited before {what}"
        assert time.monotonic() < deadline, f"no {what} within {DEADLINE_S} s"
        time.sleep(0.2)


@contextmanager
def watching(project: Path, db: Path, *provider: str) -> Iterator[subprocess.Popen[bytes]]:
    provider = provider or ("--provider", "none")
    proc = subprocess.Popen(
        [str(GREPLOOM), "watch", str(project), "--db", str(db), *provider, "--debounce-ms", "200"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _until(lambda: bool((_state(db) or {}).get("last_refresh")), "first index", proc)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def _names(db: Path, text: str) -> set[str]:
    run = cli("query", text, "--db", db, "--format", "json", "--budget", "4000")
    return {r["name"] for r in run.json()["results"]} if run.code == 0 else set()


def _files(db: Path, text: str) -> set[str]:
    run = cli("query", text, "--db", db, "--format", "json", "--budget", "4000")
    return {r["file"] for r in run.json()["results"]} if run.code == 0 else set()


def test_answers_follow_edits_adds_deletes_and_renames(project: Path, tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    with watching(project, db) as proc:
        net = project / "shop" / "net.py"
        net.write_text(net.read_text().replace("def backoff_delay", "def backoff_wait"))
        _until(lambda: "backoff_wait" in _names(db, "backoff_wait"), "the edit", proc)
        assert "backoff_delay" not in _names(db, "backoff_delay")

        (project / "shop" / "audit.py").write_text('def audit_trail(order):\n    """Log an order."""\n')
        _until(lambda: "audit_trail" in _names(db, "audit_trail"), "the added file", proc)

        (project / "shop" / "audit.py").unlink()
        _until(lambda: "audit_trail" not in _names(db, "audit_trail"), "the deleted file", proc)

        (project / "RUNBOOK.md").write_text("# Runbook\n\n## Failover\n\nPromote the replica.\n")
        _until(lambda: "Failover" in _names(db, "runbook failover replica"), "the added doc", proc)

        net.rename(project / "shop" / "network.py")
        _until(lambda: "shop/network.py" in _files(db, "backoff_wait"), "the renamed file", proc)
        assert "shop/net.py" not in _files(db, "backoff_wait")

        status = cli("status", "--db", db, "--format", "json").json()
        said = str(status["watch"])
        assert said.startswith(f"pid {proc.pid} watching") and "last refresh" in said
    assert _state(db) is None  # a stopped watcher leaves no state behind
    assert cli("status", "--db", db, "--format", "json").json()["watch"] == "none"


def test_a_watcher_killed_mid_refresh_leaves_an_index_answering(project: Path, tmp_path: Path) -> None:
    """kill -9 during a watch-triggered run: the index answers, wholly old or wholly new, and is sound."""
    db = tmp_path / "i.db"
    with embedding_server(Faults()) as (url, faults), watching(
        project, db, "--provider", "ollama", "--ollama-url", url
    ) as proc:
        faults.delay_s = 2.0  # each refresh's embedding takes a while: a window to kill it in
        net = project / "shop" / "net.py"
        net.write_text(net.read_text().replace("def backoff_delay", "def backoff_pause"))
        _until(lambda: bool((_state(db) or {}).get("refreshing")), "a refresh", proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        faults.delay_s = 0.0
        after = cli("query", "retry backoff", "--db", db)
    assert after.code == 0
    assert ("backoff_delay" in after.out) != ("backoff_pause" in after.out)  # one index, never a mix
    assert cli("check", "--db", db).code == 0


def test_watch_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    run = cli("watch", tmp_path / "a.json", "--db", tmp_path / "i.db")
    assert run.code == 2 and "source directory" in run.err


def test_serve_watch_keeps_the_served_index_fresh(project: Path, tmp_path: Path) -> None:
    """`greploom serve --watch DIR`: the server indexes the directory and follows its edits."""
    import socket

    db = tmp_path / "i.db"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [str(GREPLOOM), "serve", "--db", str(db), "--port", str(port), "--watch", str(project)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, GREPLOOM_PROVIDER="none"),
    )
    try:
        _until(lambda: "backoff_delay" in _names(db, "backoff_delay"), "the first index", proc)
        net = project / "shop" / "net.py"
        net.write_text(net.read_text().replace("def backoff_delay", "def backoff_hold"))
        _until(lambda: "backoff_hold" in _names(db, "backoff_hold"), "the edit", proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_a_refresh_waits_for_another_run_and_drops_no_change(project: Path, tmp_path: Path) -> None:
    """While another run holds the index, the watcher waits for it, then indexes the change."""
    db = tmp_path / "i.db"
    with watching(project, db) as proc:
        with index_lock(db):  # as a manual `greploom index` or MCP index_code would
            net = project / "shop" / "net.py"
            net.write_text(net.read_text().replace("def backoff_delay", "def backoff_later"))
            _until(lambda: bool((_state(db) or {}).get("waiting")), "the watcher waiting", proc)
        _until(lambda: "backoff_later" in _names(db, "backoff_later"), "the change after the wait", proc)


def test_an_edit_made_while_treeloom_parses_is_indexed_next(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files' fingerprint is taken before the build: an edit during it is the next run's."""
    from greploom.shell import index_gather

    real = index_gather.build_parts
    cart = project / "shop" / "cart.py"

    def build_then_edit(*args: object, **kwargs: object) -> object:
        built = real(*args, **kwargs)  # type: ignore[arg-type]
        if "def late_addition" not in cart.read_text():
            cart.write_text(cart.read_text() + "\n\ndef late_addition():\n    return 1\n")
        return built

    monkeypatch.setattr(index_gather, "build_parts", build_then_edit)
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    assert "late_addition" not in _names(db, "late_addition")
    monkeypatch.setattr(index_gather, "build_parts", real)
    again = cli("index", project, "--db", db, "--provider", "none")
    assert again.code == 0 and "greploom: building the CPG" in again.err
    assert "late_addition" in _names(db, "late_addition")


def test_the_watcher_starts_runs_only_for_what_a_run_reads(project: Path, tmp_path: Path) -> None:
    """Code, doc and config files, ignore rules and folders start a run; build outputs, secret
    files and the index's own files do not."""
    from greploom.shell.config import GrepLoomConfig
    from greploom.shell.watch import Watcher

    db = project / ".greploom" / "index.db"
    watcher = Watcher(project, GrepLoomConfig(db_path=db), say=lambda _: None)
    wanted = {
        "shop/net.py": True,
        "README.md": True,
        "docs/guide.rst": True,
        "deploy/compose.yml": True,
        ".env": False,
        "shop/.gitignore": True,
        "shop/renamed_folder": True,
        "shop/net.cpython-311.pyc": False,
        "build/out.o": False,
        "debug.log": False,
        ".git/index": False,
        ".greploom/index.db-wal": False,
        "node_modules/x/index.js": False,
    }
    for path, expected in wanted.items():
        assert watcher.wants(None, str(project / path)) is expected, path
    vendored = Watcher(project, GrepLoomConfig(db_path=db, include_vendored=True), say=lambda _: None)
    assert vendored.wants(None, str(project / "node_modules/x/index.js")) is True
