"""Sessions: follow-ups lean on what the session was about; whole blocks are not sent twice."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import cli, said
from tests.shell.test_mcp import stdio


@pytest.fixture(scope="module")
def db(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions") / "proj"
    shutil.copytree(sample_dir / "pyshop", root)
    index = root / ".greploom" / "index.db"
    run = cli("index", root, "--db", index)
    assert run.code == 0, run.err
    return index


def _ask(db: Path, text: str, *args: str) -> dict[str, Any]:
    run = cli("query", text, "--db", db, "--format", "json", "--budget", "3000", *args)
    assert run.code == 0, run.err
    return dict(run.json())


def _hits(answer: dict[str, Any]) -> list[str]:
    return [r["key"] for r in answer["results"] if r["relationship"] == "hit"]


def test_a_follow_up_leans_on_the_session(db: Path) -> None:
    """ "what does it call?" says nothing alone; after a question about the cart's total it is
    about the cart's total, and the header says the memory shaped it."""
    alone = _hits(_ask(db, "what does it call?"))
    first = _ask(db, "how is the total of a cart computed", "--session", "t1")
    assert first["metadata"]["session"]["memory"] == "new"
    follow = _ask(db, "what does it call?", "--session", "t1")
    assert follow["metadata"]["session"]["memory"] == "shaped"
    assert follow["metadata"]["session"]["gate"] == 1.0
    assert _hits(follow)[:2] == _hits(first)[:2] and _hits(follow)[:2] != alone[:2]
    text = cli("query", "and what does that return?", "--db", db, "--session", "t1").out
    assert text.startswith("# greploom: hybrid search") and "| session: t1 (follow-up, memory 1.0" in text


def test_whole_blocks_are_not_sent_twice(db: Path) -> None:
    """A block the session received whole comes back as a one-line reference; the budget goes
    to the rest."""
    first = cli("query", "how is the total of a cart computed", "--db", db, "--session", "t2").out
    assert "def total(self, percent: float = 0.0) -> float:" in first
    again = cli("query", "how is the total of a cart computed", "--db", db, "--session", "t2").out
    assert "def total(self, percent: float = 0.0) -> float:" not in again
    assert "shown earlier in this session" in again and "shown earlier)" in again.splitlines()[0]


def test_what_the_session_was_sent_takes_no_rank_and_is_not_repeated(db: Path) -> None:
    """Asked again, the hits sent whole before are references that take no rank: the first new
    hits are shown at length (their summary and place, not briefly), and a class whose methods
    were sent leaves their lines out, naming them."""
    question = "how is the total of a cart computed"
    first = cli("query", question, "--db", db, "--session", "t5").out
    again = cli("query", question, "--db", db, "--session", "t5").out
    cart = again.split("## hit: class shop.cart.Cart (shop/cart.py:16)", 1)[1].split("\n## ", 1)[0]
    assert "Defined at shop/cart.py:16-34" in cart  # not brief, though the sixth hit
    assert "... lines 28-30 (total)" in cart and "... lines 33-34 (size)" in cart
    assert "return total_price(" not in cart
    # Each method of Cart: left out, named, where the first answer sent it; shown where not.
    methods = {"__init__": "18-21", "add_item": "23-26", "total": "28-30", "size": "33-34"}
    sent = {name for name in methods if f"## hit: function shop.cart.Cart.{name} " in first}
    assert sent and sent != set(methods)
    for name, lines in methods.items():
        assert (f"... lines {lines} ({name})" in cart) == (name in sent), name
        assert (f"def {name}(" in cart) == (name not in sent), name


def test_a_pivot_and_a_fresh_start_are_left_alone(db: Path) -> None:
    """A question about something else keeps its own answer first (the gate is the scores'
    correlation with the memory: small for a pivot); --fresh forgets."""
    _ask(db, "how is the total of a cart computed", "--session", "t3")
    alone = _ask(db, "retry with exponential backoff delay")
    pivot = _ask(db, "retry with exponential backoff delay", "--session", "t3")
    assert pivot["metadata"]["session"]["gate"] < 0.5
    assert _hits(pivot)[0] == _hits(alone)[0] == "function:shop/net.py:backoff_delay"
    fresh = _ask(db, "what does it call?", "--session", "t3", "--fresh")
    assert fresh["metadata"]["session"]["memory"] == "fresh"
    assert _hits(fresh) == _hits(_ask(db, "what does it call?"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--fresh",), "--fresh forgets a session's memory: pass it with --session NAME"),
        (("--session", ""), "a session name is 1-200 printable characters"),
        (("--session", "x" * 201), "a session name is 1-200 printable characters"),
    ],
)
def test_bad_session_arguments_are_one_line(db: Path, args: tuple[str, ...], says: str) -> None:
    run = cli("query", "cart total", "--db", db, *args)
    assert run.code == 2 and len(said(run.err)) == 1 and says in run.err, run.err


def test_search_code_takes_a_session(db: Path) -> None:
    """Over MCP the client names the session (each request is its own connection)."""

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        async with stdio(db.parent) as client:
            await client.call_tool(
                "search_code", {"query": "how is the total of a cart computed", "session": "m"}
            )
            got = await client.call_tool("search_code", {"query": "what does it call?", "session": "m"})
            plain = await client.call_tool("search_code", {"query": "what does it call?"})
            assert got.structured_content is not None and plain.structured_content is not None
            return got.structured_content, plain.structured_content

    follow, plain = asyncio.run(go())
    assert follow["metadata"]["session"]["memory"] == "shaped"
    assert "session" not in plain["metadata"]
