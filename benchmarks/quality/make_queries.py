#!/usr/bin/env python3
"""Write queries/<corpus>.json: hand-written questions plus generated symbol and docstring queries.

    python benchmarks/quality/make_queries.py                    # every corpus
    python benchmarks/quality/make_queries.py --corpus express   # only these

- ``nl``: from nl_queries.py, written by hand (see there).
- ``symbol``: 10 public functions/classes per corpus, evenly spaced in key
  order among names of 5+ characters defined at most twice; the query is the
  bare name, or ``Class.method`` for every other method. Targets: every
  definition with that qualified-name suffix.
- ``docstring``: 10 per Python corpus of the base group, evenly spaced among
  definitions whose docstring's first sentence has 6+ words; the query is that
  sentence with reST markup removed. The harness withholds these targets'
  docstrings from the index it runs them against, so the query cannot simply
  match itself. (Issue 16's code bases have none: they would need a second index.)
- ``architecture``, ``legacy``, ``tests``, ``tests-asked``, ``module-name``:
  from case_queries.py, written by hand (see there); answers may be files
  (``files``) and module-level assignments (``assignments``: file, name and
  lines, resolved here from the source) besides qualified names (``targets``).
  Every answer is checked against the definitions an index of the corpus holds.

Selection is deterministic, so re-running gives the same files.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.quality.case_queries import CASES
from benchmarks.quality.corpora import CORPORA, Corpus, cpg_path, source_dir
from benchmarks.quality.nl_queries import NL
from greploom.core.cpg import CpgGraph, NodeKind
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.summary import docstring
from greploom.shell.serde import load_cpg
from greploom.shell.sources import read_sources

PER_KIND = 10
OUT = Path(__file__).resolve().parent / "queries"


def first_sentence(doc: str) -> str:
    text = " ".join(doc.split("\n\n", 1)[0].split())
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    text = text.replace("``", "").replace("`", "").replace("*", "")
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return (match.group(1) if match else text).strip()


def spaced(items: list[NodeIdentity], count: int) -> list[NodeIdentity]:
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def assignment_lines(path: Path, name: str) -> tuple[int, int]:
    """The lines of the module-level assignment of ``name`` in a Python file (the first one;
    also inside module-level ``if`` and ``try`` blocks)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            pending[:0] = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            continue
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node.lineno, node.end_lineno or node.lineno
    raise SystemExit(f"no module-level assignment of {name} in {path}")


def case_queries(corpus: Corpus, idents: list[NodeIdentity]) -> list[dict[str, object]]:
    """The hand-written queries of case_queries.py, their answers checked and resolved."""
    qualnames = {i.qualname for i in idents}
    files = {i.file for i in idents}
    out: list[dict[str, object]] = []
    counts: dict[str, int] = {}
    for kind, text, answers in CASES.get(corpus.name, []):
        counts[kind] = counts.get(kind, 0) + 1
        query: dict[str, object] = {"id": f"{corpus.name}-{kind}-{counts[kind]}", "kind": kind, "query": text}
        targets, in_files, assignments = [], [], []
        for answer in answers:
            if answer.startswith("file:"):
                in_files.append(answer.removeprefix("file:"))
            elif answer.startswith("name:"):
                _, path, name = answer.split(":")
                line, end = assignment_lines(source_dir(corpus) / path, name)
                assignments.append({"file": path, "name": name, "line": line, "end_line": end})
            else:
                targets.append(answer)
        unknown = [t for t in targets if t not in qualnames]
        unknown += [f for f in in_files if f not in files]
        unknown += [a["file"] for a in assignments if a["file"] not in files]
        if unknown:
            raise SystemExit(f"{query['id']}: answers not in the index: {unknown}")
        query["targets"] = targets
        if in_files:
            query["files"] = in_files
        if assignments:
            query["assignments"] = assignments
        out.append(query)
    return out


def generate(corpus: Corpus) -> list[dict[str, object]]:
    # The definitions an index of it holds: the CPG's and what the files add (greploom.shell.sources).
    graph = CpgGraph(read_sources(load_cpg(cpg_path(corpus)), source_dir(corpus), walk=True)[0])
    idents = [i for i in node_identities(graph) if i.kind is not NodeKind.MODULE]
    by_name: dict[str, list[NodeIdentity]] = {}
    for ident in idents:
        by_name.setdefault(ident.name, []).append(ident)
    queries: list[dict[str, object]] = []
    for n, (text, targets) in enumerate(NL.get(corpus.name, []), start=1):
        queries.append({"id": f"{corpus.name}-nl-{n}", "kind": "nl", "query": text, "targets": targets})
    all_idents = list(node_identities(graph))  # modules too: an answer may be a file's module
    queries.extend(case_queries(corpus, all_idents))
    public = sorted(
        (i for i in idents if not i.name.startswith("_") and len(i.name) >= 5 and len(by_name[i.name]) <= 2),
        key=lambda i: i.key,
    )
    for n, ident in enumerate(spaced(public, PER_KIND), start=1):
        parts = ident.qualname.split(".")
        method = ident.kind is NodeKind.FUNCTION and len(parts) >= 3 and parts[-2][:1].isupper()
        text = ".".join(parts[-2:]) if method and n % 2 == 0 else ident.name
        targets = sorted(
            {i.qualname for i in idents if i.qualname == text or i.qualname.endswith("." + text)}
        )
        queries.append(
            {"id": f"{corpus.name}-symbol-{n}", "kind": "symbol", "query": text, "targets": targets}
        )
    if corpus.language == "python" and corpus.docstrings:
        documented = []
        for ident in sorted(idents, key=lambda i: i.key):
            node = graph.node(ident.node_id)
            doc = docstring(graph, node) if node is not None else None
            if doc and not ident.name.startswith("__") and len(first_sentence(doc).split()) >= 6:
                documented.append((ident, first_sentence(doc)))
        chosen = spaced([i for i, _ in documented], PER_KIND)
        sentences = {i.key: s for i, s in documented}
        for n, ident in enumerate(chosen, start=1):
            queries.append(
                {
                    "id": f"{corpus.name}-docstring-{n}",
                    "kind": "docstring",
                    "query": sentences[ident.key],
                    "targets": [ident.qualname],
                    "withhold": [ident.key],
                }
            )
    return queries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", action="append", help="only these corpora")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    total = 0
    for corpus in (c for c in CORPORA if not args.corpus or c.name in args.corpus):
        queries = generate(corpus)
        missing = [q["id"] for q in queries if not (q["targets"] or q.get("files") or q.get("assignments"))]
        if missing:
            raise SystemExit(f"queries without targets: {missing}")
        (OUT / f"{corpus.name}.json").write_text(json.dumps(queries, indent=1) + "\n")
        total += len(queries)
        print(f"{corpus.name}: {len(queries)} queries")
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
