"""Precision of call edges, judged by hand: treeloom's ``calls`` edges against greploom's links.

For two real code bases (requests 2.32.3 and click 8.1.7, fetched and built by
the quality harness, benchmarks/quality/corpora.py, into benchmarks/.work/), it
takes every caller -> callee edge of each mode:

- ``old``: treeloom's ``calls`` edges (call node -> function node, by bare name);
- ``new``: :func:`greploom.core.calls.resolve_calls`;

samples a fixed number per code base and mode with a fixed seed, and prints
each with the call's line of source and the target's qualified name, so that a
person can judge it. The judgements live in call_precision_verdicts.json next
to this file (``true``: the call really invokes that definition at run time for
some plausible receiver); precision is computed from them, and a sampled edge
nobody judged yet is listed as such.

    .venv/bin/python -m benchmarks.call_precision          # precision and edge counts
    .venv/bin/python -m benchmarks.call_precision --show   # every sampled edge, to judge
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import attrs

from benchmarks.quality.corpora import CORPORA, Corpus, cpg_path, source_dir
from greploom.core.calls import resolve_calls
from greploom.core.context import USED_EDGE_KINDS
from greploom.core.cpg import CpgGraph, EdgeKind, NodeKind
from greploom.core.keys import node_identities
from greploom.core.summary import call_name
from greploom.shell.serde import load_cpg

HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "call_precision_verdicts.json"
CODE_BASES = ("requests", "click")
PER_MODE = 30  # edges sampled per code base and mode: 60 per mode in all
SEED = 13


@attrs.frozen
class Edge:
    """One caller -> callee edge, named so that it survives a rebuild of the CPG."""

    file: str
    line: int
    call: str  # as written
    caller: str  # qualname of the enclosing definition
    target: str  # qualname of the callee
    target_file: str
    target_line: int

    @property
    def key(self) -> str:
        return f"{self.file}:{self.line} {self.call} -> {self.target}"


@attrs.frozen
class Measured:
    corpus: str
    old: tuple[Edge, ...]
    new: tuple[Edge, ...]
    linked: int
    ambiguous: int
    external: int


def measure(corpus: Corpus) -> Measured:
    """Both modes' edges of one code base."""
    graph = CpgGraph(load_cpg(cpg_path(corpus), USED_EDGE_KINDS))
    idents = node_identities(graph)
    by_id = {i.node_id: i for i in idents}
    links = resolve_calls(graph, idents)

    def edge(call_id: str, target_id: str) -> Edge | None:
        call, target = graph.node(call_id), by_id.get(target_id)
        owner = graph.enclosing_definition(call) if call is not None else None
        caller = by_id.get(owner.id) if owner is not None else None
        if call is None or target is None or caller is None:
            return None
        written = call_name(call.name) or call.name
        return Edge(call.file, call.line, written, caller.qualname, target.qualname, target.file, target.line)

    old = [
        e
        for n in graph.nodes.values()
        if n.kind is NodeKind.CALL
        for c in graph.out_edges(n.id, EdgeKind.CALLS)
        if (e := edge(n.id, c.target)) is not None
    ]
    new = [e for call, target in links.targets if (e := edge(call, target)) is not None]
    return Measured(
        corpus.name,
        tuple(sorted(set(old), key=lambda e: e.key)),
        tuple(sorted(set(new), key=lambda e: e.key)),
        links.linked,
        links.ambiguous,
        links.external,
    )


def sample(edges: tuple[Edge, ...], corpus: str, mode: str) -> list[Edge]:
    """A fixed sample: the same edges on every run while the edges are the same."""
    rng = random.Random(f"{SEED}:{corpus}:{mode}")
    return sorted(rng.sample(list(edges), min(PER_MODE, len(edges))), key=lambda e: e.key)


def _line(root: Path, file: str, line: int) -> str:
    try:
        return (root / file).read_text(encoding="utf-8").splitlines()[line - 1].strip()
    except (OSError, IndexError):
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--show", action="store_true", help="print every sampled edge with its source")
    args = parser.parse_args()
    verdicts: dict[str, dict[str, bool]] = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    corpora = {c.name: c for c in CORPORA}
    totals: dict[str, list[int]] = {"old": [0, 0, 0], "new": [0, 0, 0]}  # correct, judged, edges
    unjudged: list[str] = []
    for name in CODE_BASES:
        corpus = corpora[name]
        measured = measure(corpus)
        root = source_dir(corpus)
        judged = verdicts.get(name, {})
        print(
            f"{name}: old {len(measured.old)} edges; new {len(measured.new)} edges "
            f"(calls: {measured.linked} linked, {measured.ambiguous} ambiguous, {measured.external} external)"
        )
        for mode, edges in (("old", measured.old), ("new", measured.new)):
            picked = sample(edges, name, mode)
            totals[mode][2] += len(edges)
            correct = judged_here = 0
            for e in picked:
                verdict = judged.get(e.key)
                if verdict is None:
                    unjudged.append(f"{name} {e.key}")
                else:
                    judged_here += 1
                    correct += verdict
                if args.show:
                    mark = {True: "ok ", False: "BAD", None: " ? "}[verdict]
                    print(f"  [{mode} {mark}] {e.file}:{e.line} in {e.caller}")
                    print(f"      {_line(root, e.file, e.line)}")
                    where = f"{e.target_file}:{e.target_line}"
                    print(f"      -> {e.target} ({where}: {_line(root, e.target_file, e.target_line)})")
            totals[mode][0] += correct
            totals[mode][1] += judged_here
            share = f"{correct / judged_here:.2f}" if judged_here else "n/a"
            print(f"  {mode}: precision {share} ({correct}/{judged_here} judged of {len(picked)} sampled)")
    for mode, (correct, judged_count, edges) in totals.items():
        share = f"{correct / judged_count:.2f}" if judged_count else "n/a"
        print(f"{mode}: precision {share} ({correct}/{judged_count} judged), {edges} edges in all")
    if unjudged:
        print(f"{len(unjudged)} sampled edges have no verdict yet:")
        for item in unjudged:
            print(f"  {item}")


if __name__ == "__main__":
    main()
