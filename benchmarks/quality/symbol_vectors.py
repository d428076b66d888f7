#!/usr/bin/env python3
"""Does a symbol query need its vector? The harness's symbol queries, ranked with and without it.

    python benchmarks/quality/symbol_vectors.py

For every query the harness reads as a symbol (greploom.core.query), in
every corpus: the signals ranking with the query's vector (``signals``) and
without it when the query names a definition the index holds (``by-name``,
what ``greploom query`` does since it answers such queries in symbol mode).
Prints NDCG@10, recall@1/5/10, MRR and tokens per corpus and overall, from
the harness's own evaluation (indexes under benchmarks/.work/quality/).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality import run as harness
from benchmarks.quality.corpora import CORPORA
from greploom.core.query import QueryKind, read_query
from greploom.shell.embed_local import LocalEmbedder
from greploom.shell.search import names_a_definition, ranked_search

MODES = ("signals", "by-name")
FIGURES = ("ndcg10", "r1", "r5", "r10", "mrr", "tokens")
_ranked = harness.Runner.ranked


def _ranked_by_name(self: harness.Runner, mode: str, text: str) -> list[tuple[str, float]]:
    if mode != "by-name":
        return _ranked(self, mode, text)
    query = read_query(text)
    embedder = None if names_a_definition(self.store, query) else self.embedder
    return [(h.key, h.score) for h in ranked_search(self.store, query, harness.CANDIDATES, embedder)]


def _which(query: dict[str, Any]) -> str:
    return "withheld" if query.get("withhold") else "main"


def _mean(rows: list[dict[str, Any]]) -> str:
    return "  ".join(f"{k} {statistics.fmean(r[k] for r in rows):.3f}" for k in FIGURES)


def main() -> None:
    harness.Runner.ranked = _ranked_by_name  # type: ignore[method-assign]
    embedder = LocalEmbedder()
    everything: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for corpus in CORPORA:
        queries = json.loads((harness.HERE / "queries" / f"{corpus.name}.json").read_text())
        symbols = [q for q in queries if read_query(q["query"]).kind is QueryKind.SYMBOL]
        withhold = {k for q in queries for k in q.get("withhold", [])}
        main_db = harness.index(harness.cpg_path(corpus), corpus.name, harness.source_dir(corpus))
        runners = {"main": harness.Runner(main_db, embedder)}
        if withhold:
            cpg = harness.withheld_cpg(corpus, withhold)
            db = harness.index(cpg, f"{corpus.name}-withheld", harness.source_dir(corpus))
            runners["withheld"] = harness.Runner(db, embedder)
        for mode in MODES:
            rows = [harness.evaluate(runners[_which(q)], mode, q) for q in symbols]
            everything[mode].extend(rows)
            print(f"{corpus.name:<10} {mode:<8} {len(rows):3d} queries  {_mean(rows)}")
    for mode in MODES:
        print(f"{'all':<10} {mode:<8} {len(everything[mode]):3d} queries  {_mean(everything[mode])}")


if __name__ == "__main__":
    main()
