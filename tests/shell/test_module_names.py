"""Module-level names: a symbol query naming a top-level assignment finds its module, at its line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from greploom.core.query import read_query
from greploom.shell.module_names import top_level_names
from greploom.shell.search import worded_modules
from greploom.shell.store import IndexStore
from tests.cli_helpers import cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small package whose context globals are module-level proxies, as flask's are."""
    root = tmp_path / "src"
    (root / "app").mkdir(parents=True)
    filler = "".join(f"SETTING_{i} = {i}  # a setting of the app\n" for i in range(120))
    (root / "app" / "globals.py").write_text(
        '"""Context-local globals of the app."""\n\nfrom app.local import LocalProxy\n\n'
        + filler
        + '_cv_app = "app context"\ng = LocalProxy(_cv_app, "g")\n'
        + 'request_proxy = LocalProxy(_cv_app, "request")\n'
    )
    (root / "app" / "local.py").write_text(
        'class LocalProxy:\n    """Forwards every operation to an object bound in a context."""\n\n'
        "    def __init__(self, local, name):\n        self.local = local\n        self.name = name\n\n\n"
        'def use_g(g):\n    """Use g, g and g: g is a common word in this file, g."""\n    return g\n'
    )
    (root / "web").mkdir()
    (root / "web" / "routes.js").write_text(
        "const express = require('express');\nexport const router = express.Router();\n"
        "const handler = () => 1;\nfunction mount(app) { app.use(router); }\n"
    )
    return root


