"""The `index`, `query` and `status` commands end to end on real treeloom CPGs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from greploom.shell.embed_local import LOCAL_MODEL
from tests.cli_helpers import cli, cli_process


@pytest.fixture(scope="module")
def indexed(pyshop_cpg: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the Python sample, built once with the local embedder."""
    db = tmp_path_factory.mktemp("idx") / "index.db"
    run = cli("index", pyshop_cpg, "--db", db)
    assert run.code == 0, run.err
    return db


def test_index_prints_a_summary_line(pyshop_cpg: Path, tmp_path: Path) -> None:
    """An index run ends with totals and where the index went."""
    run = cli("index", pyshop_cpg, "--db", tmp_path / "i.db")
    assert run.code == 0
    assert run.out.startswith("indexed 19 nodes: 19 embedded, 0 unchanged, 0 re-pointed, 0 deleted, 0 failed")
    assert f"local:{LOCAL_MODEL}" in run.out


def test_query_context_answers_a_question(indexed: Path) -> None:
    """A natural-language question finds the function that answers it, with its caller."""
    run = cli("query", "where is the retry backoff computed", "--db", indexed)
    assert run.code == 0, run.err
    header, body = run.out.split("\n\n", 1)
    assert header.startswith("# greploom: hybrid search | ")
    assert "/8192 tokens | truncated: no | dropped: 0 | " in header
    assert f" | embedder: local:{LOCAL_MODEL} | " in header
    assert body.startswith("## hit: function shop.net.backoff_delay (shop/net.py:8)")
    assert "Compute the retry backoff delay for an attempt number." in body


def test_query_json_envelope(indexed: Path) -> None:
    """JSON output carries metadata and results with keys, context and honest counts."""
    run = cli("query", "apply discount", "--db", indexed, "--format", "json", "--budget", "4000")
    envelope = run.json()
    meta = envelope["metadata"]
    assert meta["search_mode"] == "hybrid"
    assert meta["embedder"] == f"local:{LOCAL_MODEL}"
    assert meta["budget"] == 4000 and 0 < meta["tokens_used"] <= 4000
    assert {
        "truncated",
        "dropped",
        "index_indexed_at",
        "greploom_version",
        "treeloom_version",
    } <= set(meta)
    first = envelope["results"][0]
    assert first["key"] == "function:shop/pricing.py:apply_discount"
    assert first["relationship"] == "hit" and first["relevance"] == 1.0
    assert first["node_id"].startswith("function:shop/pricing.py:8:0:")
    # A hit carries its code by default, its neighbours their summaries; --no-source none.
    assert first["detail"] == "full" and first["source"].startswith("def apply_discount(")
    assert all(r["source"] is None for r in envelope["results"] if r["relationship"] != "hit")
    assert [c["key"] for c in first["structural_context"]["callers"]] == [
        "function:shop/pricing.py:total_price"
    ]
    bare = cli("query", "apply discount", "--db", indexed, "--format", "json", "--no-source").json()
    assert all(r["source"] is None and r["detail"] != "full" for r in bare["results"])
    both = cli("query", "apply discount", "--db", indexed, "--include-source", "--no-source")
    assert both.code == 2 and "contradict" in both.err


def test_context_and_json_count_themselves(indexed: Path) -> None:
    """Each format is packed to the budget for itself, and states its own printed size."""
    from greploom.shell.tokens import count_tokens

    args = ("query", "cart total", "--db", indexed, "--budget", "1200")
    text = cli(*args).out
    printed = cli(*args, "--format", "json").out
    meta = json.loads(printed)["metadata"]
    assert f"| {count_tokens(text)}/1200 tokens |" in text.split("\n", 1)[0]
    assert meta["tokens_used"] == count_tokens(printed) <= 1200


def test_budget_is_never_exceeded(indexed: Path) -> None:
    """The whole printed answer, header included, fits the budget in cl100k tokens."""
    from greploom.shell.tokens import count_tokens

    for budget in (120, 200, 350, 1000):
        run = cli("query", "cart", "--db", indexed, "--budget", str(budget), "--include-source")
        assert run.code == 0
        assert count_tokens(run.out) <= budget


