#!/usr/bin/env python3
"""Index size and unchanged re-index time, per CPG. Prints figures; asserts nothing.

    python benchmarks/bench_index_size.py CPG [CPG ...] [--dim 768] [--other PATH/greploom]

Each CPG is indexed into a fresh file under benchmarks/.work/size/ with the
Ollama protocol served on 127.0.0.1 by tests/embed_server.py (hashed words,
``--dim`` wide: the same stand-in embedder for every greploom measured), then
indexed again unchanged (median of ``--runs``). Printed per CPG: file bytes,
indexed definitions, bytes per definition, the tables' shares (SQLite's
``dbstat``), and the unchanged re-index time. ``--other`` measures another
greploom executable the same way (for example a previous release installed
in its own virtual environment), and prints the ratios.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import apsw

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work" / "size"
sys.path.insert(0, str(ROOT))

from tests.embed_server import Faults, embedding_server  # noqa: E402

OURS = Path(sys.executable).parent / "greploom"


def index_once(greploom: Path, cpg: Path, db: Path, url: str, *, ours: bool) -> float:
    """Seconds for one ``greploom index`` run of ``cpg`` into ``db``."""
    flags = ["--provider", "ollama", "--model", "stand-in"] if ours else ["--model", "stand-in"]
    command = [str(greploom), "index", str(cpg), "--db", str(db), "--ollama-url", url, *flags]
    start = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{greploom} index {cpg} failed: {done.stderr.strip()[-400:]}")
    return elapsed


def tables(db: Path) -> tuple[int, list[tuple[str, int]]]:
    """(definitions, [(table, bytes)]) of an index file, biggest tables first."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        count = int(conn.execute("SELECT count(*) FROM nodes").fetchone()[0])  # type: ignore[index]
        sizes = [
            (str(name), int(size))
            for name, size in conn.execute(
                "SELECT name, sum(pgsize) AS s FROM dbstat GROUP BY name ORDER BY s DESC"
            )
        ]
    finally:
        conn.close()
    return count, sizes


def measure(greploom: Path, cpg: Path, label: str, url: str, runs: int, *, ours: bool) -> tuple[int, float]:
    db = WORK / f"{cpg.stem}-{label}.db"
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    cold = index_once(greploom, cpg, db, url, ours=ours)
    again = statistics.median(index_once(greploom, cpg, db, url, ours=ours) for _ in range(runs))
    for side in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        side.unlink(missing_ok=True)  # the runs checkpointed on close; what is left is the file
    size = db.stat().st_size
    count, sizes = tables(db)
    print(f"  {label:<8} {size / 1e6:7.2f} MB  {count:6d} definitions  {size / max(count, 1):8.0f} B each")
    print(f"           cold index {cold:6.2f} s; unchanged re-index {again:6.2f} s (median of {runs})")
    shown = ", ".join(f"{name} {b / 1e3:.0f} kB" for name, b in sizes[:6])
    print(f"           biggest tables: {shown}")
    return size, again


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("cpgs", type=Path, nargs="+")
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the index files")
    parser.add_argument("--other", type=Path, default=None, help="another greploom executable")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    with embedding_server(Faults(dim=args.dim)) as (url, _):
        for cpg in args.cpgs:
            print(f"{cpg} (stand-in embedder, {args.dim} wide)")
            size, again = measure(OURS, cpg, "this", url, args.runs, ours=True)
            if args.other is not None:
                other_size, other_again = measure(args.other, cpg, "other", url, args.runs, ours=False)
                print(
                    f"  ratio this/other: size {size / other_size:.2f}x, "
                    f"unchanged re-index {again / other_again:.2f}x"
                )
    if not args.keep:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
