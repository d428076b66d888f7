"""Faults during indexing and querying: the previous index always keeps answering."""

from __future__ import annotations

import fcntl
import signal
import subprocess
import time
from pathlib import Path

import pytest

from greploom.shell import embed_http
from greploom.shell.embed_local import LOCAL_MODEL
from tests.cli_helpers import GREPLOOM, cli, said
from tests.embed_server import Faults, embedding_server


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed_http, "BACKOFF_S", 0.01)


def _status(db: Path) -> dict[str, object]:
    info: dict[str, object] = cli("status", "--db", db, "--format", "json").json()
    return info


def test_index_and_query_through_ollama(pyshop_cpg: Path, tmp_path: Path) -> None:
    """An index built with Ollama is queried with Ollama, found from the recorded URL."""
    db = tmp_path / "o.db"
    with embedding_server() as (url, faults):
        run = cli(
            "index",
            pyshop_cpg,
            "--db",
            db,
            "--provider",
            "ollama",
            "--ollama-url",
            url,
            "--model",
            "all-minilm",
        )
        assert run.code == 0, run.err
        assert "ollama:all-minilm" in run.out
        before = faults.requests
        meta = cli("query", "retry backoff", "--db", db, "--format", "json").json()["metadata"]
        assert meta["search_mode"] == "hybrid" and meta["embedder"] == "ollama:all-minilm"
        assert faults.requests == before + 1
    assert _status(db)["dimension"] == 16


def test_openai_index_with_shuffled_answers(pyshop_cpg: Path, tmp_path: Path) -> None:
    """An OpenAI-compatible server that shuffles `index` still gives a correct index."""
    db = tmp_path / "oa.db"
    with embedding_server(Faults(shuffle=True, dim=24)) as (url, _):
        run = cli("index", pyshop_cpg, "--db", db, "--provider", "openai", "--embedding-url", url)
        assert run.code == 0, run.err
        envelope = cli("query", "retry backoff delay", "--db", db, "--format", "json").json()
        assert envelope["metadata"]["search_mode"] == "hybrid"
        assert envelope["results"][0]["key"] == "function:shop/net.py:backoff_delay"


def test_embedder_down_at_query_falls_back_to_lexical(pyshop_cpg: Path, tmp_path: Path) -> None:
    """No embedder answering: search still answers, and says it is lexical-only and why."""
    db = tmp_path / "o.db"
    with embedding_server() as (url, _):
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url).code == 0
    run = cli("query", "backoff", "--db", db, "--format", "json")
    meta = run.json()["metadata"]
    assert meta["search_mode"] == "lexical-only"
    assert "unreachable" in meta["embedder_error"]
    assert run.json()["results"][0]["key"] == "function:shop/net.py:backoff_delay"
    text = cli("query", "backoff", "--db", db).out
    assert text.startswith("# greploom: lexical-only search")


def test_failing_embedder_leaves_the_index_intact(pyshop_cpg: Path, tmp_path: Path) -> None:
    """An embedder that fails mid-run: exit 5, one line, the old index still answers."""
    db = tmp_path / "o.db"
    with embedding_server() as (url, faults):
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url).code == 0
        faults.status = 500
        run = cli("index", pyshop_cpg, "--db", db, "--force")
        assert run.code == 5
        assert "previous index is unchanged" in run.err and len(said(run.err)) == 1
        faults.status = None
        assert _status(db)["vectors"] == 19
        meta = cli("query", "backoff", "--db", db, "--format", "json").json()["metadata"]
        assert meta["search_mode"] == "hybrid"


