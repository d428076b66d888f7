"""`greploom path A B` and the MCP tool `trace_calls`, on a real index of real code.

The project (written below, indexed by the real CLI through treeloom) has
known chains: a direct call (handle -> save), two steps (request -> handle
-> save), a longer second chain through validate and audit, a cycle (save
<-> write), a definition nothing calls and that calls nothing (lonely), a
name two definitions bear (save), and a hub calling more definitions than a
stored callee list holds (dispatch; greploom.core.context.MAX_NEIGHBOURS).
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.exceptions import ToolError

from greploom.core.context import MAX_NEIGHBOURS
from greploom.core.envelope import envelope_tokens
from greploom.shell.store import IndexStore
from greploom.shell.tokens import count_tokens
from tests.cli_helpers import cli
from tests.shell.test_mcp import http_server, stdio

FILES = {
    "shop/__init__.py": "",
    "shop/api.py": '''
        """Entry points."""

        from shop.service import handle


        def request(payload):
            """Take a request and hand it on."""
            data = prepare(payload)
            return handle(data)


        def prepare(payload):
            return dict(payload)


        def lonely():
            return 1
        ''',
    "shop/service.py": '''
        from shop.audit import audit
        from shop.store import save


        def handle(data):
            """Validate, then store."""
            # save() comes last
            checked = validate(data)
            return save(checked)


        def validate(data):
            if not data:
                audit(data)
            return data
        ''',
    "shop/audit.py": """
        from shop.store import save


        def audit(event):
            return save(event)
        """,
    "shop/store.py": '''
        def save(record):
            """Store a record."""
            return write(record)


        def write(record):
            if record.get("retry"):
                return save(record)
            return True
        ''',
    "shop/cache.py": """
        def save(item):
            return item
        """,
}
HUB_CALLS = MAX_NEIGHBOURS + 5
SAVE = "function:shop/store.py:save"
REQUEST = "function:shop/api.py:request"
HANDLE = "function:shop/service.py:handle"


def _hub() -> str:
    calls = "\n".join(f"    f{i}()" for i in range(HUB_CALLS))
    defs = "\n\n".join(f"def f{i}():\n    return {i}" for i in range(HUB_CALLS - 1))
    last = f"def f{HUB_CALLS - 1}():\n    return target()"
    return f"def dispatch():\n{calls}\n\n\n{defs}\n\n\n{last}\n\n\ndef target():\n    return 0\n"


def write_project(root: Path) -> Path:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    (root / "shop/hub.py").write_text(_hub())
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("paths") / "proj")


@pytest.fixture(scope="module")
def db(project: Path) -> Path:
    """An index of the project, built by the real CLI (lexical only: no model to load)."""
    out = project.parent / "index.db"
    run = cli("index", project, "--db", out, "--provider", "none")
    assert run.code == 0, run.err
    return out


def line_of(project: Path, file: str, text: str) -> int:
    lines = (project / file).read_text().split("\n")
    return next(i for i, line in enumerate(lines, 1) if text in line)


def header(out: str) -> str:
    return out.split("\n", 1)[0]


def test_two_steps_each_with_its_calling_line_marked(db: Path, project: Path) -> None:
    """request -> handle -> save: every step's code, the calling line marked and named."""
    run = cli("path", "request", "store.save", "--db", db)
    assert run.code == 0, run.err
    assert header(run.out).startswith(
        "# greploom: call path | shop.api.request reaches shop.store.save: 2 chains of 2-4 calls "
        "(all within 6 calls) | "
    )
    assert "## chain 1 of 2: 2 calls: shop.api.request -> shop.service.handle -> shop.store.save" in run.out
    line = line_of(project, "shop/api.py", "return handle(data)")
    assert f"calls shop.service.handle at shop/api.py:{line}" in run.out
    assert "    return handle(data)  # <- calls handle\n" in run.out
    assert "    return save(checked)  # <- calls save\n" in run.out
    # The comment naming save() is not its calling line.
    assert "# save() comes last  #" not in run.out
    steps = re.findall(r"^## step (\d) of (\d)(?: \(as in chain \d\))?: \S+ (\S+) ", run.out, re.M)
    assert steps[:3] == [
        ("1", "3", "shop.api.request"),
        ("2", "3", "shop.service.handle"),
        ("3", "3", "shop.store.save"),
    ]


