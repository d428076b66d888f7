#!/usr/bin/env python3
"""Index and query wall time and peak memory on real packages' CPGs. Prints figures; asserts nothing.

    python benchmarks/bench_index_query.py                       # requests (about 5k CPG nodes)
    python benchmarks/bench_index_query.py --package numpy==2.1.3 --provider none

For each package: download its source from the package index, build the CPG
with treeloom (--include-source), then time as separate processes:

1. cold index (empty database) with the chosen embedder;
2. unchanged re-index (same CPG);
3. re-index after inserting one line at the top of one file (CPG rebuilt);
4. query with graph expansion (depth 1 and 2), as a fresh process each time;
5. query --cpg (expansion through the CPG file instead of the index).

Peak memory is the child's maximum resident set size from ``os.wait4``.
Work files go to benchmarks/.work (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
QUERIES = ("how are retries and backoff handled", "parse the configuration", "Session")


def measure_rss(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, str]:
    """Run ``cmd`` and collect its own peak RSS with wait4."""
    start = time.perf_counter()
    out_path = WORK / "stdout.txt"
    with out_path.open("w") as out, open(os.devnull, "w") as devnull:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=devnull)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"command failed ({code}): {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 1024, out_path.read_text()


def fetch_source(spec: str) -> Path:
    """Download a package's wheel (its Python sources, no build step) and unpack it once."""
    name = spec.split("==", maxsplit=1)[0]
    target = WORK / spec.replace("==", "-")
    if target.exists():
        return target
    dl = WORK / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(dl), spec],
        check=True,
        capture_output=True,
    )
    archive = max(
        (
            p
            for p in dl.iterdir()
            if p.name.lower().startswith(name.lower().replace("-", "_"))
            or p.name.lower().startswith(name.lower())
        ),
        key=lambda p: p.stat().st_mtime,
    )
    target.mkdir(parents=True)
    if archive.suffix in {".zip", ".whl"}:
        zipfile.ZipFile(archive).extractall(target)
    else:
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
    return target


def python_root(source: Path, name: str) -> Path:
    """The package directory inside an unpacked source tree."""
    candidates = sorted(source.rglob(f"{name}/__init__.py"), key=lambda p: len(p.parts))
    if not candidates:
        raise SystemExit(f"no {name}/__init__.py under {source}")
    return candidates[0].parent


def build_cpg(root: Path, out: Path) -> tuple[float, float, int]:
    wall, rss, _ = measure_rss(
        [str(BIN / "treeloom"), "build", str(root), "-o", str(out), "--quiet", "--include-source"]
    )
    # Counted in a child process: a big CPG loaded here would inflate every later
    # child's peak RSS (a forked child starts with the parent's resident pages).
    counter = "import json, sys; print(len(json.load(open(sys.argv[1]))['nodes']))"
    nodes = int(
        subprocess.run(
            [sys.executable, "-c", counter, str(out)], capture_output=True, text=True, check=True
        ).stdout
    )
    return wall, rss, nodes


def row(label: str, wall: float, rss: float, extra: str = "") -> None:
    print(f"  {label:<38} {wall:8.2f} s {rss:9.0f} MiB  {extra}")


def bench(spec: str, provider: str) -> None:
    name = spec.split("==", maxsplit=1)[0]
    source = fetch_source(spec)
    pkg = python_root(source, name)
    tree = WORK / f"{name}-tree"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(pkg, tree / name)
    cpg = WORK / f"{name}.json"
    wall, rss, nodes = build_cpg(tree, cpg)
    print(f"\n{spec}: {nodes} CPG nodes, {cpg.stat().st_size / 2**20:.0f} MiB JSON, provider {provider}")
    row("treeloom build (not greploom)", wall, rss)
    db = WORK / f"{name}.db"
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    gl = str(BIN / "greploom")
    wall, rss, out = measure_rss([gl, "index", str(cpg), "--db", str(db), "--provider", provider])
    row("cold index", wall, rss, out.strip().split(" in ")[0])
    wall, rss, out = measure_rss([gl, "index", str(cpg), "--db", str(db), "--provider", provider])
    row("unchanged re-index", wall, rss, out.strip().split(" in ")[0])
    first = sorted((tree / name).rglob("*.py"))[0]
    first.write_text("# one inserted line\n" + first.read_text())
    cpg2 = WORK / f"{name}-edited.json"
    build_cpg(tree, cpg2)
    wall, rss, out = measure_rss([gl, "index", str(cpg2), "--db", str(db), "--provider", provider])
    row("re-index after a one-line insert", wall, rss, out.strip().split(" in ")[0])
    for depth in (1, 2):
        walls, peak, used = [], 0.0, []
        for q in QUERIES:
            wall, rss, out = measure_rss(
                [gl, "query", q, "--db", str(db), "--depth", str(depth), "--format", "json"]
            )
            walls.append(wall)
            peak = max(peak, rss)
            used.append(json.loads(out)["metadata"]["tokens_used"])
        row(
            f"query, graph depth {depth} (mean of {len(QUERIES)})",
            sum(walls) / len(walls),
            peak,
            f"tokens used {used}",
        )
    wall, rss, _ = measure_rss([gl, "query", QUERIES[0], "--db", str(db), "--cpg", str(cpg2)])
    row("query --cpg (reads the CPG file)", wall, rss)
    from greploom.shell.config import GrepLoomConfig
    from greploom.shell.querying import QueryEngine

    engine = QueryEngine(GrepLoomConfig(db_path=db))
    assert engine.query(QUERIES[0]).text  # an answer is packed when it is read
    start = time.perf_counter()
    for _ in range(20):
        for q in QUERIES:
            assert engine.query(q).text
    warm = (time.perf_counter() - start) / (20 * len(QUERIES))
    engine.close()
    row("warm in-process query (QueryEngine)", warm, 0, "mean of 60")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", action="append", help="pip spec, e.g. requests==2.32.3")
    parser.add_argument("--provider", default="local", choices=("local", "none"))
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"  {'step':<38} {'wall':>10} {'peak RSS':>13}")
    for spec in args.package or ["requests==2.32.3"]:
        bench(spec, args.provider)
    return 0


if __name__ == "__main__":
    sys.exit(main())
