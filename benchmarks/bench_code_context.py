#!/usr/bin/env python3
"""Context for code: is the definition a line calls in the answer? Prints figures; asserts nothing.

    python benchmarks/bench_code_context.py [--db PATH ...] [--per-index 60] [--budget 1000]

Snippets are cut from the indexed code itself: for definitions whose calls
greploom links to a definition in another file (the stored callees), the
first line of the caller's source that calls the callee by name is the
snippet, and the callee is the answer wanted. Each snippet is asked for two
ways: as text alone (``query --code -``: nothing says where it came from)
and as its place (``--code FILE:LINE``: the enclosing definition is known).
A snippet counts as answered when the callee's block is in the answer packed
to the budget (its ``key:`` is printed). The caller set is walked in key
order and cut at ``--per-index`` snippets, so runs compare.

By default the harness's indexes of requests, flask, click, httpx, attrs, zod and commander
(benchmarks/.work/quality/index, built by benchmarks/quality/run.py).
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

from greploom.core.errors import GreploomError
from greploom.shell.code_context import CodePlace
from greploom.shell.config import GrepLoomConfig
from greploom.shell.querying import QueryEngine
from greploom.shell.store import IndexStore

HERE = Path(__file__).resolve().parent
DEFAULT = [
    HERE / ".work" / "quality" / "index" / f"{name}.db"
    for name in ("requests", "flask", "click", "httpx", "attrs", "zod", "commander")
]


def snippets(db: Path, limit: int) -> list[tuple[str, CodePlace, str, str]]:
    """(snippet, its place, caller key, callee key) for up to ``limit`` cross-file calls."""
    out: list[tuple[str, CodePlace, str, str]] = []
    with IndexStore.open_existing(db, readonly=True) as store:
        root = Path(store.meta().get("source_root") or ".")
        keys = [e.key for e in store.stored_entries()]
        for key in sorted(keys):
            if len(out) >= limit:
                break
            ctx = store.contexts([key]).get(key)
            if ctx is None or not ctx.source or ctx.ref.kind == "module":
                continue
            for callee in ctx.structure.callees:
                if callee.file == ctx.ref.file:
                    continue
                call = re.compile(rf"\b{re.escape(callee.name)}\s*\(")
                for offset, line in enumerate(ctx.source.splitlines()):
                    if call.search(line) and offset > 0:  # not the definition's own head
                        place = CodePlace(
                            str(root / ctx.ref.file), ctx.ref.line + offset, ctx.ref.line + offset
                        )
                        out.append((line, place, key, callee.key))
                        break
                else:
                    continue
                break
    return out


def measure(db: Path, limit: int, budget: int) -> None:
    cases = snippets(db, limit)
    engine = QueryEngine(GrepLoomConfig(db_path=db), one_shot=True)
    found = {"text": 0, "place": 0}
    tokens: dict[str, list[int]] = {"text": [], "place": []}
    try:
        for code, place, _caller, callee in cases:
            for how, where in (("text", None), ("place", place)):
                try:
                    answer = engine.code_context(code, where, budget=budget)
                    text = answer.text
                except GreploomError:
                    continue
                tokens[how].append(engine.count(text))
                found[how] += f"key: {callee}" in text
    finally:
        engine.close()
    n = len(cases)
    if not n:
        print(f"{db.name}: no cross-file calls found")
        return
    print(
        f"{db.stem:10} {n:3} snippets | callee in the answer at {budget} tokens: "
        f"as text {found['text'] / n:.2f}, as place {found['place'] / n:.2f} | mean tokens "
        f"{statistics.mean(tokens['text'] or [0]):.0f} / {statistics.mean(tokens['place'] or [0]):.0f}"
    )
    return


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, action="append", default=[])
    parser.add_argument("--per-index", type=int, default=60)
    parser.add_argument("--budget", type=int, default=1000)
    args = parser.parse_args()
    for db in args.db or DEFAULT:
        if not db.is_file():
            print(f"{db}: no such index (run benchmarks/quality/run.py first)")
            continue
        measure(db, args.per_index, args.budget)


if __name__ == "__main__":
    main()