def test_the_second_chain_reuses_what_the_first_showed(db: Path, project: Path) -> None:
    """A step shown already is its header alone; a definition shown with another call is shown again."""
    out = cli("path", "request", "store.save", "--db", db).out
    second = out.split("## chain 2 of 2: ", 1)[1]
    line = line_of(project, "shop/api.py", "def request(")
    assert second.startswith(
        "4 calls: shop.api.request -> shop.service.handle -> shop.service.validate -> shop.audit.audit "
        "-> shop.store.save"
    )
    assert (
        f"## step 1 of 5 (as in chain 1): function shop.api.request (shop/api.py:{line}) key: {REQUEST}\n\n"
        in second
    )
    assert "    checked = validate(data)  # <- calls validate" in second


def test_direct_call_cycle_and_json_lists_keys_and_call_lines(db: Path, project: Path) -> None:
    """handle -> save is one call; save <-> write is a cycle, each way one call; the JSON lists
    every chain's keys and calling lines, and each result its step."""
    envelope = cli("path", HANDLE, SAVE, "--db", db, "--format", "json").json()
    meta = envelope["metadata"]
    assert meta["direction"] == "forward" and meta["chains_found"] == 2 and meta["shortest_calls"] == 1
    assert envelope["chains"][0] == {
        "calls": 1,
        "keys": [HANDLE, SAVE],
        "call_lines": [line_of(project, "shop/service.py", "return save(checked)"), None],
    }
    assert envelope["chains"][1]["keys"][1:3] == [
        "function:shop/service.py:validate",
        "function:shop/audit.py:audit",
    ]
    first = envelope["results"][0]
    assert (first["chain"], first["step"], first["key"], first["calls"]) == (1, 1, HANDLE, SAVE)
    assert first["call_line"] == envelope["chains"][0]["call_lines"][0] and first["detail"] == "full"
    write = cli("path", "store.save", "write", "--db", db, "--format", "json").json()
    assert [c["keys"] for c in write["chains"]] == [[SAVE, "function:shop/store.py:write"]]
    back = cli("path", "write", "store.save", "--db", db, "--format", "json").json()
    assert back["chains"][0]["keys"] == ["function:shop/store.py:write", SAVE]


def test_the_other_direction_is_tried_and_said(db: Path) -> None:
    """save reaches request by no chain; request reaches save, and the header says so."""
    run = cli("path", SAVE, "request", "--db", db)
    assert run.code == 0
    assert header(run.out).startswith(
        "# greploom: call path | shop.store.save does not reach shop.api.request within 6 calls; "
        "shop.api.request reaches shop.store.save: 2 chains"
    )
    assert "## chain 1 of 2: 2 calls: shop.api.request -> shop.service.handle -> shop.store.save" in run.out
    meta = cli("path", SAVE, "request", "--db", db, "--format", "json").json()["metadata"]
    assert meta["direction"] == "reverse" and (meta["from"], meta["to"]) == (SAVE, REQUEST)


def test_no_chain_within_the_bound_is_an_answer(db: Path) -> None:
    """None either way: exit 0, the header and a note say so; the JSON has no chains."""
    run = cli("path", "lonely", "store.save", "--db", db)
    assert run.code == 0 and run.err == ""
    assert (
        "| no call chain within 6 calls between shop.api.lonely and shop.store.save, either way |" in run.out
    )
    assert "No call chain of at most 6 calls runs from shop.api.lonely to shop.store.save or back." in run.out
    envelope = cli("path", "lonely", "store.save", "--db", db, "--format", "json").json()
    assert envelope["chains"] == [] and envelope["results"] == []
    assert envelope["metadata"]["direction"] == "none"
    bounded = cli("path", "request", "store.save", "--db", db, "--max-calls", "1")
    assert "no call chain within 1 call between" in header(bounded.out)
    one = cli("path", "request", "store.save", "--db", db, "--max-chains", "1").out
    assert "1 chain of 2 calls (the 1 shortest within 6 calls)" in header(one)


