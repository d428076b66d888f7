"""Docs and config questions on a real repository: is the right section first?

The repository is flask 3.0.3's source distribution, pinned (its 81
reStructuredText files, ``pyproject.toml`` and ``tox.ini`` beside the code
and tests), fetched from the package index into benchmarks/.work/docs. Each
case is a question a user asks about installing, configuring, deploying or
running it, with the sections that answer it (file and heading). The
script indexes the tree (``--lexical``: without vectors), asks each
question and prints the rank of the first answering section, then hit@1,
hit@3 and MRR, and how many doc hits brought the code they name.

Also printed: how many sections were indexed and how many name code, and the
index run's time.

``--code-questions``: what docs cost questions about code. The quality
harness's flask questions in words and symbols (benchmarks/quality/queries/
flask.json, less the withheld-docstring ones) are asked of this tree indexed
with its docs and config and of the same tree with them excluded
(``--exclude`` for their extensions), and NDCG@10 of each is printed (a
target counts once, at its best rank; a definition inside a target stands
for it, as in the harness).

    python benchmarks/bench_docs.py [--lexical] [--show N] [--code-questions]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from greploom.shell.config import GrepLoomConfig
from greploom.shell.indexing import run_index
from greploom.shell.querying import QueryEngine

WORK = Path(__file__).resolve().parent / ".work" / "docs"
SPEC = "flask==3.0.3"
TREE = "flask-3.0.3"

# (question, file, the heading titles any of which answers it)
CASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("how do I install flask in a virtual environment", "docs/installation.rst",
     ("Virtual environments", "Create an environment", "Install Flask")),
    ("which python versions does flask support", "docs/installation.rst", ("Python Version",)),
    ("what are the optional dependencies of flask", "docs/installation.rst", ("Optional dependencies",)),
    ("how to activate the virtual environment on windows", "docs/installation.rst",
     ("Activate the environment",)),
    ("run flask with gunicorn and bind it externally", "docs/deploying/gunicorn.rst",
     ("Binding Externally",)),
    ("how to install gunicorn for deployment", "docs/deploying/gunicorn.rst", ("Installing",)),
    ("configure flask from environment variables", "docs/config.rst",
     ("Configuring from Environment Variables",)),
    ("what does the SECRET_KEY configuration setting do", "docs/config.rst",
     ("Builtin Configuration Values",)),
    ("where is the instance folder configuration", "docs/config.rst", ("Instance Folders",)),
    ("development server says address already in use", "docs/server.rst", ("Address already in use",)),
    ("should I use the debugger in production", "docs/debugging.rst", ("In Production",)),
    ("sending requests with the test client in the docs", "docs/testing.rst",
     ("Sending Requests with the Test Client",)),
    ("pytest settings in pyproject testpaths", "pyproject.toml", ("tool.pytest.ini_options",)),
    ("ruff lint configuration select rules", "pyproject.toml", ("tool.ruff.lint", "tool.ruff")),
    ("mypy configuration strict settings", "pyproject.toml", ("tool.mypy",)),
    ("tox environment for type checking", "tox.ini", ("testenv:typing",)),
    ("deploying flask behind apache httpd", "docs/deploying/apache-httpd.rst",
     ("Apache httpd", "Configuring Apache httpd")),
    ("how to serve flask with waitress on windows", "docs/deploying/waitress.rst",
     ("Waitress", "Installing", "Running")),
)  # fmt: skip


def fetch() -> Path:
    """flask 3.0.3's sdist, unpacked once."""
    tree = WORK / "src" / TREE
    if tree.is_dir():
        return tree
    download = WORK / "dl"
    download.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d",
         str(download), SPEC],
        check=True,
    )  # fmt: skip
    archive = next(download.glob("flask-3.0.3.tar.gz"))
    shutil.rmtree(WORK / "src", ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(WORK / "src", filter="data")
    return tree


DOC_GLOBS = ("*.md", "*.rst", "*.yaml", "*.yml", "*.toml", "*.json", "*.ini", "*.cfg", "*.conf", "*.sh")
QUERIES = Path(__file__).resolve().parent / "quality" / "queries" / "flask.json"


def _ndcg(ranked: list[bool], relevant: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, hit in enumerate(ranked[:10]) if hit)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(relevant, 10)))
    return dcg / ideal if ideal else 0.0


