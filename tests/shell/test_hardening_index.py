"""Faults of issue 12 around index runs and embedders: no silent mix of vector spaces, no
dead-end index, deadlines, and an index that the next ordinary command can always repair."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import apsw
import pytest
import sqlite_vec

from greploom.shell import embed_http, index_embed
from tests.cli_helpers import cli
from tests.conftest import build_cpg_file
from tests.embed_server import Faults, embedding_server

ONE_SECOND = {"GREPLOOM_QUERY_TIMEOUT": "1"}


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Committed batches of 4 texts in requests of 2: a 19-node index takes 5 batches, 10 requests."""
    monkeypatch.setattr(embed_http, "BACKOFF_S", 0.01)
    monkeypatch.setattr(embed_http, "BATCH_SIZE", 2)
    monkeypatch.setattr(index_embed, "EMBED_BATCH", 4)


def stored_vectors(db: Path) -> dict[str, list[float]]:
    """Every stored vector by node key, read straight from the file."""
    with apsw.Connection(str(db)) as conn:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        rows = conn.execute("SELECT n.key, v.embedding FROM vectors v JOIN nodes n ON n.id = v.rowid")
        return {key: list(struct.unpack(f"{len(blob) // 4}f", blob)) for key, blob in rows}


def summaries(db: Path) -> dict[str, str]:
    """The text each node was embedded from is its summary: key -> summary."""
    with apsw.Connection(str(db)) as conn:
        return dict(conn.execute("SELECT key, summary FROM nodes"))


def assert_all_from(db: Path, clean: Path) -> None:
    """Key by key, the index holds the same vectors as a clean run of one embedder."""
    got, want = stored_vectors(db), stored_vectors(clean)
    assert got.keys() == want.keys()
    for key, vector in want.items():
        assert got[key] == pytest.approx(vector, abs=1e-6), key


def oa(url: str, model: str) -> tuple[str, ...]:
    return ("--provider", "openai", "--embedding-url", url, "--model", model)


def status(db: Path) -> dict[str, object]:
    info: dict[str, object] = cli("status", "--db", db, "--format", "json").json()
    return info