def test_a_capped_callee_list_is_filled_from_the_callers(db: Path) -> None:
    """dispatch calls more definitions than its stored list holds; the chain through a callee the
    list left out is still found, from that callee's callers, and the metadata counts it."""
    store = IndexStore.open_existing(db, readonly=True)
    try:
        hub = store.contexts(["function:shop/hub.py:dispatch"])["function:shop/hub.py:dispatch"]
    finally:
        store.close()
    last = f"function:shop/hub.py:f{HUB_CALLS - 1}"
    assert len(hub.structure.callees) == MAX_NEIGHBOURS and last not in {r.key for r in hub.structure.callees}
    envelope = cli("path", "dispatch", "target", "--db", db, "--format", "json").json()
    assert envelope["chains"][0]["keys"] == [
        "function:shop/hub.py:dispatch",
        last,
        "function:shop/hub.py:target",
    ]
    assert envelope["metadata"]["capped"] == 1


def test_budgets_hold_and_state_their_counts(db: Path) -> None:
    """Text and JSON each fit the budget and state their own printed size; long steps shrink."""
    for budget in (200, 400, 800, 3000):
        run = cli("path", "request", "store.save", "--db", db, "--budget", str(budget))
        assert run.code == 0, run.err
        used = count_tokens(run.out)
        assert used <= budget and f"| {used}/{budget} tokens |" in header(run.out)
    small = cli("path", "request", "store.save", "--db", db, "--budget", "300").out
    assert "shortened:" in header(small)
    # The first chain whole, the second (five steps) left out, and said so.
    assert "| dropped: 5 |" in header(small) and "| shown: 1 of 2 chains |" in header(small)
    assert "## chain 1 of 2" in small and "## chain 2 of 2" not in small
    for budget in (900, 3000):
        printed = cli(
            "path", "request", "store.save", "--db", db, "--budget", str(budget), "--format", "json"
        ).out
        envelope = json.loads(printed)
        # The count the envelope states is its own in its dearest form (greploom.core.envelope.FORMS).
        assert count_tokens(printed) <= envelope["metadata"]["tokens_used"] <= budget
        assert envelope["metadata"]["tokens_used"] == envelope_tokens(envelope, count_tokens)


def test_a_budget_too_small_names_the_smallest(db: Path) -> None:
    run = cli("path", "request", "store.save", "--db", db, "--budget", "40")
    assert run.code == 2
    least = int(re.search(r"the smallest that can is (\d+) tokens", run.err).group(1))  # type: ignore[union-attr]
    assert cli("path", "request", "store.save", "--db", db, "--budget", str(least)).code == 0
    assert cli("path", "request", "store.save", "--db", db, "--budget", str(least - 1)).code == 2


