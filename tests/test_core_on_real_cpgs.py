"""Known answers of the pure core on real treeloom CPGs of the sample projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from greploom.core.context import resolve_contexts
from greploom.core.cpg import CpgGraph
from greploom.core.expand import NodeContext, Relationship, expand_hits
from greploom.core.keys import node_identities
from greploom.core.render import assemble_context
from greploom.core.spans import with_sources
from greploom.core.summary import Tier, summarize_node
from greploom.shell.serde import load_cpg
from tests.conftest import build_cpg_file


def _index(cpg: Path, tier: Tier = Tier.ENHANCED) -> tuple[dict[str, str], dict[str, NodeContext]]:
    graph = CpgGraph(load_cpg(cpg))
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    summaries = {}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None
        summaries[ident.key] = summarize_node(graph, node, qualnames, tier).text
    contexts = {c.ref.key: c for c in resolve_contexts(graph, idents, summaries)}
    return summaries, contexts


def test_keys_of_the_python_sample(pyshop_cpg: Path) -> None:
    """Keys name kind, file and scope path; a def inside an `if` skips the branch."""
    summaries, _ = _index(pyshop_cpg)
    assert {
        "module:shop/net.py",
        "function:shop/net.py:backoff_delay",
        "function:shop/net.py:describe_policy",
        "class:shop/cart.py:Cart",
        "function:shop/cart.py:Cart.total",
        "function:shop/cart.py:GiftCart.total",
        "module:shop/__init__.py",
    } <= set(summaries)


def test_enhanced_summary_of_a_function(pyshop_cpg: Path) -> None:
    """Signature with annotations, docstring and resolved callees, as an agent reads it."""
    summaries, _ = _index(pyshop_cpg)
    assert summaries["function:shop/pricing.py:total_price"] == (
        "def total_price(prices: list, percent: float)\n"
        "Sum the discounted prices and add tax.\n"
        "calls: apply_discount, sum, add_tax"  # callees of its own module, without the module's path
    )
    assert summaries["function:shop/cart.py:Cart.size"] == ("def size()\ndecorators: @property\ncalls: len")


def test_embedded_text_carries_words_and_notes(pyshop_cpg: Path) -> None:
    """The model reads a name as words; an undocumented body's comment stands in for a docstring
    (and outside Python the words of the identifiers it uses); readers see none of these lines."""
    graph = CpgGraph(load_cpg(pyshop_cpg))
    idents = {i.key: i for i in node_identities(graph)}
    qualnames = {i.node_id: i.qualname for i in idents.values()}

    def summary(key: str) -> tuple[str, str]:
        node = graph.node(idents[key].node_id)
        assert node is not None
        s = summarize_node(graph, node, qualnames, Tier.ENHANCED)
        return s.text, s.embed_text

    text, embedded = summary("function:shop/net.py:post_json")
    assert embedded == (
        "shop.net.post_json (shop/net.py)\n"
        "def post_json(url, payload)\n"
        "words: shop net post json\n"
        "notes: the test server accepts every order"  # no "uses:" words in Python
    )
    assert text == "def post_json(url, payload)"
    text, embedded = summary("function:shop/net.py:backoff_delay")
    assert "words: shop net backoff delay" in embedded and "notes:" not in embedded
    assert "words:" not in text


def test_enhanced_summary_of_class_and_module(pyshop_cpg: Path) -> None:
    """Classes list bases and methods; modules their docstring, definitions and imports."""
    summaries, _ = _index(pyshop_cpg)
    assert summaries["class:shop/cart.py:GiftCart"] == (
        "class GiftCart(Cart)\nA cart whose total is always discounted by ten percent.\nmethods: total"
    )
    assert summaries["module:shop/net.py"] == (
        "module shop.net\n"
        "Checkout over HTTP with retries and exponential backoff.\n"
        "defines: backoff_delay, send_order, post_json, describe_policy\n"
        "imports: time"
    )


def test_fast_summary_is_one_signature_line(pyshop_cpg: Path) -> None:
    """The fast tier is the signature alone."""
    summaries, _ = _index(pyshop_cpg, Tier.FAST)
    assert summaries["function:shop/net.py:backoff_delay"] == ("def backoff_delay(attempt: int, base: float)")


def test_structural_context_of_a_known_function(pyshop_cpg: Path) -> None:
    """Callers are enclosing functions, callees resolved targets, imports those used."""
    _, contexts = _index(pyshop_cpg)
    total = contexts["function:shop/cart.py:Cart.total"].structure
    assert [r.key for r in total.callers] == ["function:shop/cart.py:GiftCart.total"]
    assert [r.key for r in total.callees] == ["function:shop/pricing.py:total_price"]
    assert [r.detail for r in total.parameters] == ["percent: float"]
    assert total.parent_class is not None and total.parent_class.key == "class:shop/cart.py:Cart"
    assert [r.detail for r in total.imports] == ["from shop.pricing import total_price"]
    discount = contexts["function:shop/pricing.py:apply_discount"].structure
    assert [r.key for r in discount.data_sources] == ["function:shop/pricing.py:total_price"]


def test_expansion_and_packing_on_the_sample(pyshop_cpg: Path) -> None:
    """A hit brings its caller and callees, each block headed and within budget."""
    _, contexts = _index(pyshop_cpg)
    nodes = expand_hits(["function:shop/net.py:backoff_delay"], contexts, depth=2)
    rel = {n.ref.key: n.relationship for n in nodes}
    assert rel["function:shop/net.py:backoff_delay"] is Relationship.HIT
    assert rel["function:shop/net.py:send_order"] is Relationship.CALLER
    packing = assemble_context(nodes, 200, len, include_source=True)
    assert packing.tokens_used <= 200
    assert packing.text.startswith("## hit: function shop.net.backoff_delay (shop/net.py:8)")


def test_keys_survive_an_inserted_line(sample_dir: Path, tmp_path: Path) -> None:
    """One line inserted at the top of a file renumbers treeloom ids but no key."""
    before = load_cpg(build_cpg_file(sample_dir / "pyshop", tmp_path / "a.json"))
    edited = tmp_path / "edited"
    import shutil

    shutil.copytree(sample_dir / "pyshop", edited)
    cart = edited / "shop" / "cart.py"
    cart.write_text("# a comment\n" + cart.read_text())
    after = load_cpg(build_cpg_file(edited, tmp_path / "b.json"))
    ids_before = {i.key: i.node_id for i in node_identities(CpgGraph(before))}
    ids_after = {i.key: i.node_id for i in node_identities(CpgGraph(after))}
    assert set(ids_before) == set(ids_after)
    assert ids_before != ids_after


@pytest.mark.parametrize("key", ["function:strings.js:slugify", "class:strings.js:Formatter"])
def test_javascript_sample(jsutil_cpg: Path, key: str) -> None:
    """JavaScript nodes have no end line or source; summaries use `function`."""
    summaries, contexts = _index(jsutil_cpg)
    assert key in summaries
    assert contexts[key].end_line is None and contexts[key].source is None
    assert summaries["function:strings.js:titleCase"].startswith("function titleCase(text, separator)")
    callers = contexts["function:strings.js:slugify"].structure.callers
    assert {r.key for r in callers} == {
        "function:index.js:makeLink",
        "function:strings.js:Formatter.format",
    }


def test_sources_recovered_for_every_brace_language(sample_dir: Path, tmp_path: Path) -> None:
    """treeloom gives TS, Go, Rust and C definitions no source; the files give all of it back.

    Java has its source from treeloom, and gains its Javadoc.
    """
    root = sample_dir / "polyglot"
    data = load_cpg(build_cpg_file(root, tmp_path / "polyglot.json"))
    definitions = [n for n in data.nodes if n.kind.value in ("function", "class")]
    bodiless = [n for n in definitions if not n.file.endswith(".java")]
    assert bodiless and all(n.attr("source_text") is None and n.end_line is None for n in bodiless)
    files = {n.file: (root / n.file).read_text() for n in definitions}
    done = with_sources(data, files)
    recovered = done.data
    assert done.recovered == len(bodiless) == 10 and done.stale == 0
    java = {n.name: n for n in recovered.nodes if n.file == "Ledger.java" and n.kind.value != "module"}
    assert java["Ledger"].attr("doc_comment") == "A running balance of entries."
    assert java["record"].attr("doc_comment") == (
        "Records one entry.\n@param amount cents, negative for a withdrawal"
    )
    before = {n.id: n for n in data.nodes}
    assert all(n.attr("source_text") == before[n.id].attr("source_text") for n in java.values())
    spans = {}
    for node in recovered.nodes:
        if node.kind.value in ("function", "class") and not node.file.endswith(".java"):
            lines = files[node.file].split("\n")
            assert node.attr("source_text") == "\n".join(lines[node.line - 1 : node.end_line])
            spans[f"{node.file}:{node.name}"] = (node.line, node.end_line, node.attr("doc_comment"))
    assert spans == {
        "cart.ts:total": (
            7,
            11,
            'Total price of the lines, in cents.\nBraces in strings and comments do not end it: "}" // }',
        ),
        "cart.ts:Cart": (13, 20, None),
        "cart.ts:add": (17, 19, "Add one item by its SKU."),
        "cart.ts:double": (22, 22, None),
        "sum.go:Sum": (5, 13, "Sum adds up the values.\nIt returns zero for an empty slice."),
        "sum.go:Box": (16, 16, "Box holds one value."),
        "sum.go:Get": (18, 18, None),
        "point.rs:double": (2, 7, "Doubles the value behind a reference."),
        "point.rs:Point": (11, 13, "A point on the plane."),
        "greet.c:greet": (4, 8, "Prints a greeting for the name."),
    }
    graph = CpgGraph(recovered)
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    go_sum = next(n for n in recovered.nodes if n.name == "Sum")
    summary = summarize_node(graph, go_sum, qualnames, Tier.ENHANCED)
    assert summary.text.split("\n")[:2] == [
        "function Sum(xs)",
        "Sum adds up the values. It returns zero for an empty slice.",
    ]
