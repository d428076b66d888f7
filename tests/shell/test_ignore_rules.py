"""Which files `greploom index DIR` indexes: .gitignore at every level, .greploomignore,
--exclude, the vendored and built trees left out by default, the index folder's own
.gitignore, and a directory under a `venv` path (real directories, real treeloom builds)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from tests.cli_helpers import GREPLOOM, cli, cli_process
from tests.conftest import build_cpg_file

pytestmark = pytest.mark.slow

KEPT = {  # file -> the function it defines
    "app/core.py": "checkout_total",
    "app/settings_local.py": "local_settings",  # the root's `*_local.py`, re-included by app/.gitignore
    "web/main.js": "renderCart",
    "tools/build/__init__.py": "build_wheel",  # a Python package named build, not an output
}
LEFT_OUT = {  # file -> the function it defines, and what leaves it out
    "app/generated.py": "generated_helper",  # app/.gitignore
    "tools_local.py": "tool_settings",  # the root .gitignore: *_local.py
    "scratch/try_it.py": "try_it",  # the root .gitignore: /scratch/
    "examples/demo.py": "demo_main",  # .greploomignore
    "gen/api_pb2.py": "api_stub",  # --exclude gen/
    "app/models_pb2.py": "model_stub",  # --exclude '*_pb2.py'
    "node_modules/left-pad/index.js": "leftPad",  # vendored
    "vendor/lib/util.py": "vendored_util",  # vendored
    "dist/bundle.js": "bundledApp",  # built
    "web/app.min.js": "minifiedApp",  # a minified bundle, by its name
}


def _write(root: Path, name: str, function: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.endswith(".py"):
        path.write_text(f'def {function}():\n    """The {function} function."""\n    return 1\n')
    else:
        path.write_text(f"/** The {function} function. */\nfunction {function}() {{\n  return 1;\n}}\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with ignore files at two levels, a .greploomignore and vendored and built trees."""
    root = tmp_path / "project"
    for name, function in {**KEPT, **LEFT_OUT}.items():
        _write(root, name, function)
    (root / "README.md").write_text("not code: never counted among the files left out\n")
    (root / ".gitignore").write_text("# local files\n/scratch/\n*_local.py\n")
    (root / "app" / ".gitignore").write_text("generated.py\n!settings_local.py\n")
    (root / ".greploomignore").write_text("examples/\n")
    return root


def _index(project: Path, db: Path, *extra: str) -> Any:
    return cli("index", project, "--db", db, "--provider", "none", *extra)


def _found(db: Path, function: str) -> bool:
    run = cli("query", "--node", function, "--db", db, "--no-source")
    assert run.code in (0, 2), run.err
    return run.code == 0


