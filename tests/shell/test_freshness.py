"""Staleness said per block: a block whose file changed since the index read it is flagged.

Real files edited on disk after a real index run of the sample project; the
answers are read as a user reads them (the text header and block headers,
the JSON fields).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import cli
from tests.conftest import build_cpg_file

QUESTION = "retry backoff delay"


@pytest.fixture
def project(sample_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the Python sample, indexed from its directory."""
    target = tmp_path / "proj"
    shutil.copytree(sample_dir / "pyshop", target)
    assert cli("index", target, "--db", tmp_path / "i.db").code == 0
    return target


def answer(db: Path, *args: str) -> dict[str, Any]:
    run = cli("query", QUESTION, "--db", db, "--format", "json", "--budget", "3000", *args)
    assert run.code == 0, run.err
    return dict(run.json())


def stale_files(found: dict[str, Any]) -> dict[str, bool]:
    flags: dict[str, bool] = {}
    for result in found["results"]:
        flags[result["file"]] = flags.get(result["file"], False) or result["stale"]
    return flags


def test_an_unchanged_project_has_no_stale_block(project: Path, tmp_path: Path) -> None:
    found = answer(tmp_path / "i.db")
    assert found["metadata"]["freshness"] == "checked"
    assert found["metadata"]["stale"] == 0
    assert not any(stale_files(found).values())
    text = cli("query", QUESTION, "--db", tmp_path / "i.db").out
    assert "stale" not in text


def test_an_edited_file_flags_its_blocks_and_only_those(project: Path, tmp_path: Path) -> None:
    """Three lines inserted at the top: the old line numbers are served, and said to be stale."""
    net = project / "shop" / "net.py"
    net.write_text("# one\n# two\n# three\n" + net.read_text())
    found = answer(tmp_path / "i.db")
    flags = stale_files(found)
    assert flags["shop/net.py"] is True
    assert not any(v for f, v in flags.items() if f != "shop/net.py")
    assert found["metadata"]["stale"] == sum(r["stale"] for r in found["results"]) > 0
    text = cli("query", QUESTION, "--db", tmp_path / "i.db").out
    header, flagged = text.splitlines()[0], text.count(", stale) key: ")
    assert flagged > 0 and f"stale: {flagged} (files changed since indexed)" in header
    assert "(shop/net.py:8, stale)" in text  # the block's place, as indexed, flagged
    assert cli("index", project, "--db", tmp_path / "i.db").code == 0
    again = answer(tmp_path / "i.db")
    assert again["metadata"]["stale"] == 0  # re-indexed: fresh, at the new lines
    assert any(r["file"] == "shop/net.py" and r["line"] == 11 for r in again["results"])


def test_a_touched_but_unchanged_file_is_not_stale(project: Path, tmp_path: Path) -> None:
    """Another modification time, the same bytes: the hash says unchanged."""
    net = project / "shop" / "net.py"
    info = net.stat()
    os.utime(net, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))
    assert answer(tmp_path / "i.db")["metadata"]["stale"] == 0


def test_a_same_size_rewrite_is_stale(project: Path, tmp_path: Path) -> None:
    """The same size and another time: the content is hashed, and it differs."""
    net = project / "shop" / "net.py"
    text = net.read_text()
    swapped = text.replace("attempt", "attampt", 1)
    assert len(swapped) == len(text) and swapped != text
    info = net.stat()
    net.write_text(swapped)
    os.utime(net, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))
    assert stale_files(answer(tmp_path / "i.db"))["shop/net.py"] is True


def test_a_deleted_file_is_stale(project: Path, tmp_path: Path) -> None:
    (project / "shop" / "net.py").unlink()
    assert stale_files(answer(tmp_path / "i.db"))["shop/net.py"] is True


def test_a_cpg_indexed_without_its_sources_says_freshness_is_unknown(
    project: Path, tmp_path: Path
) -> None:
    """No source directory, nothing to compare with: said, and nothing flagged."""
    cpg = build_cpg_file(project, tmp_path / "p.json")
    assert cli("index", cpg, "--db", tmp_path / "c.db").code == 0
    (project / "shop" / "net.py").write_text("# gone\n")
    found = answer(tmp_path / "c.db")
    assert found["metadata"]["freshness"] == "unknown"
    assert found["metadata"]["stale"] == 0
    with_root = tmp_path / "r.db"
    assert cli("index", cpg, "--db", with_root, "--source-root", project).code == 0
    assert answer(with_root)["metadata"]["freshness"] == "checked"
