"""CPGs that are not what treeloom writes, or not files at all: one clear line, or a working index.

Issue 12: JSON nested too deeply, definitions nested 1,000 deep, a FIFO or a
device given as the CPG, and source files whose names are not UTF-8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import GREPLOOM, Run, cli, said

DEPTH = 1000  # far past Python's own recursion limit, where a recursive walk fails
TIMEOUT_S = 60  # a FIFO or /dev/zero that is read hangs: the test fails instead


def _one_line(err: str) -> None:
    lines = said(err)
    assert len(lines) == 1 and lines[0].startswith("greploom: error: "), err


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    limit = 4 << 30  # a regression reading /dev/zero whole fails fast instead of exhausting memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _run(*args: str | Path, program: Path = GREPLOOM) -> Run:
    """Run a command as users do, bounded in time and memory."""
    done = subprocess.run(
        [str(program), *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        preexec_fn=_limit_memory,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def _node(node_id: str, kind: str, name: str, line: int, scope: str | None, **attrs: Any) -> dict[str, Any]:
    """A node with the 7 keys treeloom writes."""
    return {
        "id": node_id,
        "kind": kind,
        "name": name,
        "location": {"file": "deep.py", "line": line, "column": 0},
        "end_location": {"file": "deep.py", "line": DEPTH + 1, "column": 0},
        "scope": scope,
        "attrs": attrs,
    }


def _nested_cpg(depth: int, innermost_first: bool) -> dict[str, Any]:
    """Module ``deep.py`` holding functions ``f0`` .. ``f{depth-1}``, each defined in the one before."""
    nodes = [_node("module:deep.py:1:0:0", "module", "deep", 1, None)]
    for level in range(depth):
        node_id = f"function:deep.py:{level + 1}:0:{level + 1}"
        nodes.append(_node(node_id, "function", f"f{level}", level + 1, nodes[-1]["id"]))
    return {
        "treeloom_version": "0.9.0",
        "nodes": nodes[::-1] if innermost_first else nodes,
        "edges": [],
        "annotations": {},
        "edge_annotations": [],
    }


_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "content",
    [
        _DEEP,
        '{"nodes": ' + _DEEP + ', "edges": []}',
        '{"nodes": [{"id": "m", "kind": "module", "name": "m", "location": null, "end_location": null, '
        '"scope": null, "attrs": {"x": ' + _DEEP + '}}], "edges": []}',
    ],
    ids=["top-level", "in-nodes", "in-attrs"],
)
def test_deeply_nested_json_is_refused_in_one_line(tmp_path: Path, content: str) -> None:
    """JSON nested deeper than a decoder follows is refused as no CPG, exit 3, not a crash."""
    cpg = tmp_path / "deep.json"
    cpg.write_text(content)
    run = cli("index", cpg, "--db", tmp_path / "d.db", "--provider", "none")
    assert run.code == 3, run.err
    _one_line(run.err)
    assert "is nested too deeply to be a CPG" in run.err


@pytest.mark.parametrize("innermost_first", [False, True], ids=["outermost-first", "innermost-first"])
def test_functions_nested_a_thousand_deep_get_their_full_names(tmp_path: Path, innermost_first: bool) -> None:
    """A definition nested 1,000 deep is indexed under its whole dotted name, in any node order."""
    cpg = tmp_path / "deep.json"
    cpg.write_text(json.dumps(_nested_cpg(DEPTH, innermost_first)))
    db = tmp_path / "d.db"
    run = cli("index", cpg, "--db", db, "--provider", "none")
    assert run.code == 0, run.err
    assert f"indexed {DEPTH + 1} nodes" in run.out
    path = ".".join(f"f{level}" for level in range(DEPTH))
    # Its name and key are some 2,000 tokens each, and a JSON result carries both more than
    # once: more than the default budget holds (the CLI says so, naming the budget that does).
    args = ("query", f"f{DEPTH - 1}", "--db", db, "--format", "json", "--top-k", "1")
    assert "cannot hold this answer as JSON; the smallest that can is" in cli(*args).err
    hit = cli(*args, "--budget", "20000").json()["results"][0]
    assert hit["name"] == f"f{DEPTH - 1}"
    assert hit["qualname"] == f"deep.{path}"
    assert hit["key"] == f"function:deep.py:{path}"


def test_a_scope_cycle_is_indexed_not_a_crash(tmp_path: Path) -> None:
    """Two functions naming each other as their scope (a hand-written CPG) still index, exit 0."""
    nodes = [
        _node("m", "module", "deep", 1, None),
        _node("a", "function", "alpha", 2, "b"),
        _node("b", "function", "beta", 3, "a"),
    ]
    cpg = tmp_path / "cycle.json"
    cpg.write_text(json.dumps({"nodes": nodes, "edges": []}))
    db = tmp_path / "d.db"
    run = cli("index", cpg, "--db", db, "--provider", "none")
    assert run.code == 0, run.err
    assert "indexed 3 nodes" in run.out
    names = {r["name"] for r in cli("query", "alpha beta", "--db", db, "--format", "json").json()["results"]}
    assert {"alpha", "beta"} <= names


def _special_files(tmp_path: Path) -> list[Path]:
    found = [Path("/dev/zero")] if Path("/dev/zero").exists() else []
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "cpg.fifo"
        os.mkfifo(fifo)
        found.append(fifo)
    if not found:
        pytest.skip("no FIFO or /dev/zero on this system")
    return found


def test_a_fifo_or_a_device_as_the_cpg_is_refused_at_once(tmp_path: Path) -> None:
    """``greploom index /dev/zero`` or a FIFO exits 3 with one line at once instead of never returning."""
    for special in _special_files(tmp_path):
        run = _run("index", special, "--db", tmp_path / "d.db", "--provider", "none")
        assert run.code == 3, (special, run.err)
        _one_line(run.err)
        assert f"{special} is not a regular file" in run.err


def test_load_cpg_refuses_a_fifo_or_a_device(tmp_path: Path) -> None:
    """``greploom.load_cpg`` raises CpgError for a FIFO or /dev/zero, not blocking or reading forever."""
    script = tmp_path / "load.py"
    script.write_text(
        "import sys, greploom\n"
        "from greploom.core.errors import CpgError\n"
        "try:\n"
        "    greploom.load_cpg(sys.argv[1])\n"
        "except CpgError as exc:\n"
        "    print(exc)\n"
    )
    for special in _special_files(tmp_path):
        run = _run(script, special, program=Path(sys.executable))
        assert run.code == 0, run.err
        assert f"{special} is not a regular file" in run.out


@pytest.fixture
def non_utf8_dir(tmp_path: Path) -> Path:
    """Sources: two files whose names hold a byte that is not UTF-8 (Python, JavaScript), one plain."""
    root = tmp_path / "src"
    root.mkdir()
    files = {
        b"caf\xe9.py": b'def brew_espresso(cups):\n    """Make strong coffee."""\n    return cups * 2\n',
        b"th\xe9.js": b"function steepLeaves(minutes) {\n  // green tea\n  return minutes * 3;\n}\n",
        b"plain.py": b"def pour_water(glasses):\n    return glasses + 1\n",
    }
    for name, body in files.items():
        try:
            with open(os.path.join(os.fsencode(root), name), "wb") as handle:
                handle.write(body)
        except OSError:  # a file system that insists on UTF-8 names (macOS)
            pytest.skip("this file system does not allow file names that are not UTF-8")
    return root


def test_file_names_that_are_not_utf8_are_indexed_escaped(non_utf8_dir: Path, tmp_path: Path) -> None:
    """A file whose name is not UTF-8 is indexed under an escaped name, with a warning, not a failed run."""
    db = tmp_path / "d.db"
    run = cli("index", non_utf8_dir, "--db", db, "--provider", "none")
    assert run.code == 0, run.err
    assert "2 files have names that are not UTF-8" in run.err
    assert "caf\\xe9.py" in run.err

    coffee = cli("query", "brew espresso", "--db", db, "--format", "json", "--include-source").json()
    hit = next(r for r in coffee["results"] if r["name"] == "brew_espresso")
    assert hit["file"] == "caf\\xe9.py"
    assert "return cups * 2" in hit["source"]

    # treeloom records no source for JavaScript: it is read from the file, by its name on disk.
    tea = cli("query", "steep leaves", "--db", db, "--format", "json", "--include-source").json()
    hit = next(r for r in tea["results"] if r["name"] == "steepLeaves")
    assert hit["file"] == "th\\xe9.js"
    assert "return minutes * 3" in hit["source"]

    plain = cli("query", "pour water", "--db", db, "--format", "json").json()
    assert any(r["name"] == "pour_water" and r["file"] == "plain.py" for r in plain["results"])