def test_long_hits_are_shown_as_references(indexed: Path) -> None:
    """A hit too long for what is left becomes its summary or one-line reference, the header
    says how many, and the hits after it still get their turn; a node asked for by key is cut.
    What a result does not show whole is not sent: its source is null."""
    args = ("--db", indexed, "--include-source", "--top-k", "8")
    text = cli("query", "cart price discount", *args, "--budget", "400").out
    header, *blocks = text.rstrip("\n").split("\n\n")
    references = [b for b in blocks if b.startswith("## hit: ") and "\n" not in b]
    assert references, "a 400-token budget cannot hold eight hits with source"
    assert re.search(rf"\| shortened: \d+ \({len(references)} to references\) \|", header), header
    for ref in references:
        assert re.fullmatch(r"## hit: \S+ \S+ \(\S+:\d+\) key: \S+", ref), ref
    envelope = cli("query", "cart price discount", *args, "--budget", "3000", "--format", "json").json()
    meta, results = envelope["metadata"], envelope["results"]
    shown = {r["detail"] for r in results}
    assert {"full", "summary", "reference"} <= shown
    assert meta["references"] == sum(r["detail"] == "reference" for r in results)
    for r in results:
        assert (r["source"] is not None) == (r["detail"] == "full" and not r["cut"])
        if r["detail"] == "reference":
            assert r["relationship"] == "hit" and not r["cut"]
            assert (
                r["text"] == f"## hit: {r['kind']} {r['qualname']} ({r['file']}:{r['line']}) key: {r['key']}"
            )
        if r["detail"] == "summary":
            assert r["text"].startswith(f"## hit: {r['kind']} {r['qualname']} ") and "```" not in r["text"]
    hits = [r for r in results if r["relationship"] == "hit"]
    assert len(hits) == meta["hits"] and not any(r["cut"] for r in hits)
    key = "class:shop/cart.py:Cart"
    node = cli(
        "query", "--node", key, "--db", indexed, "--include-source", "--budget", "900", "--format", "json"
    )
    first = node.json()["results"][0]
    assert first["key"] == key and first["cut"] and first["detail"] == "full" and first["source"] is None
    assert "[cut to fit the token budget]" in first["text"]


def test_node_lookup_by_key_and_id(indexed: Path) -> None:
    """--node takes stable keys or CPG ids, and reports the unknown ones."""
    key = "function:shop/cart.py:Cart.total"
    by_key = cli("query", "--node", key, "--db", indexed, "--format", "json").json()
    node_id = by_key["results"][0]["node_id"]
    by_id = cli("query", "--node", node_id, "nope", "--db", indexed, "--format", "json")
    assert by_id.code == 0
    assert by_id.json()["results"][0]["key"] == key
    assert by_id.json()["metadata"]["unknown_nodes"] == ["nope"]
    assert "unknown node nope" in by_id.err
    missing = cli("query", "--node", "nope", "--db", indexed)
    assert missing.code == 2 and "unknown node(s): nope" in missing.err
    assert "use a key, CPG id or qualified name from a result" in missing.err


def test_include_source_fences_python(indexed: Path) -> None:
    """Source comes in a python fence, dedented."""
    run = cli("query", "--node", "function:shop/cart.py:Cart.total", "--db", indexed, "--include-source")
    assert '```python\ndef total(self, percent: float = 0.0) -> float:\n    """Price' in run.out