def _status(db: Path) -> dict[str, Any]:
    run = cli("status", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    return dict(run.json())


def _cpg_files(db: Path) -> set[str]:
    """The files treeloom was given: those with a part of the CPG beside the index."""
    with contextlib.closing(sqlite3.connect(db.with_name(db.stem + ".parts.db"))) as parts:
        return {row[0] for row in parts.execute("SELECT file FROM parts")}


def test_the_ignore_rules_decide_exactly_which_files_are_indexed(project: Path, tmp_path: Path) -> None:
    """Kept files are indexed, every other one is not, treeloom was given the same files, and
    one line counts what each rule left out."""
    db = tmp_path / "idx" / "index.db"
    run = _index(project, db, "--exclude", "gen/", "--exclude", "*_pb2.py")
    assert run.code == 0, run.err
    notes = [line for line in run.err.splitlines() if "left out" in line and "neither parsed" not in line]
    assert notes == [
        "greploom: left out 10 files: 3 by .gitignore, 1 by .greploomignore, 2 by --exclude, "
        "4 vendored or built (dist/, node_modules/, vendor/ +1 more; --include-vendored indexes them)"
    ]
    assert _status(db)["modules"] == len(KEPT)  # one module per indexed file
    assert _cpg_files(db) == set(KEPT)  # treeloom saw exactly the files greploom indexes
    for function in KEPT.values():
        assert _found(db, function), function
    for function in LEFT_OUT.values():
        assert not _found(db, function), function


def test_include_vendored_indexes_vendored_and_built_trees(project: Path, tmp_path: Path) -> None:
    """--include-vendored keeps node_modules, vendor, dist and minified bundles; the ignore
    files still apply."""
    db = tmp_path / "v.db"
    run = _index(project, db, "--include-vendored")
    assert run.code == 0, run.err
    assert "greploom: left out 4 files: 3 by .gitignore, 1 by .greploomignore" in run.err
    assert "vendored or built" not in run.err
    for function in ("leftPad", "vendored_util", "bundledApp", "minifiedApp", "api_stub"):
        assert _found(db, function), function
    assert not _found(db, "generated_helper")


def test_a_greploomignore_negation_keeps_a_vendored_tree(project: Path, tmp_path: Path) -> None:
    """`!vendor/` in .greploomignore indexes vendor/ and leaves the other defaults alone."""
    (project / ".greploomignore").write_text("examples/\n!vendor/\n")
    db = tmp_path / "n.db"
    run = _index(project, db)
    assert run.code == 0, run.err
    assert "3 vendored or built (dist/, node_modules/, web/app.min.js;" in run.err
    assert _found(db, "vendored_util")
    assert not _found(db, "leftPad")


def test_a_changed_gitignore_re_indexes(project: Path, tmp_path: Path) -> None:
    """Unchanged files and rules: nothing to do. A .gitignore that now leaves out a Ruby file
    (treeloom never reads it, so its CPG is the same) or a Python file re-indexes; taking
    the rule back brings them back."""
    (project / "app" / "billing.rb").write_text("class Billing\n  def invoice_lines\n  end\nend\n")
    db = tmp_path / "c.db"
    assert _index(project, db).code == 0
    assert _found(db, "billing")
    again = _index(project, db)
    assert "0 embedded" in again.out and "0 deleted" in again.out
    assert "left out 8 files" in again.err  # said again by the run with nothing to do
    rules = (project / ".gitignore").read_text()
    (project / ".gitignore").write_text(rules + "*.rb\n")
    run = _index(project, db)
    assert run.code == 0, run.err
    assert "1 deleted" in run.out and "left out 9 files: 4 by .gitignore" in run.err
    assert not _found(db, "billing")
    (project / ".gitignore").write_text(rules + "app/core.py\n")
    run = _index(project, db)
    assert "left out 9 files: 4 by .gitignore" in run.err
    assert _found(db, "billing") and not _found(db, "checkout_total")
    (project / ".gitignore").write_text(rules)
    assert _index(project, db).code == 0
    assert _found(db, "checkout_total")


def test_exclude_needs_a_source_directory_and_a_pattern(project: Path, tmp_path: Path) -> None:
    """--exclude with a CPG file, or a pattern that is not one: one line, exit 2, no index."""
    db = tmp_path / "u.db"
    cpg = build_cpg_file(project, tmp_path / "first.cpg.json")
    for args in (
        (cpg, "--exclude", "gen/"),
        (cpg, "--include-vendored"),
        (project, "--exclude", ""),
        (project, "--exclude", "\\"),
        (project, "--exclude", "!app/"),
    ):
        run = cli("index", *args, "--db", db, "--provider", "none")
        assert run.code == 2, (args, run.err)
        assert run.err.count("\n") == 1 and run.err.startswith("greploom: error: --")
    assert not db.exists()


def test_every_file_left_out_says_so(tmp_path: Path) -> None:
    """A directory whose only code is vendored: the warning names the rules, not treeloom."""
    root = tmp_path / "only-vendored"
    _write(root, "node_modules/x/index.js", "vendoredOnly")
    run = _index(root, tmp_path / "o.db")
    assert run.code == 0, run.err
    assert (
        f"greploom: warning: found no source files to index in {root}; the ignore rules left out "
        "all 1: 1 vendored or built (node_modules/; --include-vendored indexes them)"
    ) in run.err.splitlines()


def test_the_index_folder_ignores_itself(tmp_path: Path) -> None:
    """The folder greploom creates for its index holds a `.gitignore` of `*`, so `git status`
    never shows it; a folder that exists already is left as it is."""
    root = tmp_path / "repo"
    _write(root, "shop.py", "checkout")
    run = cli_process("index", ".", "--provider", "none", cwd=root)
    assert run.code == 0, run.err
    assert (root / ".greploom" / "index.db").is_file()
    assert (root / ".greploom" / ".gitignore").read_text().splitlines()[-1] == "*"
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        shown = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert shown.splitlines() == ["?? shop.py"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / ".gitignore").write_text("index.db\n")
    assert cli("index", root, "--db", mine / "index.db", "--provider", "none").code == 0
    assert (mine / ".gitignore").read_text() == "index.db\n"
    bare = tmp_path / "bare"
    bare.mkdir()
    assert cli("index", root, "--db", bare / "index.db", "--provider", "none").code == 0
    assert not (bare / ".gitignore").exists()


@pytest.mark.parametrize("folder", ["venv", ".venv", "node_modules"])
def test_a_directory_under_a_venv_path_is_indexed(tmp_path: Path, folder: str) -> None:
    """treeloom's own walk leaves out every file with a `venv` component in its absolute path;
    greploom gives it the files, so /home/u/venv/proj indexes like any other directory."""
    root = tmp_path / folder / "proj"
    _write(root, "shop/cart.py", "cart_total")
    _write(root, "venv/lib/site.py", "site_helper")  # a virtual environment inside: still skipped
    db = tmp_path / "venv.db"
    run = _index(root, db)
    assert run.code == 0, run.err
    assert "warning" not in run.err
    assert _found(db, "cart_total") and not _found(db, "site_helper")
    assert _cpg_files(db) == {"shop/cart.py"}


def test_index_code_takes_exclude(project: Path) -> None:
    """The MCP tool's `exclude` list and `include_vendored` switch act as the CLI's flags."""
    transport = StdioTransport(
        command=str(GREPLOOM),
        args=["serve", "--transport", "stdio", "--db", str(project / "x.db")],
        cwd=str(project),
    )

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(transport) as client:
            args = {"path": ".", "db_path": "x.db", "exclude": ["gen/", "*_pb2.py"]}
            done = await client.call_tool("index_code", args)
            args = {"path": ".", "db_path": "y.db", "include_vendored": True}
            vendored = await client.call_tool("index_code", args)
            return done.structured_content, vendored.structured_content

    done, vendored = asyncio.run(go())
    assert done["notes"][0].startswith(
        "left out 10 files: 3 by .gitignore, 1 by .greploomignore, 2 by --exclude"
    )
    # A module and a function per kept file, and the README's one doc section.
    assert done["total"] == 2 * len(KEPT) + 1
    assert vendored["notes"][0] == "left out 4 files: 3 by .gitignore, 1 by .greploomignore"
