"""Searchable first: a first index answers from words, names and the graph before its vectors.

A real index run against a real embedding server on loopback (slow, or
failing part-way); queries read the answers a user reads: the header's
`vectors: N% (...)`, `greploom status` and `greploom check`.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from greploom.shell import index_embed
from tests.cli_helpers import GREPLOOM, cli
from tests.embed_server import Faults, embedding_server


def _status(db: Path) -> dict[str, object]:
    return dict(cli("status", "--db", db, "--format", "json").json())


def test_a_first_index_answers_while_it_embeds(pyshop_cpg: Path, tmp_path: Path) -> None:
    """During a first run's embedding, a query answers (exit 0) and says the index is still building."""
    db = tmp_path / "i.db"
    with embedding_server(Faults(delay_s=4.0)) as (url, _):
        run = subprocess.Popen(
            [
                str(GREPLOOM),
                "index",
                str(pyshop_cpg),
                "--db",
                str(db),
                "--provider",
                "ollama",
                "--ollama-url",
                url,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                early = cli("query", "retry backoff", "--db", db, "--provider", "none")
                if early.code == 0 or run.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            assert run.poll() is None, "the run ended before a query could see it building"
            assert early.code == 0, early.err
            header = early.out.splitlines()[0]
            assert "vectors: 0% (index still building)" in header
            assert "backoff_delay" in early.out  # found by its words already
            assert _status(db)["build"] == "building" and _status(db)["complete"] is False
        finally:
            assert run.wait(timeout=120) == 0, run.stderr.read().decode() if run.stderr else ""
    done = cli("query", "retry backoff", "--db", db, "--provider", "none")
    assert "vectors:" not in done.out.splitlines()[0]
    status = _status(db)
    assert status["complete"] is True and status["build"] == "done" and status["vectors"] == status["nodes"]


def test_a_first_run_stopped_part_way_answers_with_what_it_has(
    pyshop_cpg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches finished before a failure are searchable; the next run embeds only the rest."""
    monkeypatch.setattr(index_embed, "EMBED_BATCH", 5)
    db = tmp_path / "i.db"
    with embedding_server(Faults(fail_after=2)) as (url, faults):
        first = cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url)
        assert first.code == 5 and "previous index is unchanged" not in first.err
        faults.fail_after = None  # the embedder is back: queries embed, the index is still partial
        answered = cli("query", "retry backoff", "--db", db, "--format", "json")
        assert answered.code == 0, answered.err
        meta = answered.json()["metadata"]
        assert meta["build"] == "stopped" and meta["search_mode"] == "hybrid"  # the finished vectors answer
        share = int(meta["vectors"].rstrip("%"))
        assert 0 < share < 100
        text = cli("query", "retry backoff", "--db", db).out.splitlines()[0]
        assert f"vectors: {share}% (the build stopped: run greploom index)" in text
        assert cli("check", "--db", db).code == 4
        before = faults.requests
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url).code == 0
        assert faults.requests - before == 2  # 9 rows left, in batches of 5: the first 10 were kept
    status = _status(db)
    assert status["complete"] is True and status["vectors"] == status["nodes"] == 19
    assert cli("check", "--db", db).code == 0


def test_a_complete_index_keeps_its_answers_until_a_run_switches(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Only a first run is searchable early: a re-index never shows half of itself."""
    db = tmp_path / "i.db"
    with embedding_server(Faults()) as (url, faults):
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url).code == 0
        first = cli("query", "retry backoff", "--db", db, "--provider", "none").out
        faults.delay_s = 3.0
        asked = faults.requests
        command = [str(GREPLOOM), "index", str(pyshop_cpg), "--db", str(db), "--force"]
        command += ["--provider", "ollama", "--ollama-url", url]
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while faults.requests == asked:  # the run is embedding (its batch is held 3 s)
                assert run.poll() is None and time.monotonic() < deadline, "the re-index never embedded"
                time.sleep(0.05)
            during = cli("query", "retry backoff", "--db", db, "--provider", "none").out
            assert run.poll() is None, "the re-index ended before the query could see it running"
        finally:
            assert run.wait(timeout=120) == 0
        after = cli("query", "retry backoff", "--db", db, "--provider", "none").out
    age = lambda text: text.split("| index age:")[0]  # noqa: E731
    assert age(during) == age(first) == age(after) and "vectors:" not in during