def test_javascript_source_comes_from_the_files(jsutil_cpg: Path, sample_dir: Path, tmp_path: Path) -> None:
    """treeloom writes no JavaScript source: without the files the run says so, with them the code shows."""
    db = tmp_path / "js.db"
    bare = cli("index", jsutil_cpg, "--db", db)
    assert bare.code == 0 and "have no source in the CPG" in bare.err and "--source-root" in bare.err
    run = cli("query", "slugify a title", "--db", db, "--include-source")
    assert "## hit: function strings.slugify (strings.js:6)" in run.out
    assert "```" not in run.out
    # Same CPG, now with its directory: the unchanged-CPG shortcut must not skip the new source.
    rooted = cli("index", jsutil_cpg, "--db", db, "--source-root", sample_dir / "jsutil")
    assert rooted.code == 0 and "warning" not in rooted.err
    run = cli("query", "slugify a title", "--db", db, "--include-source")
    assert "Turn a title into a URL slug." in run.out  # the JSDoc above it
    assert "Defined at strings.js:6-8" in run.out
    assert "```javascript\nfunction slugify(title) {\n  return title.toLowerCase()" in run.out
    via_cpg = cli("query", "slugify a title", "--db", db, "--cpg", jsutil_cpg, "--include-source")
    assert "```javascript\nfunction slugify(title) {" in via_cpg.out  # the index's root, read again
    missing = cli("index", jsutil_cpg, "--db", db, "--source-root", tmp_path / "nope")
    assert missing.code == 2 and "is not a directory" in missing.err and "Traceback" not in missing.err


def test_files_edited_after_the_cpg_are_not_read_wrong(
    jsutil_cpg: Path, sample_dir: Path, tmp_path: Path
) -> None:
    """Lines inserted since treeloom ran shift every span: no source for those, and the run says so."""
    root = tmp_path / "jsutil"
    shutil.copytree(sample_dir / "jsutil", root)
    strings = root / "strings.js"
    strings.write_text("// one\n// two\n// three\n// four\n" + strings.read_text())
    done = cli("index", jsutil_cpg, "--db", tmp_path / "js.db", "--source-root", root)
    assert done.code == 0 and "are not where the CPG puts them" in done.err and "rebuild the CPG" in done.err
    run = cli("query", "slugify a title", "--db", tmp_path / "js.db", "--include-source")
    assert "## hit: function strings.slugify (strings.js:6)" in run.out
    block = run.out.split("## hit: function strings.slugify", 1)[1].split("## ", 1)[0]
    assert "```" not in block and "Defined at strings.js:6\n" in block  # no code, no made-up end


def test_a_directory_is_its_own_source_root(sample_dir: Path, tmp_path: Path) -> None:
    """Indexing a TypeScript/Go/Rust/C directory shows each definition's code."""
    db = tmp_path / "poly.db"
    done = cli("index", sample_dir / "polyglot", "--db", db)
    assert done.code == 0 and "warning" not in done.err, done.err
    run = cli("query", "sum up the values of a slice", "--db", db, "--include-source")
    assert "## hit: function sum.Sum (sum.go:5)" in run.out
    assert "```go\nfunc Sum(xs []int) int {" in run.out and "\treturn t\n}\n```" in run.out
    # Whole lines, dedented: `export` kept, a method's body in step with its first line.
    cart = cli("query", "--node", "function:cart.ts:total", "--node", "function:cart.ts:Cart.add", "--db", db,
               "--include-source")  # fmt: skip
    assert (
        "```typescript\nexport function total(lines: { price: number; qty: number }[]): number {\n"
        in cart.out
    )
    assert (
        '```typescript\nadd(sku: string): void {\n  this.items.push(sku.replace(/}/g, ""));\n}\n```'
        in cart.out
    )