def code_questions(tree: Path, lexical: bool) -> None:
    """NDCG@10 of the harness's flask questions, on the tree with and without its docs."""
    queries = [q for q in json.loads(QUERIES.read_text()) if q["kind"] != "docstring"]
    for label, exclude in (("with docs and config", ()), ("code only", DOC_GLOBS)):
        name = ("lexical-" if lexical else "") + ("code" if exclude else "index")
        config = GrepLoomConfig(
            db_path=WORK / name / "index.db", provider="none" if lexical else None, exclude=exclude
        )
        run_index(tree, config)
        engine = QueryEngine(config)
        scores = []
        try:
            for q in queries:
                targets = q["targets"]
                answer = engine.query(q["query"], budget=8000, top_k=10, depth=0)
                found: set[str] = set()
                ranked = []
                for n in answer.nodes[:10]:
                    new = [
                        t for t in targets
                        if t not in found and (n.qualname.endswith("." + t) or f".{t}." in n.qualname + ".")
                    ]  # fmt: skip
                    found.update(new[:1])
                    ranked.append(bool(new))
                scores.append(_ndcg(ranked, len(targets)))
        finally:
            engine.close()
        print(f"{label:>22}: NDCG@10 {sum(scores) / len(scores):.3f} over {len(scores)} code questions")


def _title(name: str) -> str:
    head, _, tail = name.rpartition(" (")
    return head if head and tail[:-1].isdigit() and tail.endswith(")") else name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lexical", action="store_true", help="index without vectors")
    parser.add_argument("--show", type=int, default=0, help="print the top N of each answer")
    parser.add_argument("--code-questions", action="store_true", help="what docs cost code questions")
    args = parser.parse_args()
    tree = fetch()
    if args.code_questions:
        code_questions(tree, args.lexical)
        return 0
    db = WORK / ("index-lexical" if args.lexical else "index") / "index.db"
    config = GrepLoomConfig(db_path=db, provider="none" if args.lexical else None)
    started = time.monotonic()
    result = run_index(tree, config)
    print(f"index: {result.total} nodes in {time.monotonic() - started:.1f} s ({result.embedder})")
    for note in result.notes:
        print(f"  note: {note}")
    engine = QueryEngine(config)
    hit1 = hit3 = 0
    reciprocal = 0.0
    expanded = 0
    try:
        for question, file, titles in CASES:
            answer = engine.query(question, budget=4000, top_k=10, depth=1)
            hits = [n for n in answer.nodes if n.relationship.value == "hit"]
            # A long section is cut into parts, "Title (2)": each part is that section.
            rank = next(
                (i for i, n in enumerate(hits, 1) if n.ref.file == file and _title(n.ref.name) in titles), 0
            )
            hit1 += rank == 1
            hit3 += 0 < rank <= 3
            reciprocal += 1 / rank if rank else 0.0
            top = hits[0] if hits else None
            named = [n for n in answer.nodes if n.relationship.value == "mentions"]
            expanded += bool(named) and rank > 0
            shown = f"{top.ref.kind} {top.qualname}" if top else "-"
            print(f"{rank or '-':>3}  {question[:58]:<58}  top: {shown[:70]}")
            for n in hits[: args.show]:
                print(f"       {n.ref.kind:<8} {n.ref.file}:{n.ref.line} {n.qualname[:80]}")
    finally:
        engine.close()
    total = len(CASES)
    print(
        f"\n{total} questions: hit@1 {hit1}/{total} ({hit1 / total:.0%}), hit@3 {hit3}/{total} "
        f"({hit3 / total:.0%}), MRR {reciprocal / total:.3f}; answers that brought the code a doc "
        f"section names: {expanded}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
