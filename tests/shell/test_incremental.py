"""Re-indexing after real edits: only what changed is embedded; what vanished is gone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli_helpers import cli, said
from tests.conftest import build_cpg_file


@pytest.fixture
def project(sample_dir: Path, tmp_path: Path) -> Path:
    """A private, editable copy of the Python sample."""
    target = tmp_path / "proj"
    shutil.copytree(sample_dir / "pyshop", target)
    return target


def _index(project: Path, db: Path, name: str) -> str:
    cpg = build_cpg_file(project, db.parent / f"{name}.json")
    run = cli("index", cpg, "--db", db)
    assert run.code == 0, run.err
    return run.out


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_unchanged_reindex_embeds_nothing(project: Path, tmp_path: Path) -> None:
    """A second run over the same code does no embedding work."""
    db = tmp_path / "i.db"
    _index(project, db, "a")
    assert "0 embedded, 19 unchanged, 0 re-pointed, 0 deleted" in _index(project, db, "b")


def test_inserted_line_only_repoints(project: Path, tmp_path: Path) -> None:
    """A line inserted at the top of a file moves code but changes none: nothing is re-embedded."""
    db = tmp_path / "i.db"
    _index(project, db, "a")
    cart = project / "shop" / "cart.py"
    cart.write_text("# a new first line\n" + cart.read_text())
    out = _index(project, db, "b")
    assert "0 embedded" in out and "0 deleted" in out
    assert "re-pointed" in out and " 0 re-pointed" not in out
    meta = cli("query", "--node", "function:shop/cart.py:Cart.total", "--db", db, "--format", "json").json()
    assert meta["results"][0]["line"] == 29  # was 28: the new position is served


def test_deleted_function_leaves_search_and_graph(project: Path, tmp_path: Path) -> None:
    """Deleted code is gone from search results and from its callers' context."""
    db = tmp_path / "i.db"
    _index(project, db, "a")
    net = project / "shop" / "net.py"
    _edit(
        net,
        "def backoff_delay(attempt: int, base: float = 0.5) -> float:\n"
        '    """Compute the retry backoff delay for an attempt number."""\n'
        "    return base * (2**attempt)\n",
        "",
    )
    _edit(net, "time.sleep(backoff_delay(attempt))", "time.sleep(0.5 * 2 ** attempt)")
    out = _index(project, db, "b")
    assert "1 deleted" in out
    envelope = cli("query", "backoff delay", "--db", db, "--format", "json", "--depth", "2").json()
    keys = {r["key"] for r in envelope["results"]}
    assert "function:shop/net.py:backoff_delay" not in keys
    for result in envelope["results"]:
        for name, refs in result["structural_context"].items():
            if name.endswith("_total"):
                continue  # how many a capped list holds, not a neighbour
            for ref in refs if isinstance(refs, list) else [refs] if refs else []:
                assert ref["key"] != "function:shop/net.py:backoff_delay"
    assert cli("query", "--node", "function:shop/net.py:backoff_delay", "--db", db).code == 2


def test_body_edit_reembeds_that_node(project: Path, tmp_path: Path) -> None:
    """Changing one body re-embeds exactly that node."""
    db = tmp_path / "i.db"
    _index(project, db, "a")
    _edit(
        project / "shop" / "pricing.py",
        "return math.floor(amount * (1 + TAX_RATE) * 100) / 100",
        "return round(amount * (1 + TAX_RATE), 2)",
    )
    out = _index(project, db, "b")
    # Later nodes in the file get new treeloom ids (fewer literal nodes): re-pointed, not re-embedded.
    assert out.startswith("indexed 19 nodes: 1 embedded, 17 unchanged, 1 re-pointed, 0 deleted")
    source = cli("query", "--node", "function:shop/pricing.py:add_tax", "--db", db, "--include-source")
    assert "round(amount * (1 + TAX_RATE), 2)" in source.out


