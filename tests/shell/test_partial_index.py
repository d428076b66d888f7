"""A run after an edit reads only the files the edit can change, and stores what a full run stores.

Each test edits a real source directory (copies of tests/samples, built with
treeloom), runs an index over it that keeps the index's other rows
(greploom.shell.dir_rows), and compares every stored column of every row,
the modules' names and the run's warnings with a fresh index of the same
files built from nothing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import apsw
import pytest

from greploom.shell.config import GrepLoomConfig
from greploom.shell.cpg_parts import parts_path
from greploom.shell.file_facts import FactStore
from greploom.shell.index_state import IndexResult
from greploom.shell.indexing import run_index

Edit = Callable[[Path], None]
_COLUMNS = (
    "key, node_id, kind, name, qualname, file, line, end_line, summary, content_hash, source, structure"
)


def _index(tree: Path, db: Path, *, force: bool = False) -> IndexResult:
    return run_index(tree, GrepLoomConfig(db_path=db, provider="none"), force=force)


def _stored(db: Path) -> dict[str, object]:
    """Everything an index holds of its rows: each column of each, the names, the warnings."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = {r[0]: r for r in conn.execute(f"SELECT {_COLUMNS} FROM nodes")}
        names = sorted(conn.execute("SELECT key, name, line FROM module_names"))
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    finally:
        conn.close()
    return {"rows": rows, "names": names, "warnings": meta["run_warnings"], "count": meta["node_count"]}


def _same_as_fresh(tree: Path, db: Path, tmp_path: Path, label: str) -> None:
    fresh = tmp_path / f"fresh-{label}.db"
    _index(tree, fresh, force=True)
    got, want = _stored(db), _stored(fresh)
    assert got["rows"].keys() == want["rows"].keys()  # type: ignore[attr-defined]
    for key, row in want["rows"].items():  # type: ignore[attr-defined]
        assert got["rows"][key] == row, key  # type: ignore[index]
    assert got == want


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


PYSHOP: list[tuple[str, Edit]] = [
    (
        "a body",
        lambda t: _edit(t / "shop/pricing.py", "* (1 + TAX_RATE) * 100) / 100", "* (1 + TAX_RATE), 2)"),
    ),
    (
        "a new function",
        lambda t: _append(t / "shop/net.py", "\n\ndef added(x):\n    return backoff_delay(x)\n"),
    ),
    (
        "a called function renamed",
        lambda t: _edit(t / "shop/pricing.py", "def total_price(", "def sum_prices("),
    ),
    (
        "its caller following",
        lambda t: (t / "shop/cart.py").write_text(
            (t / "shop/cart.py").read_text().replace("total_price", "sum_prices")
        ),
    ),
    (
        "lines moved",
        lambda t: (t / "shop/pricing.py").write_text("# top\n" + (t / "shop/pricing.py").read_text()),
    ),
    (
        "a new file",
        lambda t: (t / "shop/extra.py").write_text(
            "from shop.pricing import sum_prices\n\n\ndef use(items):\n    return sum_prices(items, 0)\n"
        ),
    ),
    (
        "an import changed",
        lambda t: _edit(
            t / "shop/extra.py",
            "from shop.pricing import sum_prices",
            "from shop.cart import Cart as sum_prices",
        ),
    ),
    ("a file deleted", lambda t: (t / "shop/extra.py").unlink()),
    (
        "a base class renamed",
        lambda t: _edit(t / "shop/cart.py", "class GiftCart(Cart):", "class GiftCart(Basket):"),
    ),
]

