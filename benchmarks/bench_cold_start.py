#!/usr/bin/env python3
"""Cold start of the CLI, and the same questions through a running server. Prints figures; asserts nothing.

    python benchmarks/bench_cold_start.py [--db PATH ...] [--runs 5] [--query TEXT] [--no-server]

Without --db it indexes tests/samples/pyshop (local embedder) into
benchmarks/.work/cold-pyshop.db. Every figure is the median of ``--runs``
fresh processes (one untimed run first, so the files are in the page cache),
with its range, its ratio to ``python -c pass`` (the floor no Python CLI
beats) and the peak RSS of the slowest-memory run:

- the floor: ``python -c pass`` and ``greploom --version``;
- per index, cold (``GREPLOOM_RESIDENT=0``): a symbol (``--depth 0``; the
  symbol is the index's longest uniquely named function), a question
  (``--depth 0``), the question with the graph (depth 1, the default), the
  question as JSON, a ``--node`` lookup, and the question lexically
  (``--provider none``);
- per index, the same through a running ``greploom serve`` (resident mode),
  unless ``--no-server``;
- imports of the query path (``python -X importtime``, cumulative ms at each
  package's first import; on a loaded machine these swing), and the token
  table's load time.

greploom's modules are byte-compiled first, as pip does on install (with
PYTHONDONTWRITEBYTECODE set nothing else would, and every start would
compile them again). PYTHONPATH=DIR/src measures another checkout.
"""

from __future__ import annotations

import argparse
import compileall
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import apsw

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
GREPLOOM = str(BIN / "greploom")
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


def ensure_index(dbs: list[Path]) -> list[Path]:
    if dbs:
        return dbs
    db = WORK / "cold-pyshop.db"
    if not db.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        sample = ROOT / "tests" / "samples" / "pyshop"
        subprocess.run([GREPLOOM, "index", str(sample), "--db", str(db)], check=True, capture_output=True)
    return [db]


def timed(command: list[str], env: Mapping[str, str]) -> tuple[float, int]:
    """(seconds, peak RSS in kB) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}): {err.strip()[-300:]}")
    return elapsed, int(usage.ru_maxrss)


def median_run(command: list[str], runs: int, env: Mapping[str, str]) -> tuple[float, float, float, int]:
    """(median, min, max) seconds and the peak RSS (kB) over ``runs`` processes, after one untimed."""
    timed(command, env)
    results = [timed(command, env) for _ in range(runs)]
    times = [t for t, _ in results]
    return statistics.median(times), min(times), max(times), max(rss for _, rss in results)


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


def symbol_of(db: Path) -> tuple[str, str, int]:
    """(name, key) of the index's longest uniquely named function (a symbol query with one
    answer), and the index's definition count."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        row = conn.execute(
            "SELECT name, min(key) FROM nodes WHERE kind = 'function' GROUP BY name "
            "HAVING count(*) = 1 ORDER BY max(coalesce(end_line, line) - line) DESC, name LIMIT 1"
        ).fetchone()
        count = conn.execute("SELECT count(*) FROM nodes").fetchone()
    finally:
        conn.close()
    if row is None or count is None:
        raise SystemExit(f"{db}: no uniquely named function to query")
    return str(row[0]), str(row[1]), int(count[0])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def resident_server(db: Path) -> Iterator[None]:
    """``greploom serve`` for ``db``, up once its sidecar is written and it answers a first query."""
    sidecar = Path(os.path.realpath(db) + ".serve")
    proc = subprocess.Popen(
        [GREPLOOM, "serve", "--db", str(db), "--port", str(_free_port()), "--root", str(db.parent)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not sidecar.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"greploom serve --db {db} did not start")
            time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def print_case(label: str, figures: tuple[float, float, float, int], floor: float) -> None:
    mid, low, high, rss = figures
    print(
        f"  {label:<40} {mid:6.3f} s [{low:.3f}-{high:.3f}]  {mid / floor:5.1f}x floor  "
        f"{rss / 1024:6.0f} MB peak"
    )


def measure_index(db: Path, text: str, runs: int, floor: float, *, server: bool) -> None:
    name, key, count = symbol_of(db)
    print(f"index {db} ({count} definitions; {db.stat().st_size / 1e6:.1f} MB)")
    base = [GREPLOOM, "query", "--db", str(db), "--budget", "2000"]
    cases = {
        f"symbol {name!r} --depth 0": [*base, name, "--depth", "0"],
        f"question {text!r} --depth 0": [*base, text, "--depth", "0"],
        "question with the graph (depth 1)": [*base, text],
        "question --format json": [*base, text, "--format", "json"],
        "--node KEY": [*base, "--node", key],
        "question --provider none (lexical)": [*base, text, "--provider", "none"],
    }
    cold = dict(os.environ, GREPLOOM_RESIDENT="0")
    for label, argv in cases.items():
        print_case(f"cold: {label}", median_run(argv, runs, cold), floor)
    if server:
        with resident_server(db):
            warm = dict(os.environ, GREPLOOM_RESIDENT="1")
            for label, argv in cases.items():
                print_case(f"via serve: {label}", median_run(argv, runs, warm), floor)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, action="append", default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--query", default="retry backoff")
    parser.add_argument("--no-server", action="store_true", help="cold figures only")
    args = parser.parse_args()
    import greploom

    compileall.compile_dir(Path(greploom.__file__).parent, quiet=1)
    dbs = ensure_index(args.db)
    print(f"{args.runs} fresh processes each: median [min-max], ratio to `python -c pass`, peak RSS")
    floor_figures = median_run([sys.executable, "-c", "pass"], args.runs, os.environ)
    floor = floor_figures[0]
    print_case("python -c pass (the floor)", floor_figures, floor)
    print_case("greploom --version", median_run([GREPLOOM, "--version"], args.runs, os.environ), floor)
    for db in dbs:
        measure_index(db, args.query, args.runs, floor, server=not args.no_server)
    timer = "import time; t = time.perf_counter(); {}; print(time.perf_counter() - t)"
    cli = median_printed(timer.format("import greploom.shell.cli"), args.runs)
    both = median_printed(timer.format(QUERY_IMPORTS), args.runs)
    print(f"imports: greploom.shell.cli {cli * 1000:.0f} ms; with the query modules {both * 1000:.0f} ms")
    found = import_breakdown(args.runs)
    for name, ms in found.items():
        print(f"  {name:<30} {ms:6.1f} ms")
    print(f"  not imported: {', '.join(n for n in WATCH if n not in found) or '-'}")
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