def test_tier_change_reembeds_everything(project: Path, tmp_path: Path) -> None:
    """Switching the summary tier changes every summary, so every node is re-embedded."""
    db = tmp_path / "i.db"
    cpg = build_cpg_file(project, tmp_path / "a.json")
    assert cli("index", cpg, "--db", db).code == 0
    run = cli("index", cpg, "--db", db, "--tier", "fast")
    assert run.out.startswith("indexed 19 nodes: 19 embedded")
    assert cli("status", "--db", db, "--format", "json").json()["tier"] == "fast"
    # A run that names no tier keeps the index's: nothing to embed, still fast.
    _edit(project / "shop" / "net.py", "def backoff_delay", "def backoff_wait")
    again = cli("index", project, "--db", db)
    assert again.code == 0 and " 19 embedded" not in again.out
    assert cli("status", "--db", db, "--format", "json").json()["tier"] == "fast"


def test_reindex_gives_freed_space_back(project: Path, tmp_path: Path) -> None:
    """Runs that replace rows leave the file the size of what it holds: no free pages, no text twice."""
    import apsw

    db = tmp_path / "i.db"
    _index(project, db, "a")
    _edit(project / "shop" / "cart.py", "def total", "def grand_total")
    _index(project, db, "b")
    assert cli("index", db.parent / "b.json", "--db", db, "--force").code == 0  # every vector replaced
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("PRAGMA freelist_count").fetchall() == [(0,)]
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "nodes_fts_content" not in tables  # the FTS index keeps no copy of the bodies
    found = cli("query", "grand_total", "--db", db, "--format", "json").json()
    assert found["results"][0]["name"] == "grand_total"  # and still finds words in them


def test_bm25_scores_do_not_drift_with_reindexing(project: Path, tmp_path: Path) -> None:
    """Rewriting every full-text row (--force, twice) leaves the lexical scores where they were."""
    db = tmp_path / "i.db"
    _index(project, db, "a")

    def scores() -> list[tuple[str, float]]:
        found = cli("query", "cart total discount", "--db", db, "--provider", "none", "--format", "json")
        return [(r["key"], r["relevance"]) for r in found.json()["results"]]

    before = scores()
    for _ in range(2):
        assert cli("index", db.parent / "a.json", "--db", db, "--force").code == 0
    assert scores() == before


def test_an_unchanged_directory_is_not_parsed_again(project: Path, tmp_path: Path) -> None:
    """Re-indexing an unchanged source directory parses nothing; an edit parses that file only."""
    db = tmp_path / "i.db"
    first = cli("index", project, "--db", db)
    assert first.code == 0 and "greploom: building the CPG: 4 files" in first.err
    again = cli("index", project, "--db", db)
    assert again.code == 0 and "0 embedded, 19 unchanged" in again.out
    assert "building the CPG" not in again.err  # treeloom did not run
    _edit(project / "shop" / "net.py", "def backoff_delay", "def backoff_wait")
    edited = cli("index", project, "--db", db)
    assert edited.code == 0 and "greploom: building the CPG: 1 file" in edited.err
    found = cli("query", "backoff_wait", "--db", db, "--format", "json").json()
    assert found["results"][0]["name"] == "backoff_wait"


def _context(db: Path, key: str) -> dict[str, list[str]]:
    """The keys of each relationship of one definition's stored context."""
    run = cli("query", "--node", key, "--db", db, "--format", "json")
    assert run.code == 0, run.err
    structure = run.json()["results"][0]["structural_context"]
    return {k: sorted(r["key"] for r in v) for k, v in structure.items() if isinstance(v, list)}


def _graph(db: Path, keys: list[str]) -> dict[str, dict[str, list[str]]]:
    return {key: _context(db, key) for key in keys}