def test_no_source_shows_the_calling_lines_only(db: Path) -> None:
    out = cli("path", "request", "store.save", "--db", db, "--no-source").out
    assert "def request(payload)\nTake a request and hand it on." in out
    assert "```python\nreturn handle(data)  # <- calls handle\n```" in out
    assert "data = prepare(payload)" not in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("nope", "store.save"),
            "from: unknown node nope (use a key, CPG id or qualified name from a result)",
        ),
        (("request", "nope"), "to: unknown node nope"),
        (
            ("request", "save"),
            f"to: save names 2 definitions: function:shop/cache.py:save, {SAVE}; pass one of these keys",
        ),
        (("save", "save"), "from and to: save names 2 definitions"),
        (("request", REQUEST), f"both ends are {REQUEST}; give two different definitions"),
        (("request", "store.save", "--max-calls", "0"), "max-calls must be between 1 and 12, not 0"),
        (("request", "store.save", "--max-chains", "11"), "max-chains must be between 1 and 10, not 11"),
        (("request", "store.save", "--budget", "-3"), "budget must be a positive number of tokens"),
        (("request",), "greploom: error:"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(db: Path, args: tuple[str, ...], said: str) -> None:
    run = cli("path", *args, "--db", db)
    assert run.code == 2
    assert said in run.err and run.err.count("\n") == 1 and "Traceback" not in run.err


def test_a_missing_index_is_exit_4(tmp_path: Path) -> None:
    run = cli("path", "a", "b", "--db", tmp_path / "none.db")
    assert run.code == 4 and "no index at" in run.err


def test_a_changed_file_marks_its_steps_stale(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj")
    db = tmp_path / "index.db"
    assert cli("index", root, "--db", db, "--provider", "none").code == 0
    (root / "shop/store.py").write_text((root / "shop/store.py").read_text() + "\n# edited\n")
    out = cli("path", "handle", "store.save", "--db", db).out
    assert "| stale: " in header(out)
    assert f"(shop/store.py:1, stale) key: {SAVE}" in out


# -- MCP --------------------------------------------------------------------------------


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, db: Path) -> Any:
    """A connected-on-enter client factory over stdio or streamable HTTP, serving the project's index."""
    if request.param == "stdio":
        yield lambda: stdio(db.parent)
        return
    with http_server(db.parent) as url:
        yield lambda: Client(StreamableHttpTransport(url))


def test_trace_calls_through_a_real_client(db: Path, connect: Callable[[], Client[Any]]) -> None:
    """Listed read-only with bounded parameters; answers as the CLI does; bad input is a ToolError."""

    async def go() -> tuple[str, dict[str, Any]]:
        async with connect() as client:
            tools = {t.name: t for t in await client.list_tools()}
            trace = tools["trace_calls"]
            assert trace.annotations is not None and trace.annotations.read_only_hint is True
            schema = trace.input_schema
            assert schema["required"] == ["from", "to"]
            assert schema["properties"]["max_calls"]["maximum"] == 12
            assert schema["properties"]["max_chains"]["maximum"] == 10
            got = await client.call_tool(
                "trace_calls", {"from": "request", "to": "store.save", "budget": 3000}
            )
            none = await client.call_tool("trace_calls", {"from": "lonely", "to": "store.save"})
            assert not none.is_error and none.structured_content["chains"] == []
            assert "no call chain within 6 calls" in none.content[0].text
            for bad, said in [
                ({"from": "nope", "to": "store.save"}, "unknown node nope"),
                ({"from": "request", "to": "save"}, "save names 2 definitions"),
                ({"from": "request", "to": "store.save", "max_calls": 13}, "less than or equal to 12"),
                ({"from": "request", "to": "store.save", "budget": 120}, "the smallest that can is"),
                (
                    {"from": "request", "to": "store.save", "db_path": "/etc/x.db"},
                    "outside the allowed roots",
                ),
            ]:
                with pytest.raises(ToolError, match=said):
                    await client.call_tool("trace_calls", bad)
            return got.content[0].text, got.structured_content

    text, envelope = asyncio.run(go())
    args = ("path", "request", "store.save", "--db", db.resolve(), "--budget", "3000")

    def same(s: str) -> str:
        return re.sub(r"index age: \w+", "index age: _", s)

    assert same(text) == same(cli(*args).out)
    printed = cli(*args, "--format", "json").json()
    for env in (envelope, printed):
        env["metadata"].update(index_age="_", index_age_seconds=0)
    assert envelope == printed


def test_path_imports_no_model_and_no_indexing(db: Path) -> None:
    """A path needs no embedder: no model, no HTTP stack, no indexing modules are imported."""
    from tests.shell.test_cli import HEAVY

    code = (
        "import sys\nfrom greploom.shell.cli import main\ncode = main(sys.argv[1:])\n"
        f"print(code, *sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, "path", "request", "store.save", "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stderr.splitlines()[-1].split() == ["0"]
