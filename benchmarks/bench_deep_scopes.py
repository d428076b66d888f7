#!/usr/bin/env python3
"""Index time of a CPG whose functions nest deeply. Prints figures; asserts nothing.

    python benchmarks/bench_deep_scopes.py                  # 1,000 nested functions
    python benchmarks/bench_deep_scopes.py --depth 250 --depth 500 --depth 1000

Each CPG is written by hand in treeloom's shape (the 7 keys per node): one
module and a chain of ``depth`` functions, each defined in the one before,
each with one parameter and one call to the function it encloses. Python's
parser stops near 100 nesting levels, so treeloom cannot build one; other
languages' parsers and other producers can. Each depth is indexed in a fresh
subprocess (``greploom index CPG --db DB --provider none``) and timed
wall-clock. Work files go to benchmarks/.work (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
GREPLOOM = Path(sys.executable).parent / "greploom"


def nested_cpg(depth: int) -> dict[str, Any]:
    """A treeloom-shaped CPG: module ``deep.py`` holding ``depth`` functions nested in a chain."""
    module_id = "module:deep.py:1:0:0"
    nodes: list[dict[str, Any]] = [
        {
            "id": module_id,
            "kind": "module",
            "name": "deep",
            "location": {"file": "deep.py", "line": 1, "column": 0},
            "end_location": None,
            "scope": None,
            "attrs": {},
        }
    ]
    edges: list[dict[str, Any]] = []
    scope = module_id
    for level in range(depth):
        line = level + 1
        func_id = f"function:deep.py:{line}:{4 * level}:{3 * level + 1}"
        param_id = f"parameter:deep.py:{line}:{4 * level + 6}:{3 * level + 2}"
        call_id = f"call:deep.py:{line}:{4 * level + 9}:{3 * level + 3}"
        nodes += [
            {
                "id": func_id,
                "kind": "function",
                "name": f"f{level}",
                "location": {"file": "deep.py", "line": line, "column": 4 * level},
                "end_location": {"file": "deep.py", "line": depth + 1, "column": 0},
                "scope": scope,
                "attrs": {"is_async": False},
            },
            {
                "id": param_id,
                "kind": "parameter",
                "name": f"x{level}",
                "location": {"file": "deep.py", "line": line, "column": 4 * level + 6},
                "end_location": None,
                "scope": func_id,
                "attrs": {"position": 0, "type_annotation": None},
            },
            {
                "id": call_id,
                "kind": "call",
                "name": f"f{level - 1}" if level else "print",
                "location": {"file": "deep.py", "line": line, "column": 4 * level + 9},
                "end_location": None,
                "scope": func_id,
                "attrs": {"args_count": 1},
            },
        ]
        edges.append({"source": func_id, "target": param_id, "kind": "has_parameter", "attrs": {}})
        if level:
            edges.append({"source": call_id, "target": scope, "kind": "calls", "attrs": {}})
        scope = func_id
    return {
        "treeloom_version": "0.9.0",
        "nodes": nodes,
        "edges": edges,
        "annotations": {},
        "edge_annotations": [],
    }


def index_seconds(depth: int) -> float:
    """Wall-clock seconds of one ``greploom index`` of a ``depth``-deep CPG, as a fresh process."""
    WORK.mkdir(exist_ok=True)
    cpg = WORK / f"deep-{depth}.json"
    db = WORK / f"deep-{depth}.db"
    cpg.write_text(json.dumps(nested_cpg(depth), indent=2))
    for stale in WORK.glob(f"deep-{depth}.db*"):
        stale.unlink()
    start = time.perf_counter()
    done = subprocess.run(
        [str(GREPLOOM), "index", str(cpg), "--db", str(db), "--provider", "none"],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"index of depth {depth} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, action="append", help="nesting depth (repeatable)")
    args = parser.parse_args()
    print(f"{'depth':>6}  {'index s':>8}")
    for depth in args.depth or [1000]:
        print(f"{depth:>6}  {index_seconds(depth):>8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
