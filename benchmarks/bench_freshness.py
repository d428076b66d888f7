#!/usr/bin/env python3
"""Indexing a code base from source, cold and again: when it is searchable, when it is done. Prints figures.

    python benchmarks/bench_freshness.py [--source DIR ...] [--package requests==2.32.3 ...]

Each code base (a directory, or a package's wheel fetched with pip from the
package index and unpacked) is copied to benchmarks/.work/fresh/ and indexed
with the CLI on the default local embedder:

- cold: time to searchable (the first moment `greploom query WORD
  --provider none` answers, polled every 0.5 s while the run goes on; the
  polling costs the run a little CPU), time to fully embedded (the run's
  end), and the run's peak RSS, treeloom's child process included;
- unchanged re-index: time and peak RSS;
- edit-one-file re-index: a function appended to one mid-sized file, then
  time and peak RSS.

Peak RSS is the largest of the run's processes (``RUSAGE_CHILDREN`` of a
wrapper that runs just that command). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "fresh"
GREPLOOM = str(Path(sys.executable).parent / "greploom")
# Runs a command and prints its peak RSS (kB), its descendants' included.
WRAPPER = (
    "import resource, subprocess, sys, json, time; t = time.perf_counter(); "
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode; "
    "print(json.dumps({'code': code, 'seconds': time.perf_counter() - t, "
    "'rss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))"
)


def fetch(package: str) -> Path:
    """The unpacked top-level package of a wheel from the package index."""
    name = package.split("==", maxsplit=1)[0]
    target = WORK / "src" / package
    if not target.exists():
        dl = WORK / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary",
                ":all:",
                package,
                "-d",
                str(dl),
            ],
            check=True,
            capture_output=True,
        )
        wheel = next(p for p in dl.glob("*.whl") if p.name.lower().startswith(name.lower().replace("-", "_")))
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
    return target / name


def measured(command: list[str]) -> dict[str, float]:
    """Seconds and peak RSS of ``command`` run to its end."""
    out = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command], check=True, capture_output=True, text=True
    )
    result = json.loads(out.stdout)
    if result["code"] != 0:
        raise SystemExit(f"{' '.join(command)} failed ({result['code']})")
    return dict(result)


def word_of(tree: Path) -> str:
    """A word of the code base to query for: the first function name found."""
    for path in sorted(tree.rglob("*.py")):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("def ") and "(" in line:
                return line[4 : line.index("(")]
    return "def"


def cold(
    tree: Path, db: Path, word: str, *, stop_when_searchable: bool = False
) -> tuple[float, float, float]:
    """(seconds to searchable, seconds to done, peak RSS MB) of a first index run; with
    ``stop_when_searchable`` the run is stopped then (done and RSS are then NaN)."""
    started = time.perf_counter()
    run = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, GREPLOOM, "index", str(tree), "--db", str(db)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: stopping it stops the index run too
    )
    searchable = None
    env = dict(os.environ, GREPLOOM_RESIDENT="0")
    while run.poll() is None:
        if searchable is None:
            probe = subprocess.run(
                [GREPLOOM, "query", word, "--db", str(db), "--provider", "none", "--budget", "2000"],
                capture_output=True,
                env=env,
                check=False,
            )
            if probe.returncode == 0:
                searchable = time.perf_counter() - started
                if stop_when_searchable:
                    # The wrapper's child is the index run: the whole group, or it goes on
                    # embedding and slows every run measured after it.
                    os.killpg(run.pid, signal.SIGTERM)
                    run.wait()
                    return searchable, float("nan"), float("nan")
        time.sleep(0.5)
    result = json.loads(run.stdout.read() if run.stdout else "{}")
    done = time.perf_counter() - started
    if result.get("code") != 0:
        raise SystemExit(f"greploom index {tree} failed ({result.get('code')})")
    return searchable if searchable is not None else done, done, result["rss_kb"] / 1024


def edit_one_file(tree: Path) -> Path:
    """Append a small function to a mid-sized Python file; the file."""
    files = sorted(tree.rglob("*.py"), key=lambda p: p.stat().st_size)
    target = files[len(files) // 2]
    with target.open("a", encoding="utf-8") as handle:
        handle.write("\n\ndef greploom_benchmark_added(value):\n    return value + 1\n")
    return target


def measure(source: Path, label: str, *, searchable_only: bool = False) -> None:
    tree = WORK / "trees" / label
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source, tree)
    lines = sum(
        len(p.read_bytes().splitlines()) for p in tree.rglob("*") if p.is_file() and p.suffix == ".py"
    )
    db = WORK / f"{label}.db"
    # Cold means nothing kept: the index, its WAL and lock, the CPG's parts, the sessions.
    for pattern in (f"{label}.db*", f"{label}.parts.db*", f"{label}.sessions.db*"):
        for stale in WORK.glob(pattern):
            stale.unlink()
    (WORK / f"{label}.cpg.json").unlink(missing_ok=True)
    word = word_of(tree)
    print(f"{label}: {source} ({lines:,} lines of Python), query word {word!r}")
    to_search, to_done, rss = cold(tree, db, word, stop_when_searchable=searchable_only)
    if searchable_only:
        print(f"  cold index: searchable after {to_search:7.1f} s (stopped there)")
        return
    print(
        f"  cold index: searchable after {to_search:7.1f} s, "
        f"fully embedded after {to_done:7.1f} s, {rss:6.0f} MB peak"
    )
    again = measured([GREPLOOM, "index", str(tree), "--db", str(db)])
    print(f"  unchanged re-index:     {again['seconds']:7.2f} s, {again['rss_kb'] / 1024:6.0f} MB peak")
    edited = edit_one_file(tree)
    after = measured([GREPLOOM, "index", str(tree), "--db", str(db)])
    print(
        f"  edit-one-file re-index: {after['seconds']:7.2f} s, {after['rss_kb'] / 1024:6.0f} MB peak "
        f"({edited.relative_to(tree)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", type=Path, action="append", default=[])
    parser.add_argument("--package", action="append", default=[])
    parser.add_argument(
        "--searchable-only", action="store_true", help="stop each cold run once it answers a query"
    )
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    packages = args.package or ([] if args.source else ["requests==2.32.3", "numpy==2.1.3"])
    for source in args.source:
        measure(source.resolve(), source.name, searchable_only=args.searchable_only)
    for package in packages:
        measure(fetch(package), package.split("==")[0], searchable_only=args.searchable_only)


if __name__ == "__main__":
    main()
