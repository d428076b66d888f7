#!/usr/bin/env python3
"""The retrieval-quality harness: one command, a table per mode, a committed report.

    python benchmarks/quality/run.py            # all corpora, all modes; writes REPORT.md
    python benchmarks/quality/run.py --corpus requests --no-report
    python benchmarks/quality/run.py --model-dir DIR   # another local model (prints only)

For every corpus (corpora.py) the harness builds the CPG with treeloom,
indexes it twice with the default local embedder (once as is, once with the
docstring queries' target docstrings withheld), then answers every query of
queries/<corpus>.json in each mode:

  bm25        plain BM25 over code chunks (FTS5 defaults over qualname + source): the baseline
  lexical     greploom's BM25 only (identifier-aware, porter-stemmed, weighted columns)
  vector      cosine similarity with the bundled model only
  hybrid      RRF of both (k=60, 2 x top-k each)
  signals     hybrid + code-aware ranking signals (greploom.core.ranking)
  adaptive    signals + query-adaptive context (greploom.core.adaptive)

Rows: each corpus, the mean over corpora (and over each group of corpora:
the base eight, issue 16's), each language (the mean over its corpora:
python, javascript, typescript), each query kind (over its queries) and all
queries; a table per language and mode sums up NDCG@10, and a table per
category (symbol, question, withheld docstring, architecture, legacy, tests,
module-level names) NDCG@10 and hit@1k/2k.

An answer is a qualified name (a definition inside it stands for it), a file
(any result in it) or a module-level assignment (a result in its file whose
lines contain it or lie within it): see case_queries.py.

    python benchmarks/quality/run.py --mode signals --without file-evidence --without legacy
        # the ranking with those signals switched off (prints; --out DIR writes there)

Metrics: NDCG@10, recall@1/5/10, MRR (ranked list; adaptive ranks as
signals), hit within budget (a target's block, with its source when the CPG
has source, not cut and not as a one-line reference, is in the packed
context at 1k/2k/4k tokens; fixed modes pack
top-10 hits, the first three expanded one hop, as `greploom query` does by default: the
first two hits' code, focused when whole does not fit, the later hits' definition line and
the lines that answer, the neighbours' summaries and references), the answer read from
the top (a 4k answer whose first target's code ends within its first 1k / 2k tokens, as
the external benchmark scores), mean tokens per query and per hit at 2k and per query at
4k, mean query latency (search + context at 2k, warm).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import apsw
import attrs

from benchmarks.quality.corpora import CORPORA, WORK, Corpus, cpg_path, source_dir
from benchmarks.quality.withhold import without_docstrings
from greploom.core import ranking
from greploom.core.adaptive import CEILING, select
from greploom.core.budget import PackedBlock, Packing
from greploom.core.cpg import CpgGraph
from greploom.core.errors import EmbedderError
from greploom.core.expand import SEARCH_REACH, expand_hits
from greploom.core.focus import FocusQuery
from greploom.core.fusion import rrf_fuse
from greploom.core.lexical import fts_match_expression
from greploom.core.render import SourceMode, assemble_context
from greploom.shell import search
from greploom.shell.config import GrepLoomConfig
from greploom.shell.embed_local import LocalEmbedder
from greploom.shell.indexing import run_index
from greploom.shell.search import CANDIDATES, ranked_search
from greploom.shell.serde import load_cpg
from greploom.shell.store import IndexStore
from greploom.shell.store_graph import StoreGraph
from greploom.shell.tokens import count_tokens

HERE = Path(__file__).resolve().parent
ALL_MODES = ("bm25", "lexical", "vector", "hybrid", "signals", "adaptive")
BUDGETS = (1000, 2000, 4000)
TOP_K = 10  # fixed-context modes pack this many hits, as `greploom query` does by default
HYBRID_DEPTH = 10  # each list RRF fuses in `hybrid` mode (twice the top 5 it packed before)
DEPTH = 1
SELECT_OPTIONS: dict[str, float] = {}  # --temperature / --mass, for calibration runs
# --model-dir: a directory with model.onnx and tokenizer.json (GREPLOOM_LOCAL_MODEL_DIR's
# format) to index and query with instead of the bundled model; its indexes are kept apart.
MODEL: dict[str, Path] = {}
# Big hits show the lines that answer the query (greploom.core.focus), as greploom
# query does; --no-focus measures whole-or-summary blocks, as before focusing.
FOCUS = {"on": True}
# --source all measures `greploom query --include-source` (code for neighbours too).
SOURCE = {"mode": SourceMode.HITS}


def _no_file_evidence() -> None:
    ranking.asks_about_architecture = lambda words: False  # type: ignore[assignment]


def _no_class_evidence() -> None:
    ranking.class_lifts = lambda pool, **_: {c.key: 0.0 for c in pool}  # type: ignore[assignment]


def _no_call_evidence() -> None:
    ranking.call_lifts = lambda pool, calls, **_: {c.key: 0.0 for c in pool}  # type: ignore[assignment]


def _no_legacy_crowding() -> None:
    # No legacy trees known when a backend's list is judged crowded: tests and the like alone crowd.
    search.legacy_trees = lambda files: frozenset()  # type: ignore[assignment]


def _no_legacy() -> None:
    ranking.current_over_legacy = lambda query, scored, namesakes=(): list(scored)  # type: ignore[assignment]


def _no_non_product() -> None:
    ranking.NON_PRODUCT_PENALTY = 1.0


def _no_declaration() -> None:
    ranking.DECLARATION_PENALTY = 1.0


def _no_module_prior() -> None:
    ranking.MODULE_QUESTION_FACTOR = 1.0


def _no_factories() -> None:
    ranking.factories_yield = lambda ranked, built: list(ranked)  # type: ignore[assignment]


# --without NAME: a ranking signal switched off for the run (an ablation, done here so that
# src/ stays as shipped), with the module and the names it replaces.
ABLATIONS: dict[str, tuple[ModuleType, tuple[str, ...], Callable[[], None]]] = {
    "file-evidence": (ranking, ("asks_about_architecture",), _no_file_evidence),  # issue 16 item 1
    "class-evidence": (ranking, ("class_lifts",), _no_class_evidence),  # a class leading its members
    "call-evidence": (ranking, ("call_lifts",), _no_call_evidence),  # a caller of several matches
    "legacy": (ranking, ("current_over_legacy",), _no_legacy),  # issue 16 item 2
    "legacy-crowding": (search, ("legacy_trees",), _no_legacy_crowding),  # old copies crowd a list
    "non-product": (ranking, ("NON_PRODUCT_PENALTY",), _no_non_product),  # tests, examples, stubs...
    "declaration": (ranking, ("DECLARATION_PENALTY",), _no_declaration),  # interfaces, type aliases
    "module-prior": (ranking, ("MODULE_QUESTION_FACTOR",), _no_module_prior),  # modules, values for questions
    "factories": (ranking, ("factories_yield",), _no_factories),  # a private factory yields to what it builds
}


def switch_off(names: Sequence[str]) -> None:
    for name in names:
        module, needs, apply = ABLATIONS[name]
        missing = [n for n in needs if not hasattr(module, n)]
        if missing:
            raise SystemExit(f"--without {name}: {module.__name__} has no {', '.join(missing)}")
        apply()


def withheld_cpg(corpus: Corpus, keys: set[str]) -> Path:
    """A copy of the corpus CPG without the docstring literals of the given keys."""
    out = WORK / "cpg" / f"{corpus.name}-withheld.json"
    source = cpg_path(corpus)
    if out.exists() and out.stat().st_mtime >= source.stat().st_mtime:
        return out
    raw = without_docstrings(json.loads(source.read_text()), CpgGraph(load_cpg(source)), keys.__contains__)
    out.write_text(json.dumps(raw))
    return out


def index(cpg: Path, name: str, source_root: Path) -> Path:
    model_dir = MODEL.get("dir")
    db = WORK / "index" / (f"{name}@{model_dir.name}.db" if model_dir else f"{name}.db")
    db.parent.mkdir(parents=True, exist_ok=True)
    # The source root gives JavaScript definitions their source (treeloom records none).
    config = GrepLoomConfig(db_path=db, source_root=source_root, local_model_dir=model_dir)
    try:
        run_index(cpg, config)
    except EmbedderError:  # built with another model (an older bundled one): start over
        run_index(cpg, config, force=True)
    return db


def ndcg(ranked: Sequence[bool], relevant: int, k: int = 10) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, hit in enumerate(ranked[:k]) if hit)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(relevant, k)))
    return dcg / ideal if ideal else 0.0


class Runner:
    """Answers queries in every mode against one index."""

    def __init__(self, db: Path, embedder: LocalEmbedder) -> None:
        self.store = IndexStore.open_existing(db)
        self.embedder = embedder
        self.graph = StoreGraph(self.store)
        self.qualnames = {k: q for k, (_, q, _, _) in self.store.describe(self._all_keys()).items()}
        # (file, first line, last line) of every node: files and assignments are answers too
        self.spans: dict[str, tuple[str, int, int]] = {
            k: (f, line, end if end is not None else line)
            for k, f, line, end in self.store.conn.execute("SELECT key, file, line, end_line FROM nodes")
        }
        self.plain = self._plain_bm25()

    def _plain_bm25(self) -> apsw.Connection:
        """The baseline: FTS5's default tokenizer over each node's qualified name and code.

        No identifier splitting, no stemming, no summary: BM25 over code chunks.
        """
        conn = apsw.Connection(":memory:")
        conn.execute("CREATE VIRTUAL TABLE chunks USING fts5(key UNINDEXED, text)")
        rows = self.store.conn.execute("SELECT key, qualname, coalesce(source, summary) FROM nodes")
        conn.executemany(
            "INSERT INTO chunks(key, text) VALUES (?, ?)", [(k, f"{q}\n{t}") for k, q, t in rows]
        )
        return conn

    def _all_keys(self) -> list[str]:
        return [k for (k,) in self.store.conn.execute("SELECT key FROM nodes")]

    def ranked(self, mode: str, text: str) -> list[tuple[str, float]]:
        if mode == "bm25":
            words = re.findall(r"\w+", text)
            if not words:
                return []
            match = " OR ".join('"' + w + '"' for w in words)
            rows = self.plain.execute(
                "SELECT key, bm25(chunks) FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT 10",
                (match,),
            )
            return [(k, -s) for k, s in rows]
        if mode == "lexical":
            return self.store.search_lexical(fts_match_expression(text), 10)
        if mode == "vector":
            return [(k, 1 - d) for k, d in self.store.search_vector(self.embedder.embed_query(text), 10)]
        if mode == "hybrid":
            lex = [k for k, _ in self.store.search_lexical(fts_match_expression(text), HYBRID_DEPTH)]
            vec = [k for k, _ in self.store.search_vector(self.embedder.embed_query(text), HYBRID_DEPTH)]
            return [(f.key, f.score) for f in rrf_fuse([lex, vec])]
        hits = ranked_search(self.store, text, CANDIDATES, self.embedder)
        return [(h.key, h.score) for h in hits]

    def context(self, mode: str, ranked: list[tuple[str, float]], budget: int, query: str = "") -> Any:
        keep = TOP_K
        if mode == "adaptive":
            keep = select([s for _, s in ranked[:CEILING]], **SELECT_OPTIONS).kept
        nodes = expand_hits([k for k, _ in ranked[:keep]], self.graph, DEPTH, reach=SEARCH_REACH)
        focus_on = FocusQuery.of(query) if FOCUS["on"] else None
        # The default answer of `greploom query`: the hits' code (focused when a whole
        # definition does not fit), the neighbours' summaries.
        packing = assemble_context(nodes, budget, count_tokens, SOURCE["mode"], focus_on=focus_on)
        return packing, nodes


def target_of(qualname: str, targets: set[str]) -> str | None:
    """The target a qualified name answers: itself, or the target it is defined inside."""
    if qualname in targets:
        return qualname
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        outer = ".".join(parts[:cut])
        if outer in targets:
            return outer
    return None


@attrs.frozen
class Answers:
    """What answers a query: qualified names, files and module-level assignments."""

    targets: frozenset[str]
    files: frozenset[str]
    assignments: tuple[tuple[str, str, int, int], ...]  # (file, name, line, end_line)

    @classmethod
    def of(cls, query: dict[str, Any]) -> Answers:
        return cls(
            frozenset(query["targets"]),
            frozenset(query.get("files", ())),
            tuple((a["file"], a["name"], a["line"], a["end_line"]) for a in query.get("assignments", ())),
        )

    def __len__(self) -> int:
        return len(self.targets) + len(self.files) + len(self.assignments)

    def matched(self, qualname: str, span: tuple[str, int, int] | None) -> list[str]:
        """The answers a result stands for (usually none or one), in a fixed order."""
        out = []
        target = target_of(qualname, set(self.targets)) if self.targets else None
        if target is not None:
            out.append(target)
        if span is not None:
            file, line, end = span
            if file in self.files:
                out.append(f"file:{file}")
            for a_file, name, a_line, a_end in self.assignments:
                # the module (or anything else) holding the assignment, or a node within it
                holds, within = line <= a_line and end >= a_end, line >= a_line and end <= a_end
                if file == a_file and (holds or within):
                    out.append(f"name:{a_file}:{name}")
        return out


def evaluate(runner: Runner, mode: str, query: dict[str, Any]) -> dict[str, Any]:
    answers = Answers.of(query)
    start = time.perf_counter()
    ranked = runner.ranked(mode, query["query"])
    packing, nodes = runner.context(mode, ranked, 2000, query["query"])
    latency = time.perf_counter() - start
    # A target counts once, at its best rank: several nodes may share a qualified
    # name (overloads in .pyi stubs, redefinitions in branches), and a definition
    # inside a target (a method of a target class, zod's `inst._zod.parse` inside
    # `$ZodObject`) lies in the target's span, which is how the external benchmark
    # labels its answers: it stands for the target.
    # Files and assignments count the same way: once, at the best rank of a result in them.
    seen: set[str] = set()
    found_targets: set[str] = set()
    hits = []
    for key, _ in ranked:
        qualname = runner.qualnames.get(key, "")
        if qualname in seen:
            continue
        seen.add(qualname)
        new = [a for a in answers.matched(qualname, runner.spans.get(key)) if a not in found_targets]
        hits.append(bool(new))
        if new:
            found_targets.add(new[0])
        if len(hits) == 10:
            break
    first = next((i + 1 for i, h in enumerate(hits) if h), None)
    found = min(len(answers), 10)
    out: dict[str, Any] = {
        "ndcg10": ndcg(hits, len(answers)),
        "r1": sum(hits[:1]) / min(len(answers), 1),
        "r5": sum(hits[:5]) / min(len(answers), 5),
        "r10": sum(hits[:10]) / found,
        "mrr": 1.0 / first if first else 0.0,
        "tokens": packing.tokens_used,
        "latency": latency,
    }
    by_key = {n.ref.key: n for n in nodes}

    def shows(p: PackedBlock, pack: Packing) -> bool:
        return (
            bool(answers.matched(runner.qualnames.get(p.block.key, ""), runner.spans.get(p.block.key)))
            and not p.cut
            and p.label != "reference"
            and (by_key[p.block.key].source is None or _code_shown(p) or _inside_whole(runner, p, pack))
        )

    for budget in BUDGETS:
        pack = packing if budget == 2000 else runner.context(mode, ranked, budget, query["query"])[0]
        out[f"hit{budget}"] = any(shows(p, pack) for p in pack.blocks)
        if budget == PREFIX_BUDGET:
            # How an agent reads an answer, and how the external benchmark scores one: from
            # the top, so what counts is how far into it the answering code ends.
            end = next((_end_of(p, pack) for p in pack.blocks if shows(p, pack)), None)
            for cut in PREFIXES:
                out[f"first{cut}"] = end is not None and end <= cut
            out["tokens_wide"] = pack.tokens_used
    return out


def _code_shown(packed: PackedBlock) -> bool:
    """Whether a block shows code: whole, or focused on more than its definition line (a
    block whose code is its first line and elided runs names no more than its signature)."""
    if "```" not in packed.text:
        return False
    if packed.label != "focused":
        return True
    code = packed.text.split("```", 1)[1].split("\n")[1:]
    said = [line for line in code if line.strip() and not line.strip().startswith(("...", "```"))]
    return len(said) > 1


PREFIX_BUDGET = 4000  # the answer read from the top ...
PREFIXES = (1000, 2000)  # ... for the answering code within its first tokens


def _end_of(packed: PackedBlock, packing: Packing) -> int:
    """How many tokens of the packed answer lie up to the end of a block."""
    return count_tokens(packing.text[: packing.text.index(packed.text) + len(packed.text)])


def _inside_whole(runner: Runner, packed: PackedBlock, packing: Packing) -> bool:
    """Whether a block's code lies inside another block the packing shows whole, as the file's
    lines (a method below its class, which the answer points to instead of repeating it)."""
    span = runner.spans.get(packed.block.key)
    if span is None:
        return False
    file, line, end = span
    for other in packing.blocks:
        o = runner.spans.get(other.block.key)
        if other is packed or o is None or other.label != "full" or other.cut:
            continue
        if other.block.key.startswith(("module:", "doc:")):
            continue  # a module's text elides its definitions; a section is prose
        if o[0] == file and o[1] <= line and end <= o[2]:
            return True
    return False


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    keys = (
        *("ndcg10", "r1", "r5", "r10", "mrr", "hit1000", "hit2000", "hit4000"),
        *("first1000", "first2000", "tokens", "tokens_wide", "latency"),
    )
    agg = {k: statistics.fmean(float(r[k]) for r in rows) for k in keys}
    hits = sum(r["hit2000"] for r in rows)
    agg["tokens_per_hit"] = sum(r["tokens"] for r in rows) / hits if hits else float("inf")
    return agg


def run(
    corpora: Sequence[Corpus], modes: Sequence[str], log: Callable[[str], None]
) -> dict[str, dict[str, dict[str, float]]]:
    embedder = LocalEmbedder(MODEL.get("dir"))
    results: dict[str, dict[str, dict[str, float]]] = {m: {} for m in modes}
    languages = {c.language: [d for d in corpora if d.language == c.language] for c in corpora}
    per_kind: dict[str, dict[str, list[dict[str, Any]]]] = {m: {} for m in modes}
    for corpus in corpora:
        queries = json.loads((HERE / "queries" / f"{corpus.name}.json").read_text())
        withhold = {k for q in queries for k in q.get("withhold", [])}
        main_db = index(cpg_path(corpus), corpus.name, source_dir(corpus))
        runners = {"main": Runner(main_db, embedder)}
        if withhold:
            runners["withheld"] = Runner(
                index(withheld_cpg(corpus, withhold), f"{corpus.name}-withheld", source_dir(corpus)),
                embedder,
            )
        for mode in modes:
            rows = []
            for q in queries:
                runner = runners["withheld" if q.get("withhold") else "main"]
                row = evaluate(runner, mode, q)
                rows.append(row)
                per_kind[mode].setdefault(q["kind"], []).append(row)
            results[mode][corpus.name] = summarise(rows)
        log(f"{corpus.name}: {len(queries)} queries done")
    groups = {c.group: [d for d in corpora if d.group == c.group] for c in corpora}
    for mode in modes:
        everything = [r for rows in per_kind[mode].values() for r in rows]
        results[mode]["(mean over corpora)"] = {
            k: statistics.fmean(results[mode][c.name][k] for c in corpora)
            for k in results[mode][corpora[0].name]
        }
        if len(groups) > 1:
            for group, members in groups.items():
                results[mode][group_row(group)] = {
                    k: statistics.fmean(results[mode][c.name][k] for c in members)
                    for k in results[mode][members[0].name]
                }
        for language, members in languages.items():
            results[mode][language_row(language)] = {
                k: statistics.fmean(results[mode][c.name][k] for c in members)
                for k in results[mode][members[0].name]
            }
        for kind, rows in per_kind[mode].items():
            results[mode][f"[{kind} queries]"] = summarise(rows)
        if "tests" in per_kind[mode] and "tests-asked" in per_kind[mode]:
            results[mode]["[tests + tests-asked queries]"] = summarise(
                per_kind[mode]["tests"] + per_kind[mode]["tests-asked"]
            )
        results[mode]["[all queries]"] = summarise(everything)
    return results


def language_row(language: str) -> str:
    return f"({language})"


# Corpus groups (corpora.py): the eight code bases from before issue 16, and issue 16's.
GROUP_NAMES = {"base": "the 8 base corpora", "cases": "issue 16's corpora"}


def group_row(group: str) -> str:
    return f"(mean over {GROUP_NAMES.get(group, group)})"


# The report's categories: query kinds (make_queries.py) in reading order, with their names.
CATEGORIES = (
    ("symbol", "symbol"),
    ("nl", "question"),
    ("docstring", "withheld docstring"),
    ("architecture", "architecture"),
    ("legacy", "legacy (current over legacy copies)"),
    ("tests", "tests: product answer (question does not ask for tests)"),
    ("tests-asked", "tests: test answer (question asks for tests)"),
    ("tests + tests-asked", "tests: both"),
    ("module-name", "module-level names"),
)


COLUMNS = (
    ("NDCG@10", "ndcg10", "{:.3f}"),
    ("R@1", "r1", "{:.2f}"),
    ("R@5", "r5", "{:.2f}"),
    ("R@10", "r10", "{:.2f}"),
    ("MRR", "mrr", "{:.3f}"),
    ("hit@1k", "hit1000", "{:.2f}"),
    ("hit@2k", "hit2000", "{:.2f}"),
    ("hit@4k", "hit4000", "{:.2f}"),
    ("4k: 1k", "first1000", "{:.2f}"),
    ("4k: 2k", "first2000", "{:.2f}"),
    ("tokens", "tokens", "{:.0f}"),
    ("tok/hit", "tokens_per_hit", "{:.0f}"),
    ("tokens at 4k", "tokens_wide", "{:.0f}"),
    ("ms", "latency", "{:.1f}"),
)


def table(mode: str, rows: dict[str, dict[str, float]]) -> str:
    head = "| corpus | " + " | ".join(c[0] for c in COLUMNS) + " |"
    lines = [f"### {mode}", "", head, "|" + "---|" * (len(COLUMNS) + 1)]
    for name, agg in rows.items():
        cells = [fmt.format(agg[key] * (1000 if key == "latency" else 1)) for _, key, fmt in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def language_table(
    results: dict[str, dict[str, dict[str, float]]], modes: Sequence[str], languages: Sequence[str]
) -> str:
    """NDCG@10 per language and mode, and each language's distance from Python's."""
    others = [lang for lang in languages if lang != "python"] if "python" in languages else []
    head = ["mode", *languages, *(f"{lang} - python" for lang in others)]
    lines = [
        "### per language (NDCG@10, mean over each language's code bases)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for mode in modes:
        score = {lang: results[mode][language_row(lang)]["ndcg10"] for lang in languages}
        cells = [f"{score[lang]:.3f}" for lang in languages]
        cells += [f"{score[lang] - score['python']:+.3f}" for lang in others]
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def category_table(
    results: dict[str, dict[str, dict[str, float]]], modes: Sequence[str], counts: dict[str, int]
) -> str:
    """NDCG@10 and hit@1k / hit@2k per query category and mode (over each category's queries)."""
    present = [(kind, name) for kind, name in CATEGORIES if f"[{kind} queries]" in results[modes[0]]]
    head = ["category", "queries", *(f"{m} NDCG@10" for m in modes), *(f"{m} hit@1k / 2k" for m in modes)]
    lines = [
        "### per category (over each category's queries, all corpora)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for kind, name in present:
        row = [results[m][f"[{kind} queries]"] for m in modes]
        cells = [name, str(counts.get(kind, 0))]
        cells += [f"{r['ndcg10']:.3f}" for r in row]
        cells += [f"{r['hit1000']:.2f} / {r['hit2000']:.2f}" for r in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def query_counts(corpora: Sequence[Corpus]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for corpus in corpora:
        for q in json.loads((HERE / "queries" / f"{corpus.name}.json").read_text()):
            counts[q["kind"]] = counts.get(q["kind"], 0) + 1
    if "tests" in counts and "tests-asked" in counts:
        counts["tests + tests-asked"] = counts["tests"] + counts["tests-asked"]
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", action="append", help="only these corpora")
    parser.add_argument("--no-report", action="store_true", help="print only, do not write REPORT.md")
    parser.add_argument(
        "--out", type=Path, default=HERE, help="write REPORT.md and results.json here (default: here)"
    )
    parser.add_argument("--mode", action="append", choices=ALL_MODES, help="only these modes")
    parser.add_argument("--temperature", type=float, help="adaptive selection temperature (calibration)")
    parser.add_argument("--mass", type=float, help="adaptive selection mass (calibration)")
    parser.add_argument("--no-focus", action="store_true", help="no focused sources (whole or summary)")
    parser.add_argument(
        "--source", choices=("hits", "all"), default="hits", help="which blocks show code (default: hits)"
    )
    parser.add_argument(
        "--model-dir", type=Path, help="index and query with this local model (model.onnx, tokenizer.json)"
    )
    parser.add_argument(
        "--without",
        action="append",
        choices=sorted(ABLATIONS),
        default=[],
        help="switch this ranking signal off (an ablation; prints only, unless --out names another folder)",
    )
    args = parser.parse_args()
    if args.without:
        switch_off(args.without)
        if args.out.resolve() == HERE:
            args.no_report = True  # the committed report is the shipped ranking's
    if args.model_dir:
        MODEL["dir"] = args.model_dir.resolve()
        args.no_report = True  # the committed report is the bundled model's
    FOCUS["on"] = not args.no_focus
    SOURCE["mode"] = SourceMode(args.source)
    if args.temperature:
        SELECT_OPTIONS["temperature"] = args.temperature
    if args.mass:
        SELECT_OPTIONS["mass"] = args.mass
    modes = tuple(args.mode or ALL_MODES)
    corpora = [c for c in CORPORA if not args.corpus or c.name in args.corpus]
    started = time.perf_counter()
    results = run(corpora, modes, lambda line: print(line, file=sys.stderr, flush=True))
    languages = list(dict.fromkeys(c.language for c in corpora))
    tables = "\n\n".join(
        [
            language_table(results, modes, languages),
            category_table(results, modes, query_counts(corpora)),
            *(table(mode, results[mode]) for mode in modes),
        ]
    )
    print(tables)
    if not args.no_report:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
        template = (HERE / "REPORT.template.md").read_text()
        report = template.replace("{{TABLES}}", tables).replace(
            "{{RUNTIME}}", f"{time.perf_counter() - started:.0f} s"
        )
        (args.out / "REPORT.md").write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