SCRIPTS: list[tuple[str, Edit]] = [
    ("a body", lambda t: _edit(t / "jsutil/strings.js", "toLowerCase()", "toUpperCase()")),
    (
        "an exported function renamed",
        lambda t: _edit(t / "jsutil/strings.js", "function slugify", "function slugged"),
    ),
    (
        "a typed function added",
        lambda t: _append(
            t / "polyglot/cart.ts",
            "\nexport function grand(n: number): number {\n  return total([]) + n;\n}\n",
        ),
    ),
    (
        "a file no grammar reads edited",
        lambda t: _append(t / "polyglot/sum.go", "\nfunc More() int { return 1 }\n"),
    ),
    (
        "an import removed",
        lambda t: _edit(t / "jsutil/index.js", 'import { slugify, Formatter } from "./strings.js";\n', ""),
    ),
]


@pytest.fixture
def pyshop(sample_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "pyshop"
    shutil.copytree(sample_dir / "pyshop", target)
    return target


@pytest.fixture
def scripts(sample_dir: Path, tmp_path: Path) -> Path:
    """JavaScript, TypeScript and the other languages greploom outlines, in one directory."""
    target = tmp_path / "scripts"
    for name in ("jsutil", "polyglot"):
        shutil.copytree(sample_dir / name, target / name)
    return target


def test_every_edit_of_a_python_project_stores_what_a_full_run_stores(pyshop: Path, tmp_path: Path) -> None:
    """Edits one after another (bodies, names called from other files, files added and deleted,
    imports, bases): each run keeps rows, and the index is the one a first run builds."""
    db = tmp_path / "i.db"
    assert _index(pyshop, db).reread is None  # a first run reads everything
    for label, edit in PYSHOP:
        edit(pyshop)
        run = _index(pyshop, db)
        assert run.reread is not None and run.reread < 6, label
        _same_as_fresh(pyshop, db, tmp_path, label.replace(" ", "-"))


def test_every_edit_of_scripts_stores_what_a_full_run_stores(scripts: Path, tmp_path: Path) -> None:
    """The same for code treeloom leaves definitions out of (outlined by tree-sitter), and for
    names linked across files by relative imports."""
    db = tmp_path / "i.db"
    _index(scripts, db)
    for label, edit in SCRIPTS:
        edit(scripts)
        run = _index(scripts, db)
        assert run.reread is not None, label
        _same_as_fresh(scripts, db, tmp_path, label.replace(" ", "-"))


DOCS: list[tuple[str, Edit]] = [
    (
        "a namesake makes a mention ambiguous",
        lambda t: _append(t / "shop/pricing.py", "\n\ndef backoff_delay():\n    return 0\n"),
    ),
    (
        "the namesake goes",
        lambda t: _edit(t / "shop/pricing.py", "\n\ndef backoff_delay():\n    return 0\n", ""),
    ),
    ("the doc names another function", lambda t: _edit(t / "README.md", "`Cart.total`", "`apply_discount`")),
    ("the doc goes", lambda t: (t / "README.md").unlink()),
]


def test_docs_naming_kept_rows_store_what_a_full_run_stores(pyshop: Path, tmp_path: Path) -> None:
    """A row the run keeps is still written again when the docs naming it changed: a new
    namesake elsewhere makes a doc's mention ambiguous, a doc names something else or goes."""
    (pyshop / "README.md").write_text(
        "# Shop\n\nRetries wait `backoff_delay` seconds; a cart's `Cart.total` prices it.\n"
    )
    db = tmp_path / "i.db"
    _index(pyshop, db)
    for label, edit in DOCS:
        edit(pyshop)
        run = _index(pyshop, db)
        assert run.reread is not None, label
        _same_as_fresh(pyshop, db, tmp_path, label.replace(" ", "-"))


def test_a_rename_changes_the_callers_row_in_another_file(pyshop: Path, tmp_path: Path) -> None:
    """The cross-file fact a partial run must not miss: the caller's file did not change, yet its
    row loses the link to the renamed function, and gains it back when the caller follows."""
    db = tmp_path / "i.db"
    _index(pyshop, db)
    caller = "function:shop/cart.py:Cart.total"

    def callees() -> list[str]:
        structure = json.loads(_stored(db)["rows"][caller][11])  # type: ignore[index]
        return [ref["key"] for ref in structure["callees"]]

    assert "function:shop/pricing.py:total_price" in callees()
    _edit(pyshop / "shop/pricing.py", "def total_price(", "def sum_prices(")
    assert _index(pyshop, db).reread is not None
    assert not any("total_price" in k or "sum_prices" in k for k in callees())
    (pyshop / "shop/cart.py").write_text(
        (pyshop / "shop/cart.py").read_text().replace("total_price", "sum_prices")
    )
    _index(pyshop, db)
    assert "function:shop/pricing.py:sum_prices" in callees()


def test_facts_a_run_did_not_finish_writing_are_not_used(
    pyshop: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed after its switch, before it kept its facts, leaves the last run's facts: the
    next run sees they are not the index's, reads everything, and stores what a full run does."""
    db = tmp_path / "i.db"
    _index(pyshop, db)

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(FactStore, "write", killed)
    _edit(pyshop / "shop/pricing.py", "def total_price(", "def sum_prices(")
    with pytest.raises(KeyboardInterrupt):
        _index(pyshop, db)
    monkeypatch.undo()
    _edit(pyshop / "shop/net.py", "def backoff_delay", "def backoff_wait")
    assert _index(pyshop, db).reread is None
    _same_as_fresh(pyshop, db, tmp_path, "after")
    _append(pyshop / "shop/net.py", "\n\ndef later():\n    return 1\n")
    assert _index(pyshop, db).reread is not None  # and the run after it keeps rows again
    _same_as_fresh(pyshop, db, tmp_path, "later")


def test_a_damaged_fact_makes_the_run_read_everything(pyshop: Path, tmp_path: Path) -> None:
    """A record that no longer decodes cannot say which definitions its file's calls linked to,
    whose rows name them as callers: the run reads every file, and the index is right."""
    db = tmp_path / "i.db"
    _index(pyshop, db)
    conn = apsw.Connection(str(parts_path(db)))
    with conn:
        conn.execute("UPDATE facts SET data = ? WHERE file = 'shop/cart.py'", (b"not a record",))
    conn.close()
    _edit(pyshop / "shop/pricing.py", "def total_price(", "def sum_prices(")
    assert _index(pyshop, db).reread is None
    _same_as_fresh(pyshop, db, tmp_path, "damaged")
    _edit(pyshop / "shop/net.py", "def backoff_delay", "def backoff_wait")
    assert _index(pyshop, db).reread is not None  # that run kept whole facts again
    _same_as_fresh(pyshop, db, tmp_path, "again")


def test_damaged_scopes_found_midway_make_the_run_read_everything(pyshop: Path, tmp_path: Path) -> None:
    """A file's scopes are read only when a lookup comes to them; damaged then, the run gives
    up keeping rows, reads every file, and the index is right."""
    db = tmp_path / "i.db"
    _index(pyshop, db)
    conn = apsw.Connection(str(parts_path(db)))
    with conn:
        conn.execute("UPDATE facts SET body = ? WHERE file = 'shop/pricing.py'", (b"not scopes",))
    conn.close()
    _edit(pyshop / "shop/cart.py", "def add_item(", "def put_item(")  # its calls reach pricing.py
    assert _index(pyshop, db).reread is None
    _same_as_fresh(pyshop, db, tmp_path, "scopes")


def test_a_run_of_another_tier_reads_everything(pyshop: Path, tmp_path: Path) -> None:
    """Rows kept from an index of another tier would say less than this run's: no facts of
    another run's settings are used."""
    db = tmp_path / "i.db"
    _index(pyshop, db)
    _edit(pyshop / "shop/pricing.py", "def total_price(", "def sum_prices(")
    from greploom.core.summary import Tier

    run = run_index(pyshop, GrepLoomConfig(db_path=db, provider="none", tier=Tier.FAST))
    assert run.reread is None