def test_files_treeloom_leaves_out_are_indexed_and_named(tmp_path: Path) -> None:
    """A file with a syntax error keeps the definitions its parse gives, a language without
    a parser is one module holding its text; the run names both, and so does the next one."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "ok.py").write_text("def ok():\n    return 1\n")
    (project / "broken.py").write_text(
        "def broken(:\n    pass\n\n\ndef healthy_neighbour(a):\n    return a\n"
    )
    (project / "model.rb").write_text("class Model\n  def shipping_weight\n  end\nend\n")
    done = cli("index", project, "--db", tmp_path / "p.db")
    assert done.code == 0
    assert (
        "warning: treeloom skipped 1 file (a syntax error drops a file whole); indexed from tree-sitter's "
        "error-tolerant parse instead: broken.py (2 definitions)" in done.err
    )
    assert (
        "warning: no parser reads 1 file here; each is indexed as a module holding its text, a long one in "
        "sections of up to 80 lines: model.rb" in done.err
    )
    found = cli("query", "healthy_neighbour", "--db", tmp_path / "p.db", "--include-source")
    assert "## hit: function broken.healthy_neighbour (broken.py:5)" in found.out
    ruby = cli("query", "shipping weight", "--db", tmp_path / "p.db", "--include-source")
    assert "## hit: module model (model.rb:1)" in ruby.out and "def shipping_weight" in ruby.out
    again = cli("index", project, "--db", tmp_path / "p.db")  # nothing changed: still said
    assert "indexed from tree-sitter's error-tolerant parse instead: broken.py" in again.err
    assert "0 embedded" in again.out


def test_query_with_cpg_uses_that_file(indexed: Path, pyshop_cpg: Path) -> None:
    """--cpg expands through the given CPG instead of the stored graph."""
    envelope = cli("query", "backoff", "--db", indexed, "--cpg", pyshop_cpg, "--format", "json").json()
    assert envelope["metadata"]["graph"] == f"cpg:{pyshop_cpg}"
    assert envelope["results"]


def test_status(indexed: Path) -> None:
    """status shows counts, embedder, tier and CPG without changing anything."""
    info = cli("status", "--db", indexed, "--format", "json").json()
    assert info["nodes"] == 19 and info["vectors"] == 19 and info["functions"] == 12
    assert info["embedder"] == f"local:{LOCAL_MODEL}" and info["tier"] == "enhanced"


def test_lexical_only_index(pyshop_cpg: Path, tmp_path: Path) -> None:
    """--provider none indexes without vectors, and search says it is lexical-only."""
    db = tmp_path / "lex.db"
    assert cli("index", pyshop_cpg, "--db", db, "--provider", "none").code == 0
    meta = cli("query", "backoff", "--db", db, "--format", "json").json()["metadata"]
    assert meta["search_mode"] == "lexical-only" and meta["embedder"] is None


def test_fts_syntax_in_queries_is_data(indexed: Path) -> None:
    """Quotes, operators and column filters in a query are searched for, never parsed."""
    for text in ['"unbalanced', "NOT AND OR", "name:total", "cart*", "NEAR(a b)", "ünïcode ❤"]:
        run = cli("query", text, "--db", indexed)
        assert run.code == 0, (text, run.err)
    wordless = cli("query", "( ) *", "--db", indexed)
    assert wordless.code == 2 and "no searchable words" in wordless.err


def test_no_match_is_said(indexed: Path) -> None:
    """A query nothing matches says so instead of printing nothing."""
    run = cli("query", "zebra xylophone", "--db", indexed, "--provider", "none")
    assert run.code == 0
    assert "0 results" in run.out and "no code matched" in run.out


def test_subprocess_help_and_errors(tmp_path: Path) -> None:
    """As a program: --help documents exit codes; a missing index is one line, exit 4."""
    help_run = cli_process("--help")
    assert help_run.code == 0 and "Exit codes" in help_run.out
    run = cli_process("query", "x", "--db", tmp_path / "none.db")
    assert run.code == 4
    assert run.err.count("\n") == 1 and "no index at" in run.err
    assert not (tmp_path / "none.db").exists()


def test_demo_flow_from_a_source_directory(sample_dir: Path, tmp_path: Path) -> None:
    """`greploom index DIR` builds the CPG with treeloom, then indexes it."""
    project = tmp_path / "proj"
    shutil.copytree(sample_dir / "pyshop", project)
    run = cli_process("index", project, "--db", tmp_path / "d.db")
    assert run.code == 0, run.err
    assert "indexed 19 nodes" in run.out
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing to parse")
    run = cli_process("index", empty, "--db", tmp_path / "e.db")
    assert "warning:" in run.err and "no supported source files" in run.err


def test_adaptive_context_and_plain_ranking(indexed: Path) -> None:
    """--context adaptive reports what it kept; --ranking plain still answers; both within budget."""
    envelope = cli(
        "query", "cart total", "--db", indexed, "--context", "adaptive", "--budget", "700", "--format", "json"
    ).json()
    meta = envelope["metadata"]
    assert meta["context"] == "adaptive" and meta["ranking"] == "signals"
    assert 2 <= meta["kept"] <= meta["candidates"]
    assert 0.0 <= meta["mass_left_out"] <= 1.0 and meta["tokens_used"] <= 700
    text = cli("query", "cart total", "--db", indexed, "--context", "adaptive", "--budget", "600").out
    assert f"adaptive: kept {meta['kept']} of {meta['candidates']} candidates" in text.split("\n", 1)[0]
    plain = cli("query", "Cart.total", "--db", indexed, "--ranking", "plain", "--format", "json").json()
    assert plain["metadata"]["ranking"] == "plain" and plain["results"]
    signals = cli("query", "Cart.total", "--db", indexed, "--format", "json").json()
    assert signals["results"][0]["key"] == "function:shop/cart.py:Cart.total"


def test_warm_engine_reads_a_cpg_once(indexed: Path, pyshop_cpg: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A server with --cpg reads the CPG on the first call only, and again when the file changes."""
    import shutil

    from greploom.shell import querying
    from greploom.shell.config import GrepLoomConfig

    reads: list[Path] = []
    real = querying.cpg_graph

    def counting(
        path: Path, tier: querying.Tier, root: Path | None, *, walk: bool = False
    ) -> dict[str, querying.NodeContext]:
        reads.append(path)
        return real(path, tier, root, walk=walk)

    monkeypatch.setattr(querying, "cpg_graph", counting)
    cpg = tmp_path / "copy.json"
    shutil.copy(pyshop_cpg, cpg)
    engine = querying.QueryEngine(GrepLoomConfig(db_path=indexed))
    try:
        for _ in range(3):
            assert engine.query("cart total", cpg_path=cpg).nodes
        assert len(reads) == 1
        cpg.write_text(cpg.read_text() + "\n")
        engine.query("cart total", cpg_path=cpg)
        assert len(reads) == 2
    finally:
        engine.close()