def test_a_top_level_name_finds_its_module_at_its_line(project: Path, tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    run = cli("query", "g", "--db", db, "--budget", "700")
    assert run.code == 0, run.err
    first = run.out.split("\n## ")[1]
    assert first.startswith("hit: module app.globals (app/globals.py:1)")
    assert 'g = LocalProxy(_cv_app, "g")' in first  # the module is long: focused on that line
    assert "SETTING_60 = 60" not in first
    found = cli("query", "express", "--db", db, "--format", "json").json()
    assert found["results"][0]["key"] == "module:web/routes.js"
    # An exported const is a definition of its own (the JavaScript outline's): found as itself, once.
    routed = cli("query", "router", "--db", db, "--format", "json").json()
    keys = [r["key"] for r in routed["results"] if r["relationship"] == "hit"]
    assert keys[0] == "variable:web/routes.js:router" and "module:web/routes.js" not in keys[:1]


def test_a_question_saying_a_name_s_words_finds_its_module_at_its_line(project: Path, tmp_path: Path) -> None:
    """A question in words naming a module-level name by its words (issue 16, item 4)."""
    (project / "app" / "limits.py").write_text(
        '"""Limits of the app."""\n\n'
        + "".join(f"LIMIT_{i} = {i}  # a limit\n" for i in range(120))
        + "MAX_UPLOAD_BYTES = 10_000_000\n"
        + "def check(size):\n    return size < LIMIT_3\n"
    )
    # Code whose words match the question better than the long module's one line does.
    (project / "app" / "upload.py").write_text(
        "def accept_upload(data):\n"
        '    """Accept the largest upload first: an upload in bytes, the largest accepted."""\n'
        "    return sorted(data, key=len, reverse=True)\n"
    )
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    run = cli("query", "the largest upload in bytes we accept", "--db", db, "--budget", "700")
    assert run.code == 0, run.err
    first = run.out.split("\n## ")[1]
    assert first.startswith("hit: module app.limits (app/limits.py:1)")
    assert "MAX_UPLOAD_BYTES = 10_000_000" in first  # the module is long: focused on that line
    assert "LIMIT_60 = 60" not in first


NETWORKS = '''"""Network types."""

import re

MAX_EMAIL_LENGTH = 2048
PRETTY_EMAIL_RE = re.compile(r"[^<>]+ <[^<>]+>")
DEFAULT_PORTS = {"http": 80, "https": 443}


class NameEmail:
    """A name and an address, as in "John Doe <jd@example.com>"."""

    def __init__(self, name, email):
        self.name = name
        self.email = email
'''


def test_a_question_about_what_a_constant_holds_finds_its_module_by_the_bundled_model(tmp_path: Path) -> None:
    """The module's vector carries the words of the names it binds (``max email length``), so a
    question that says none of them finds it before the class beside it (pydantic's networks)."""
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "networks.py").write_text(NETWORKS)
    (root / "pkg" / "users.py").write_text(
        'def send_welcome(user):\n    """Send the welcome message to a new user\'s email address."""\n'
        "    return user.email\n"
    )
    db = tmp_path / "i.db"
    assert cli("index", root, "--db", db).code == 0  # the bundled model, offline
    run = cli("query", "how many characters an email may have at most", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    first = run.json()["results"][0]
    assert first["key"] == "module:pkg/networks.py"
    assert "MAX_EMAIL_LENGTH = 2048" in first["text"]


def test_a_name_bound_to_a_required_module_is_not_worded(project: Path, tmp_path: Path) -> None:
    """``var contentType = require('content-type')`` is an import: a question saying its words
    is not answered by the module requiring it, while its own constants are."""
    (project / "web" / "utils.js").write_text(
        "var contentType = require('content-type');\nvar MAX_NESTING_DEPTH = 3;\n"
        "function parse(s) { return contentType.parse(s); }\n"
    )
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    with IndexStore.open_existing(db) as store:
        assert worded_modules(store, read_query("which content types do we know")) == ()
        nesting = worded_modules(store, read_query("the nesting depth we allow"))
        assert nesting == (("module:web/utils.js", 2),)


def test_an_index_without_the_names_table_still_answers(project: Path, tmp_path: Path) -> None:
    """An index written before module names were kept answers as it did (the table is optional),
    and the next run adds the table."""
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE module_names")
    run = cli("query", "g", "--db", db, "--format", "json")
    assert run.code == 0, run.err
    assert "module:app/globals.py" not in [r["key"] for r in run.json()["results"][:1]]
    (project / "app" / "local.py").write_text((project / "app" / "local.py").read_text() + "\nX = 1\n")
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    again = cli("query", "g", "--db", db, "--format", "json").json()
    assert again["results"][0]["key"] == "module:app/globals.py"


@pytest.mark.parametrize(
    ("file", "text", "names"),
    [
        (
            "a.py",
            "a = b = 1\nx, (y, z) = f()\nt: int = 3\nif c:\n    hidden = 1\ndef f():\n    inner = 2\n",
            ["a", "b", "x", "y", "z", "t"],
        ),
        (
            "a.ts",
            "export const A = 1;\nlet b = 2, c;\nconst f = () => 1;\nclass K {}\nvar K2 = class {};\n",
            ["A", "b", "c"],
        ),
        (
            "a.go",
            'package p\nvar Err = errors.New("x")\nconst (\n\tA = 1\n\tB = 2\n)\nfunc f() { v := 1 }\n',
            ["Err", "A", "B"],
        ),
        ("a.rs", 'const MAX: u32 = 3;\nstatic NAME: &str = "x";\nfn f() { let y = 1; }\n', ["MAX", "NAME"]),
        ("a.txt", "a = 1\n", []),
    ],
)
def test_only_the_top_level_is_read(file: str, text: str, names: list[str]) -> None:
    assert [name for name, _line in top_level_names(file, text)] == names


def test_names_follow_their_file(project: Path, tmp_path: Path) -> None:
    """A run re-reads the names of a file that changed (its lines moved) and keeps those of
    files that did not: the answer shows the assignment, wherever it now is."""
    db = tmp_path / "i.db"
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    (project / "app" / "local.py").write_text((project / "app" / "local.py").read_text() + "\nY = 2\n")
    assert cli("index", project, "--db", db, "--provider", "none").code == 0  # globals.py unchanged
    first = cli("query", "g", "--db", db, "--budget", "700").out.split("\n## ")[1]
    assert 'g = LocalProxy(_cv_app, "g")' in first
    globals_py = project / "app" / "globals.py"
    globals_py.write_text("".join(f"# a comment line {i}\n" for i in range(40)) + globals_py.read_text())
    assert cli("index", project, "--db", db, "--provider", "none").code == 0
    moved = cli("query", "g", "--db", db, "--budget", "700").out.split("\n## ")[1]
    assert moved.startswith("hit: module app.globals") and 'g = LocalProxy(_cv_app, "g")' in moved