def test_embedder_mismatch_is_refused(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Vectors from two models never mix: a different embedder needs --force."""
    db = tmp_path / "l.db"
    assert cli("index", pyshop_cpg, "--db", db).code == 0
    run = cli("query", "x", "--db", db, "--provider", "ollama")
    assert run.code == 5 and f"embedded with local:{LOCAL_MODEL}, not ollama:nomic-embed-text" in run.err
    assert cli("query", "x", "--db", db, "--provider", "local").code == 0
    env_run = cli("query", "x", "--db", db, env={"GREPLOOM_PROVIDER": "openai"})
    assert env_run.code == 5
    with embedding_server() as (url, _):
        refused = cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url)
        assert refused.code == 5 and "pass --force" in refused.err
        assert _status(db)["embedder"] == f"local:{LOCAL_MODEL}"
        forced = cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url, "--force")
        assert forced.code == 0, forced.err
        assert _status(db)["dimension"] == 16 and _status(db)["vectors"] == 19


def test_index_of_a_retired_bundled_model(pyshop_cpg: Path, tmp_path: Path) -> None:
    """An index embedded with the model an earlier greploom shipped: queries say to re-index,
    a plain re-index says --force, and --force re-embeds it with today's model."""
    import apsw

    db = tmp_path / "old.db"
    assert cli("index", pyshop_cpg, "--db", db).code == 0
    with apsw.Connection(str(db)) as conn:  # what 0.x before the code-tuned model recorded
        conn.execute("UPDATE meta SET value = 'all-MiniLM-L6-v2-int8' WHERE key = 'embedder_model'")
    run = cli("query", "backoff", "--db", db)
    assert run.code == 5 and "no longer ships" in run.err and "--force" in run.err
    assert run.err.count("\n") == 1
    refused = cli("index", pyshop_cpg, "--db", db)
    assert refused.code == 5 and "--force" in refused.err
    assert cli("query", "backoff", "--db", db).code == 5  # still the old index, untouched
    forced = cli("index", pyshop_cpg, "--db", db, "--force")
    assert forced.code == 0, forced.err
    assert _status(db)["embedder"] == f"local:{LOCAL_MODEL}"
    assert cli("query", "backoff", "--db", db).code == 0


def test_second_index_run_is_told_the_index_is_busy(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Two writers never interleave: the second one exits 4 and says why."""
    db = tmp_path / "b.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    with (tmp_path / "b.db.lock").open("a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        run = cli("index", pyshop_cpg, "--db", db, "--provider", "none")
        assert run.code == 4 and "busy" in run.err
        assert cli("query", "cart", "--db", db).code == 0  # readers are not blocked


def test_killed_run_and_queries_during_indexing(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Queries answer while a slow run embeds; killing that run leaves the old index whole."""
    db = tmp_path / "k.db"
    with embedding_server() as (url, faults):
        assert cli("index", pyshop_cpg, "--db", db, "--provider", "ollama", "--ollama-url", url).code == 0
        faults.delay_s = 30.0  # the next run hangs inside its first embedding request
        seen = faults.requests
        proc = subprocess.Popen(
            [str(GREPLOOM), "index", str(pyshop_cpg), "--db", str(db), "--force"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while faults.requests == seen and time.monotonic() < deadline:
                time.sleep(0.05)
            assert faults.requests > seen, "the index run never reached the embedder"
            faults.delay_s = 0.0
            during = cli("query", "retry backoff", "--db", db, "--format", "json")
            assert during.code == 0 and during.json()["results"]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        info = _status(db)
        assert info["nodes"] == 19 and info["vectors"] == 19
        after = cli("query", "retry backoff", "--db", db, "--format", "json").json()
        assert after["results"][0]["key"] == "function:shop/net.py:backoff_delay"
        assert cli("index", pyshop_cpg, "--db", db, "--force").code == 0  # the lock died with it


def test_changed_local_model_is_refused(pyshop_cpg: Path, tmp_path: Path) -> None:
    """A query with another local model directory than the index was built with is an error."""
    import shutil

    from greploom.shell import assets

    db = tmp_path / "l.db"
    assert cli("index", pyshop_cpg, "--db", db).code == 0
    model_dir = tmp_path / "other-model"
    model_dir.mkdir()
    shutil.copy(assets.DATA_DIR / assets.MODEL_FILE, model_dir / "model.onnx")
    shutil.copy(assets.DATA_DIR / assets.TOKENIZER_FILE, model_dir / "tokenizer.json")
    run = cli("query", "cart", "--db", db, env={"GREPLOOM_LOCAL_MODEL_DIR": str(model_dir)})
    assert run.code == 5 and "custom:other-model" in run.err
