"""Crash trials with an HTTP embedder: kill -9 an index run at many points, then check the next
ordinary command succeeds and that no stored vector comes from another model.

    .venv/bin/python benchmarks/crash_trials.py [--trials 12] [--seed 1]

Each trial copies an index embedded with model ``m`` and starts ``greploom index CPG --force
--model m2`` against a local OpenAI-protocol server (tests/embed_server.py) whose two models
live in different vector spaces and widths (16 and 24 dims). The server SIGKILLs the run right
after answering its k-th request: k runs over every request, the last one included, so the kill
lands in the first batch, between committed batches, and between the last batch and the switch.
Then the ordinary commands run: ``greploom index CPG`` (no flags) and ``greploom query``. Every
stored vector is compared, key by key, with a clean index of the model the index records.
"""

from __future__ import annotations

import argparse
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import apsw
import sqlite_vec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.embed_server import Faults, embedding_server  # noqa: E402

BIN = Path(sys.executable).parent
GREPLOOM = BIN / "greploom"


def vectors(db: Path) -> dict[str, tuple[float, ...]]:
    with apsw.Connection(str(db)) as conn:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        rows = conn.execute("SELECT n.key, v.embedding FROM vectors v JOIN nodes n ON n.id = v.rowid")
        return {k: struct.unpack(f"{len(b) // 4}f", b) for k, b in rows}


def recorded_model(db: Path) -> str:
    with apsw.Connection(str(db)) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder_model'").fetchone()
        return str(row[0]) if row else ""


def _gap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(GREPLOOM), *map(str, args)], capture_output=True, text=True, check=False)


def one_trial(
    trial: int,
    kill_at: int,
    *,
    per_run: int,
    work: Path,
    base: Path,
    cpg: Path,
    clean: dict[str, Path],
    oa: tuple[str, ...],
    f: Faults,
) -> tuple[int, bool]:
    """One kill and the ordinary commands after it: (vectors not the recorded model's, passed)."""
    db = work / f"trial-{trial}.db"
    shutil.copy(base, db)
    f.requests, f.kill_at = 0, kill_at
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(GREPLOOM), "index", str(cpg), "--db", str(db), "--force", *oa, "--model", "m2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    f.kill_pid = proc.pid
    code = proc.wait(timeout=300)
    f.kill_pid = None
    after_kill = time.monotonic() - started
    nxt = run("index", cpg, "--db", db)
    query = run("query", "embedding batches", "--db", db)
    model = recorded_model(db)
    got, want = vectors(db), vectors(clean.get(model, clean["m"]))
    mixed = sum(
        1
        for k, v in want.items()
        if k not in got or len(got[k]) != len(v) or _gap(got[k], v) > 1e-6
    )
    ok = nxt.returncode == 0 and query.returncode == 0 and mixed == 0 and got.keys() == want.keys()
    print(
        f"trial {trial:2d}: killed after request {kill_at:3d}/{per_run} (exit {code}, "
        f"{after_kill:.1f}s) | next index exit {nxt.returncode}, query exit {query.returncode} | "
        f"index records {model}, {len(got)} vectors, {mixed} not that model's"
        + ("" if ok else f" | FAILED: {nxt.stderr.strip()[:200]}")
    )
    return mixed, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    work = Path(tempfile.mkdtemp(prefix="greploom-crash-"))
    try:
        source = work / "src"
        shutil.copytree(ROOT / "src" / "greploom", source / "greploom")
        cpg = work / "cpg.json"
        subprocess.run(
            [str(BIN / "treeloom"), "build", str(source), "-o", str(cpg), "--quiet", "--include-source"],
            check=True,
        )
        faults = Faults(per_model=True, dim_for={"m2": 24})
        with embedding_server(faults) as (url, f):
            oa = ("--provider", "openai", "--embedding-url", url)
            clean = {m: work / f"clean-{m}.db" for m in ("m", "m2")}
            for model, db in clean.items():
                done = run("index", cpg, "--db", db, *oa, "--model", model)
                assert done.returncode == 0, done.stderr
            base = work / "base.db"
            shutil.copy(clean["m"], base)
            before = f.requests
            assert run("index", cpg, "--db", work / "probe.db", *oa, "--model", "m2").returncode == 0
            per_run = f.requests - before
            print(f"CPG of greploom's own source: {len(vectors(clean['m']))} definitions, "
                  f"{per_run} requests per full run")
            points = sorted({per_run, 1, *(rng.randint(1, per_run) for _ in range(options.trials))})
            while len(points) < options.trials:
                points.append(per_run)  # more kills at the last answer: right before the switch
            failures = 0
            mixed_total = 0
            for trial, kill_at in enumerate(points[: options.trials], start=1):
                mixed, ok = one_trial(
                    trial, kill_at, per_run=per_run, work=work, base=base, cpg=cpg, clean=clean, oa=oa, f=f
                )
                failures += not ok
                mixed_total += mixed
        print(
            f"{options.trials} trials: {options.trials - failures} passed, {failures} failed; "
            f"vectors from another model: {mixed_total}"
        )
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
