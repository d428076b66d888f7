"""A big hit shows the lines that answer the query, the rest named; code by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import cli


@pytest.fixture(scope="module")
def koa_index(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("koa") / "k.db"
    done = cli("index", sample_dir / "koa", "--db", db, "--provider", "none")
    assert done.code == 0, done.err
    return db


@pytest.mark.slow
def test_a_big_class_is_focused_on_what_the_query_names(koa_index: Path) -> None:
    """koa's 220-line Application class at a 600-token budget: its head, the lines naming
    the query's words, and markers naming the file lines and members left out."""
    run = cli("query", "Application", "--db", koa_index, "--budget", "600", "--top-k", "1", "--depth", "0")
    assert run.code == 0, run.err
    block = run.out.split("## hit: class lib.application.Application", 1)[1]
    assert "module.exports = class Application extends Emitter {" in block
    assert "... lines " in block and "(constructor, listen" in block  # what was left out, by name
    assert "shortened: 1" in run.out.split("\n", 1)[0]
    envelope = cli(
        "query",
        "Application",
        "--db",
        koa_index,
        "--budget",
        "2500",
        "--top-k",
        "1",
        "--depth",
        "0",
        "--format",
        "json",
    ).json()
    first = envelope["results"][0]
    assert first["detail"] == "focused" and first["source"] is None  # the text holds what is shown


@pytest.mark.slow
def test_hits_show_code_and_neighbours_their_summaries(koa_index: Path) -> None:
    """The default answer: code where it matters; --no-source none; --include-source all."""
    args = ("query", "handle request callback", "--db", koa_index, "--budget", "3000")
    default = cli(*args).out
    hits = [b for b in default.split("\n## ") if b.startswith("hit:")]
    others = [b for b in default.split("\n## ") if not b.startswith(("hit:", "#"))]
    # each hit shows its code, or points to the hit above that shows it whole (a function in it)
    assert hits and all("```" in b or "\nCode: shown in " in b for b in hits)
    assert any("```" in b for b in hits)
    assert others and not any("```" in b for b in others)
    assert "```" not in cli(*args, "--no-source").out
    everything = cli(*args, "--include-source").out
    assert any("```" in b for b in everything.split("\n## ") if not b.startswith(("hit:", "#")))