def test_a_failed_run_of_another_model_never_lends_its_vectors(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 1: m2's finished batches of a failed --force run are not reused by the next run of m."""
    db, clean = tmp_path / "d.db", tmp_path / "clean.db"
    faults = Faults(per_model=True)
    with embedding_server(faults) as (url, f):
        assert cli("index", pyshop_cpg, "--db", clean, *oa(url, "m")).code == 0
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.fail_after = f.requests + 4
        failed = cli("index", pyshop_cpg, "--db", db, "--force", *oa(url, "m2"))
        assert failed.code == 5 and "embedded 8 of 19" in failed.err
        assert status(db)["pending_vectors"] == 8
        f.fail_after = None
        again = cli("index", pyshop_cpg, "--db", db, "--force", *oa(url, "m"))
        assert again.code == 0, again.err
    assert_all_from(db, clean)
    assert status(db)["pending_vectors"] == 0


def test_another_width_left_pending_does_not_block_later_runs(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 2: after a failed --force run of a 24-dim model, --force and plain runs of the 16-dim one work."""
    db, clean = tmp_path / "d.db", tmp_path / "clean.db"
    with embedding_server(Faults(per_model=True, dim_for={"wide": 24})) as (url, f):
        assert cli("index", pyshop_cpg, "--db", clean, *oa(url, "m")).code == 0
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.fail_after = f.requests + 4
        assert cli("index", pyshop_cpg, "--db", db, "--force", *oa(url, "wide")).code == 5
        f.fail_after = None
        forced = cli("index", pyshop_cpg, "--db", db, "--force", *oa(url, "m"))
        assert forced.code == 0, forced.err
        plain = cli("index", pyshop_cpg, "--db", db, *oa(url, "m"))
        assert plain.code == 0, plain.err
        assert status(db)["dimension"] == 16
        assert cli("check", "--db", db).code == 0
    assert_all_from(db, clean)


def test_a_width_past_the_vector_table_limit_is_refused(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 2: a 65,536-dim answer is one clear error, and the next run of the local model works."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db).code == 0
    with embedding_server(Faults(dim_for={"huge": 65_536})) as (url, _):
        run = cli("index", pyshop_cpg, "--db", db, "--force", *oa(url, "huge"))
    assert (run.code == 5 and "at most 8192 dimensions" in run.err) or "MiB" in run.err
    back = cli("index", pyshop_cpg, "--db", db, "--force")
    assert back.code == 0, back.err
    assert status(db)["dimension"] == 384 and status(db)["vectors"] == 19


def test_nothing_to_embed_keeps_the_recorded_width(sample_dir: Path, tmp_path: Path) -> None:
    """Case 3: a rebuilt CPG whose definitions all kept their text needs no vector, and the run succeeds."""
    src = tmp_path / "pyshop"
    shutil.copytree(sample_dir / "pyshop", src)
    cpg = build_cpg_file(src, tmp_path / "c1.json")
    db = tmp_path / "d.db"
    with embedding_server() as (url, f):
        assert cli("index", cpg, "--db", db, *oa(url, "m")).code == 0
        for file in sorted(src.rglob("*.py")):
            file.write_text("# a comment line\n" + file.read_text())
        build_cpg_file(src, cpg)
        before = f.requests
        run = cli("index", cpg, "--db", db)
        assert run.code == 0, run.err
        assert f.requests == before  # nothing needed a vector
    info = status(db)
    assert info["dimension"] == 16 and info["vectors"] == 19


def test_a_first_index_of_a_cpg_without_definitions(tmp_path: Path) -> None:
    """Case 3: indexing a CPG with no definitions through an HTTP embedder succeeds and warns."""
    cpg = tmp_path / "empty.json"
    cpg.write_text(json.dumps({"treeloom_version": "0.9.0", "nodes": [], "edges": []}))
    db = tmp_path / "d.db"
    with embedding_server() as (url, _):
        run = cli("index", cpg, "--db", db, *oa(url, "m"))
        assert run.code == 0, run.err
        assert "holds no function, class or module nodes" in run.err
        assert cli("check", "--db", db).code == 0


def test_query_through_an_embedder_of_another_width_falls_back(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 5: a server that now answers 24-dim query vectors gives a lexical answer that says why."""
    db = tmp_path / "d.db"
    faults = Faults()
    with embedding_server(faults) as (url, f):
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.dim = 24
        run = cli("query", "retry backoff", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    meta = run.json()["metadata"]
    assert meta["search_mode"] == "lexical-only" and "24-dim" in meta["embedder_error"]
    assert run.json()["results"][0]["key"] == "function:shop/net.py:backoff_delay"


def test_a_hanging_embedder_is_left_at_the_query_deadline(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 10: a server that never answers in time: the query answers lexically, naming the deadline."""
    db = tmp_path / "d.db"
    faults = Faults()
    with embedding_server(faults) as (url, f):
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.delay_s = 30
        run = cli("query", "retry backoff", "--db", db, "--format", "json", env=ONE_SECOND)
        f.delay_s = 0
    meta = run.json()["metadata"]
    assert meta["search_mode"] == "lexical-only"
    assert "did not answer within 1s" in meta["embedder_error"]


def test_a_dripping_embedder_is_left_at_the_query_deadline(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 10: a server that sends its answer a byte at a time is abandoned at the deadline."""
    db = tmp_path / "d.db"
    with embedding_server() as (url, f):
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.drip_s = 0.05  # about 20 s for a 16-dim answer
        run = cli("query", "retry backoff", "--db", db, "--format", "json", env=ONE_SECOND)
        f.drip_s = 0
    meta = run.json()["metadata"]
    assert meta["search_mode"] == "lexical-only" and "did not answer within 1s" in meta["embedder_error"]


def test_too_many_requests_is_retried_after_the_servers_wait(pyshop_cpg: Path, tmp_path: Path) -> None:
    """A 429 with Retry-After is waited out and retried, not a failed run."""
    db = tmp_path / "d.db"
    with embedding_server(Faults(too_many_first=2)) as (url, f):
        run = cli("index", pyshop_cpg, "--db", db, *oa(url, "m"))
        assert run.code == 0, run.err
        assert f.requests == 10 + 2
    assert status(db)["vectors"] == 19


def test_an_oversized_answer_is_refused(
    pyshop_cpg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer larger than the cap is one clear error, not a memory blow-up; the old index stays."""
    db = tmp_path / "d.db"
    with embedding_server() as (url, _):
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        monkeypatch.setattr(embed_http, "MAX_RESPONSE_BYTES", 200)
        run = cli("index", pyshop_cpg, "--db", db, "--force")
    assert run.code == 5 and "answered with more than" in run.err
    assert status(db)["vectors"] == 19


@pytest.mark.parametrize(("flag", "provider"), [("--embedding-url", "openai"), ("--ollama-url", "ollama")])
def test_a_server_url_names_the_provider(pyshop_cpg: Path, tmp_path: Path, flag: str, provider: str) -> None:
    """Case 14: a server URL without --provider indexes with that server, not silently with local."""
    db = tmp_path / "d.db"
    with embedding_server() as (url, f):
        run = cli("index", pyshop_cpg, "--db", db, flag, url, "--model", "m")
        assert run.code == 0, run.err
        assert f.requests > 0
    assert status(db)["embedder"] == f"{provider}:m"


def test_a_server_url_from_the_environment_names_the_provider(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 14: GREPLOOM_EMBEDDING_URL alone indexes with the OpenAI-compatible server."""
    db = tmp_path / "d.db"
    with embedding_server() as (url, _):
        run = cli("index", pyshop_cpg, "--db", db, "--model", "m", env={"GREPLOOM_EMBEDDING_URL": url})
        assert run.code == 0, run.err
    assert status(db)["embedder"] == "openai:m"


def test_a_server_url_for_another_provider_is_an_error(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 14: a URL the chosen embedder would not use is refused with the flag to add."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    run = cli("index", pyshop_cpg, "--db", db, "--embedding-url", "http://127.0.0.1:9")
    assert run.code == 2 and "--provider openai" in run.err and run.err.count("\n") == 1


def test_keys_of_parameter_and_import_blocks_are_accepted(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Case 4: every key an answer hands out, parameters' and imports' too, works with --node."""
    db = tmp_path / "d.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    results = cli("query", "send order", "--db", db, "--format", "json").json()["results"]
    # Parameters and imports are no results of their own: their owner's structure lists them.
    assert not any(r["kind"] in ("parameter", "import") for r in results)
    listed = [
        ref
        for r in results
        for name in ("parameters", "imports")
        for ref in r["structural_context"].get(name, [])
    ]
    kinds = {ref["kind"] for ref in listed}
    assert "parameter" in kinds and "import" in kinds
    keys = [r["key"] for r in results] + [ref["key"] for ref in listed]
    for key in keys:
        run = cli("query", "--node", key, "--db", db, "--format", "json")
        assert run.code == 0, (key, run.err)
        assert run.json()["metadata"]["unknown_nodes"] == []
    owner = cli("query", "--node", "function:shop/net.py:send_order(url)", "--db", db, "--format", "json")
    assert owner.json()["results"][0]["key"] == "function:shop/net.py:send_order"


def test_a_run_killed_between_its_last_batch_and_the_switch(pyshop_cpg: Path, tmp_path: Path) -> None:
    """Crash trial: kill -9 right after the embedder's last answer; the next plain run succeeds and
    every stored vector is the recorded model's (benchmarks/crash_trials.py runs many more)."""
    import subprocess

    from tests.cli_helpers import GREPLOOM

    db, clean = tmp_path / "d.db", tmp_path / "clean.db"
    with embedding_server(Faults(per_model=True, dim_for={"m2": 24})) as (url, f):
        assert cli("index", pyshop_cpg, "--db", clean, *oa(url, "m")).code == 0
        assert cli("index", pyshop_cpg, "--db", db, *oa(url, "m")).code == 0
        f.requests, f.kill_at = 0, 1  # 19 texts: one request, the last
        proc = subprocess.Popen(
            [str(GREPLOOM), "index", str(pyshop_cpg), "--db", str(db), "--force", *oa(url, "m2")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        f.kill_pid = proc.pid
        assert proc.wait(timeout=120) == -9
        f.kill_pid = None
        plain = cli("index", pyshop_cpg, "--db", db)
        assert plain.code == 0, plain.err
    assert status(db)["embedder"] == "openai:m" and status(db)["pending_vectors"] == 0
    assert_all_from(db, clean)