def test_a_rename_across_files_keeps_the_links_right(project: Path, tmp_path: Path) -> None:
    """Cross-file facts after a partial rebuild: the files that did not change are not parsed
    again, yet the calls into the renamed function are linked to it, and the old name's links
    are gone; the index is the one a first run over the edited code builds."""
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    caller = "function:shop/cart.py:Cart.total"
    assert "function:shop/pricing.py:total_price" in _context(db, caller)["callees"]
    # Renamed where it is defined only: the caller's import no longer binds it.
    _edit(project / "shop" / "pricing.py", "def total_price(", "def sum_prices(")
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code == 0 and "building the CPG: 1 file" in run.err
    assert not any("pricing.py:total_price" in k for k in _context(db, caller)["callees"])
    assert _context(db, "function:shop/pricing.py:sum_prices")["callers"] == []
    # ... and then in the file that calls it: linked again, both ways.
    cart = project / "shop" / "cart.py"
    cart.write_text(cart.read_text().replace("total_price", "sum_prices"))
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code == 0 and "building the CPG: 1 file" in run.err
    assert "function:shop/pricing.py:sum_prices" in _context(db, caller)["callees"]
    assert caller in _context(db, "function:shop/pricing.py:sum_prices")["callers"]
    fresh = tmp_path / "fresh.db"
    assert cli("index", project, "--db", fresh, "--provider", "none").code == 0
    listed = cli("query", "def", "--db", fresh, "--format", "json", "--top-k", "50").json()
    keys = [r["key"] for r in listed["results"]]
    assert len(keys) > 5 and _graph(db, keys) == _graph(fresh, keys)


def test_added_and_deleted_files(project: Path, tmp_path: Path) -> None:
    """A new file is parsed alone; a deleted one's definitions leave the index without a parse."""
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    (project / "shop" / "coupons.py").write_text("def redeem_coupon(code):\n    return code.upper()\n")
    added = cli("index", project, "--db", db, "--provider", "none")
    assert added.code == 0 and "building the CPG: 1 file" in added.err
    found = cli("query", "redeem_coupon", "--db", db, "--format", "json").json()
    assert found["results"][0]["name"] == "redeem_coupon"
    (project / "shop" / "net.py").unlink()
    deleted = cli("index", project, "--db", db, "--provider", "none")
    assert deleted.code == 0 and "building the CPG" not in deleted.err
    assert " deleted" in deleted.out and " 0 deleted" not in deleted.out
    names = [r["name"] for r in cli("query", "send_order", "--db", db, "--format", "json").json()["results"]]
    assert "send_order" not in names


def test_a_damaged_cache_of_parts_is_rebuilt(project: Path, tmp_path: Path) -> None:
    """The parts beside the index are a cache: garbage there is said and built again, and --force
    parses every file; the index itself is untouched by either."""
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    parts = db.with_name("i.parts.db")
    assert parts.is_file()
    parts.write_bytes(b"this is not SQLite" * 100)
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code == 0 and "0 embedded, 19 unchanged" in run.out
    assert "building the CPG: 4 files" in run.err and "CPG cache" in run.err and "rebuilt it" in run.err
    forced = cli("index", project, "--db", db, "--provider", "none", "--force")
    assert forced.code == 0 and "building the CPG: 4 files" in forced.err


def test_a_parser_that_dies_fails_the_run_and_keeps_the_index(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """treeloom cannot be made to crash on real code here, so its worker is replaced by one that
    dies (a fake, only for this): one line naming the cause, the previous index still answers."""
    from greploom.shell import treeloom

    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    _edit(project / "shop" / "net.py", "def backoff_delay", "def backoff_wait")
    monkeypatch.setattr(treeloom, "_WORKER", "import sys; sys.exit('MemoryError: out of memory')")
    run = cli("index", project, "--db", db, "--provider", "none")
    assert run.code != 0 and said(run.err) == [
        f"greploom: error: treeloom could not build a CPG of {project}: MemoryError: out of memory"
    ]
    found = cli("query", "backoff_delay", "--db", db, "--format", "json").json()
    assert "backoff_delay" in [r["name"] for r in found["results"]]