# What a CLI process may have imported when it exits, of the modules a query should not need.
HEAVY = (
    "httpx",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "sqlite_vec",
    "greploom.shell.embed_http",
    "greploom.shell.indexing",
    "greploom.shell.index_state",
    "greploom.shell.rows",
    "greploom.shell.sources",
)


@pytest.mark.parametrize(
    ("args", "needed"),
    [
        (["query", "retry backoff"], ["numpy", "onnxruntime", "tokenizers"]),  # the query's vector
        (["query", "--node", "backoff_delay"], []),
        (["query", "retry backoff", "--provider", "none"], []),
        (["status"], []),
    ],
)
def test_a_command_imports_only_what_it_uses(indexed: Path, args: list[str], needed: list[str]) -> None:
    """No HTTP stack for a local index, no indexing modules for a query, numpy and ONNX only for a vector."""
    code = (
        "import sys\nfrom greploom.shell.cli import main\ncode = main(sys.argv[1:])\n"
        f"print(code, *sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, *args, "--db", str(indexed)], capture_output=True, text=True, check=True
    )
    assert run.stderr.splitlines()[-1].split() == ["0", *needed]


def test_an_index_run_without_a_terminal_says_each_stage(sample_dir: Path, tmp_path: Path) -> None:
    """stderr not a terminal (an agent, CI, a log): one plain line per stage as it starts, no bars."""
    run = cli_process("index", sample_dir / "pyshop", "--db", tmp_path / "i.db")
    assert run.code == 0, run.err
    stages = [line for line in run.err.splitlines() if not line.startswith("greploom: warning")]
    assert stages == [
        "greploom: building the CPG: 4 files",
        "greploom: reading the CPG",
        "greploom: embedding: 19 definitions",
        "greploom: writing the index: 19 definitions",
    ]
    assert "\r" not in run.err and "\x1b" not in run.err
