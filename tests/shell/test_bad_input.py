"""Bad input gets one clear line, the right exit code, and leaves an existing index intact."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import apsw
import pytest

from tests.cli_helpers import cli, said


@pytest.fixture
def db(pyshop_cpg: Path, tmp_path: Path) -> Path:
    """A working index that every bad run below must leave as it was."""
    path = tmp_path / "index.db"
    assert cli("index", pyshop_cpg, "--db", path, "--provider", "none").code == 0
    return path


def _intact(db: Path) -> None:
    info = cli("status", "--db", db, "--format", "json").json()
    assert info["nodes"] == 19
    assert cli("query", "backoff", "--db", db).code == 0


def _one_line(err: str) -> None:
    lines = said(err)
    assert len(lines) == 1 and lines[0].startswith("greploom: error: "), err


def _node(i: int = 1, **changes: object) -> dict[str, object]:
    node: dict[str, object] = {
        "id": f"function:a.py:{i}:0:{i}",
        "kind": "function",
        "name": f"f{i}",
        "location": {"file": "a.py", "line": i, "column": 0},
        "end_location": None,
        "scope": None,
        "attrs": {},
    }
    node.update(changes)
    return node


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("", "is empty, not a CPG JSON file"),
        ("[1, 2]", "the top level must be a JSON object, not a list"),
        ('{"nodes": []}', "required field missing @ $.edges"),
        ('{"nodes": {}, "edges": []}', "expected a list, got an object @ $.nodes"),
        (
            json.dumps({"nodes": [_node(1), _node(2, location={"file": "a.py", "column": 0})], "edges": []}),
            "$.nodes[1].location.line",
        ),
        (
            json.dumps(
                {
                    "nodes": [_node(1, location={"file": "a.py", "line": "x", "column": 0})],
                    "edges": [],
                }
            ),
            "$.nodes[0].location.line",
        ),
        (json.dumps({"nodes": [_node(1)], "edges": [{"source": "a"}]}), "$.edges[0]"),
    ],
)
def test_malformed_cpg(db: Path, tmp_path: Path, content: str, message: str) -> None:
    """Each malformed CPG names what is wrong, exits 3, and changes nothing."""
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    run = cli("index", bad, "--db", db, "--provider", "none")
    assert run.code == 3
    _one_line(run.err)
    assert message in run.err
    _intact(db)


def test_newer_treeloom_kinds_are_skipped(tmp_path: Path) -> None:
    """Unknown node/edge kinds, dangling edges and duplicate ids are counted, not fatal."""
    cpg = {
        "treeloom_version": "9.9",
        "nodes": [
            _node(1),
            _node(1),
            _node(2, kind="lambda"),
            {**_node(3), "kind": "class", "name": "C"},
        ],
        "edges": [
            {"source": "function:a.py:1:0:1", "target": "gone", "kind": "calls", "attrs": {}},
            {"source": "function:a.py:1:0:1", "target": "function:a.py:3:0:3", "kind": "teleports"},
        ],
    }
    path = tmp_path / "new.json"
    path.write_text(json.dumps(cpg))
    run = cli("index", path, "--db", tmp_path / "n.db", "--provider", "none")
    assert run.code == 0, run.err
    assert "skipped 1 nodes and 1 edges" in run.err
    assert "ignored 1 edges that name missing nodes" in run.err
    assert "ignored 1 nodes with duplicate ids" in run.err
    assert "indexed 2 nodes" in run.out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["index", "does/not/exist.json"], 3, "no such file or directory"),
        (["query", "x", "--budget", "0"], 2, "budget must be a positive number"),
        (["query", "x", "--budget", "-5"], 2, "budget must be a positive number"),
        (["query", "x", "--budget", "20"], 2, "cannot hold this answer; the smallest that can is"),
        (["query", "x", "--top-k", "0"], 2, "top-k must be between 1 and 100"),
        (["query", "x", "--top-k", "1000"], 2, "top-k must be between 1 and 100"),
        (["query", "x", "--depth", "9"], 2, "depth must be between 0 and 4"),
        (["query"], 2, "give query text"),
        (["query", "x", "--budget", "lots"], 2, "see `greploom --help`"),
        (["query", "x", "--format", "yaml"], 2, "see `greploom --help`"),
        (["index", "x.json", "--provider", "magic"], 2, "see `greploom --help`"),
        (["query", "x", "--cpg", "missing.json"], 2, "--cpg missing.json: no such file"),
        (["frobnicate"], 2, "see `greploom --help`"),
    ],
)
def test_bad_arguments(db: Path, args: list[str], code: int, message: str) -> None:
    """Out-of-range and malformed arguments are usage errors with one line."""
    run = cli(*args, "--db", db)
    assert run.code == code, run.err
    _one_line(run.err)
    assert message in run.err
    _intact(db)


def test_query_never_creates_a_database(tmp_path: Path) -> None:
    """Querying a path with no index says so and leaves no file behind."""
    run = cli("query", "x", "--db", tmp_path / "missing.db")
    assert run.code == 4 and "no index at" in run.err
    assert not (tmp_path / "missing.db").exists()


def test_not_an_index(tmp_path: Path) -> None:
    """A text file, a foreign SQLite file and a directory are refused by name."""
    text = tmp_path / "notes.db"
    text.write_text("hello, this is not a database at all" * 100)
    assert "not a greploom index" in cli("query", "x", "--db", text).err
    foreign = tmp_path / "other.db"
    conn = apsw.Connection(str(foreign))
    conn.execute("CREATE TABLE t(x)")
    conn.close()
    run = cli("query", "x", "--db", foreign)
    assert run.code == 4 and "an SQLite database but not a greploom index" in run.err
    run = cli("index", tmp_path / "notes.db", "--db", foreign, "--provider", "none")
    assert run.code == 3  # the CPG is checked first; the foreign file stays untouched
    assert cli("query", "x", "--db", tmp_path).code == 4


def test_newer_schema_is_refused(db: Path) -> None:
    """An index written by a newer greploom is not misread."""
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    run = cli("query", "x", "--db", db)
    assert run.code == 4 and "newer than this greploom's" in run.err


def test_copy_of_index_still_answers(db: Path, tmp_path: Path) -> None:
    """An index file is self-contained: copied elsewhere it answers without the CPG."""
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    cpg = Path(cli("status", "--db", db, "--format", "json").json()["cpg"])
    assert cpg.exists()
    assert cli("query", "backoff", "--db", copy).code == 0


def test_source_directory_without_treeloom(
    db: Path, sample_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexing a directory without treeloom installed says how to get it, and changes nothing."""
    from greploom.shell import treeloom

    monkeypatch.setattr(treeloom, "find_spec", lambda name: None)
    run = cli("index", sample_dir / "pyshop", "--db", db, "--provider", "none")
    assert run.code == 1
    _one_line(run.err)
    assert "treeloom is not installed" in run.err and "pip install 'treeloom[languages]'" in run.err
    _intact(db)
