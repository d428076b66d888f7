#!/usr/bin/env python3
"""Cold start of the CLI: what an agent pays per question. Prints figures; asserts nothing.

    python benchmarks/bench_cold_start.py [--db PATH] [--runs 5] [--query TEXT]

Without --db it indexes tests/samples/pyshop (local embedder) into
benchmarks/.work/cold-pyshop.db. Every figure is the median of ``--runs``
fresh processes (one untimed run first, so the files are in the page cache):

- cold query: ``greploom query TEXT --db DB --budget 600``, start to exit,
  and ``--node`` (a lookup: no model) and ``--provider none`` (lexical only);
- imports: ``import greploom.shell.cli`` and the query modules, then the
  packages they bring (``python -X importtime``, cumulative microseconds at
  each package's first import: on a loaded machine these swing);
- token table: building cl100k_base (``greploom.shell.tokens.cl100k()``).

greploom's modules are byte-compiled first, as pip does on install (with
PYTHONDONTWRITEBYTECODE set nothing else would, and every start would
compile them again). PYTHONPATH=DIR/src measures another checkout.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
# Third-party packages (and greploom's own parts) whose import cost the breakdown names.
WATCH = (
    "cyclopts",
    "attrs",
    "greploom.core",
    "apsw",
    "cattrs",
    "tiktoken",
    "numpy",
    "httpx",
    "onnxruntime",
    "tokenizers",
    "greploom.shell.indexing",
    "greploom.shell.sources",
)
QUERY_IMPORTS = "import greploom.shell.cli, greploom.shell.querying"


def ensure_index(db: Path | None) -> Path:
    if db is not None:
        return db
    db = WORK / "cold-pyshop.db"
    if not db.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        sample = ROOT / "tests" / "samples" / "pyshop"
        subprocess.run(
            [str(BIN / "greploom"), "index", str(sample), "--db", str(db)], check=True, capture_output=True
        )
    return db


def median_wall(command: list[str], runs: int) -> tuple[float, float, float]:
    """(median, min, max) seconds of ``command`` in fresh processes, after one untimed run."""
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def median_printed(code: str, runs: int) -> float:
    """The median of the number ``code`` prints, each run in a fresh interpreter."""
    values = [
        float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
        for _ in range(runs + 1)
    ][1:]
    return statistics.median(values)


def import_breakdown(runs: int) -> dict[str, float]:
    """Median cumulative import time (ms) of each watched package, at its outermost import."""
    found: dict[str, list[float]] = {name: [] for name in WATCH}
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", QUERY_IMPORTS],
            check=True,
            capture_output=True,
            text=True,
        ).stderr
        seen: set[str] = set()
        for line in err.splitlines():
            parts = line.split("|")
            if len(parts) != 3 or not parts[1].strip().isdigit():
                continue
            name = parts[2].strip()
            if name in found and name not in seen:
                seen.add(name)
                found[name].append(int(parts[1]) / 1000)
    return {name: statistics.median(values) for name, values in found.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--query", default="retry backoff")
    args = parser.parse_args()
    import greploom

    compileall.compile_dir(Path(greploom.__file__).parent, quiet=1)
    db = ensure_index(args.db)
    greploom = [str(BIN / "greploom"), "query"]
    print(f"cold start, {args.runs} fresh processes each (median [min-max]); index {db}")
    cases = {
        f"query {args.query!r}": [args.query, "--db", str(db), "--budget", "600"],
        "query --node backoff_delay": ["--node", "backoff_delay", "--db", str(db), "--budget", "600"],
        f"query {args.query!r} --provider none": [
            args.query,
            "--db",
            str(db),
            "--budget",
            "600",
            "--provider",
            "none",
        ],
    }
    for label, argv in cases.items():
        mid, low, high = median_wall([*greploom, *argv], args.runs)
        print(f"  {label:<44} {mid:6.3f} s  [{low:.3f}-{high:.3f}]")
    floor = median_wall([sys.executable, "-c", "pass"], args.runs)[0]
    print(f"  {'python -c pass (the floor)':<44} {floor:6.3f} s")
    timer = "import time; t = time.perf_counter(); {}; print(time.perf_counter() - t)"
    cli = median_printed(timer.format("import greploom.shell.cli"), args.runs)
    both = median_printed(timer.format(QUERY_IMPORTS), args.runs)
    print(f"imports: greploom.shell.cli {cli * 1000:.0f} ms; with the query modules {both * 1000:.0f} ms")
    for name, ms in import_breakdown(args.runs).items():
        print(f"  {name:<30} {ms:6.1f} ms")
    absent = [name for name in WATCH if name not in import_breakdown(1)]
    print(f"  not imported: {', '.join(absent) or '-'}")
    table = median_printed(
        "import time; from greploom.shell.tokens import cl100k; "
        "t = time.perf_counter(); cl100k(); print(time.perf_counter() - t)",
        args.runs,
    )
    print(f"token table (cl100k_base): {table * 1000:.0f} ms")
    if os.environ.get("PYTHONPATH"):
        print(f"(PYTHONPATH={os.environ['PYTHONPATH']})")


if __name__ == "__main__":
    main()
