#!/usr/bin/env python3
"""Edits of a real code base, each indexed twice: the partial run next to a full one. Prints figures.

    python benchmarks/partial_vs_full.py [--label numpy ...]

For each code base bench_freshness.py left in benchmarks/.work/fresh/ (its
tree, index and parts), the tree, index and parts are copied to a scratch
folder and a series of edits is applied to the copy, one after the other:

- a function appended to a mid-sized file (bench_freshness's edit);
- a function called from other files renamed where it is defined, then back;
- a line inserted at the top of that file (every definition after it moves);
- a new file calling it, then that file's import changed, then the file deleted;
- a body edited in the file most others import from.

After each, ``greploom index`` runs on the copy (which keeps the rows of the
files the edit cannot change: greploom.shell.dir_rows) and, on a second copy
of the same index, a run that decides every row (its kept facts dropped).
Every column of every row, the modules' names and the warnings are compared;
the line says how many files the partial run read, both times, and whether
the two indexes are identical. Nothing is asserted; the last line says
whether all were.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import apsw

from greploom.shell.config import GrepLoomConfig
from greploom.shell.cpg_parts import parts_path
from greploom.shell.indexing import run_index

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "fresh"
SCRATCH = HERE / ".work" / "partial"
_COLUMNS = (
    "key, node_id, kind, name, qualname, file, line, end_line, summary, content_hash, source, structure"
)


def copy_index(db: Path, to: Path) -> None:
    """An index and its parts, with their WAL files, as they are."""
    for src, dst in ((db, to), (parts_path(db), parts_path(to))):
        for suffix in ("", "-wal", "-shm"):
            here, there = Path(str(src) + suffix), Path(str(dst) + suffix)
            if here.exists():
                shutil.copyfile(here, there)
            else:
                there.unlink(missing_ok=True)


def stored(db: Path) -> dict[str, object]:
    """Every column of every row, the modules' names, the run's warnings and count."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = {r[0]: r for r in conn.execute(f"SELECT {_COLUMNS} FROM nodes")}
        names = sorted(conn.execute("SELECT key, name, line FROM module_names"))
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    finally:
        conn.close()
    return {
        "rows": rows,
        "names": names,
        "warnings": meta.get("run_warnings"),
        "count": meta.get("node_count"),
    }


def differences(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """What differs between two stored indexes, one line each (at most a few)."""
    out: list[str] = []
    rows_a, rows_b = a["rows"], b["rows"]
    assert isinstance(rows_a, dict) and isinstance(rows_b, dict)
    for key in sorted(rows_a.keys() ^ rows_b.keys())[:3]:
        out.append(f"only in {'partial' if key in rows_a else 'full'}: {key}")
    for key in sorted(rows_a.keys() & rows_b.keys()):
        if rows_a[key] != rows_b[key]:
            cols = [
                c for c, x, y in zip(_COLUMNS.split(", "), rows_a[key], rows_b[key], strict=True) if x != y
            ]
            out.append(f"{key}: {', '.join(cols)}")
    out += [f"{part} differ" for part in ("names", "warnings", "count") if a[part] != b[part]]
    return out


def called_elsewhere(db: Path, tree: Path) -> tuple[Path, str] | None:
    """A Python function some other file calls, and its file: what a rename must unlink."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        query = "SELECT file, name, structure FROM nodes WHERE kind = 'function' AND file LIKE '%.py'"
        found = conn.execute(query + " ORDER BY key").fetchall()
    finally:
        conn.close()
    for file, name, structure in found:
        callers = json.loads(structure).get("callers", [])
        text = (tree / file).read_text(errors="replace") if (tree / file).is_file() else ""
        if any(c["file"] != file for c in callers) and text.count(f"def {name}(") == 1:
            return tree / file, name
    return None


def most_called(db: Path, tree: Path) -> Path:
    """The Python file whose definitions the most calls of other files invoke."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        found = conn.execute("SELECT file, structure FROM nodes WHERE file LIKE '%.py'").fetchall()
    finally:
        conn.close()
    counts: dict[str, int] = {}
    for file, structure in found:
        callers = json.loads(structure).get("callers", [])
        counts[file] = counts.get(file, 0) + sum(c["file"] != file for c in callers)
    return tree / max(sorted(counts), key=lambda f: counts[f])


def edits(tree: Path, db: Path) -> list[tuple[str, Callable[[], None]]]:
    files = sorted(tree.rglob("*.py"), key=lambda p: p.stat().st_size)
    middle = files[len(files) // 2]
    target = called_elsewhere(db, tree)
    steps: list[tuple[str, Callable[[], None]]] = [
        (
            f"append to {middle.relative_to(tree)}",
            lambda: _append(middle, "\n\ndef greploom_added(v):\n    return v\n"),
        ),
    ]
    if target is not None:
        where, name = target
        module = "." + where.stem  # a sibling, imported as such: a tree may be a package itself
        new = where.parent / "greploom_new_caller.py"
        steps += [
            (
                f"rename {name} in {where.relative_to(tree)}",
                lambda: _edit(where, f"def {name}(", f"def {name}_x("),
            ),
            ("rename it back", lambda: _edit(where, f"def {name}_x(", f"def {name}(")),
            ("insert a first line there", lambda: where.write_text("# moved\n" + where.read_text())),
            (
                "add a file calling it",
                lambda: new.write_text(f"from {module} import {name}\n\n\ndef use():\n    return {name}()\n"),
            ),
            (
                "change its import",
                lambda: _edit(new, f"from {module} import {name}", f"from {module} import {name} as other"),
            ),
            ("delete that file", new.unlink),
        ]
    central = most_called(db, tree)
    steps.append(
        (
            f"edit a body in {central.relative_to(tree)}",
            lambda: _append(central, "\n\ndef greploom_central():\n    return 2\n"),
        )
    )
    return steps


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if old not in text:
        raise SystemExit(f"{path}: {old!r} not found")
    path.write_text(text.replace(old, new, 1))


def measure(label: str) -> bool:
    tree, db = WORK / "trees" / label, WORK / f"{label}.db"
    if not tree.is_dir() or not db.is_file():
        print(f"{label}: no tree or index in {WORK}; run benchmarks/bench_freshness.py first")
        return True
    scratch = SCRATCH / label
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    work_tree, mine, full = scratch / "tree", scratch / "partial.db", scratch / "full.db"
    shutil.copytree(tree, work_tree)
    copy_index(db, mine)
    config = GrepLoomConfig(db_path=mine)
    run_index(work_tree, config)  # the copy as its index says: bring it up to date first
    print(f"{label}: {work_tree}")
    same = True
    for what, edit in edits(work_tree, mine):
        copy_index(mine, full)
        conn = apsw.Connection(str(parts_path(full)))
        conn.execute("DELETE FROM meta WHERE key = 'facts_run'")  # the full run: no facts to keep
        conn.close()
        edit()
        started = time.perf_counter()
        partial = run_index(work_tree, config)
        partial_s = time.perf_counter() - started
        started = time.perf_counter()
        whole = run_index(work_tree, GrepLoomConfig(db_path=full))
        full_s = time.perf_counter() - started
        diffs = differences(stored(mine), stored(full))
        same = same and not diffs and whole.reread is None
        read = "all files" if partial.reread is None else f"{partial.reread} files"
        verdict = "identical" if not diffs else f"{len(diffs)} differences: " + "; ".join(diffs[:3])
        print(f"  {what:58.58s} partial {partial_s:5.2f} s ({read:>9}), full {full_s:5.2f} s: {verdict}")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--label", action="append", default=[], help="a code base in .work/fresh/trees")
    args = parser.parse_args()
    labels = args.label or ["requests", "numpy"]
    results = [measure(label) for label in labels]  # every code base, even after a difference
    same = all(results)
    print("every partial index is identical to the full one" if same else "SOME INDEXES DIFFER")
    sys.exit(0)


if __name__ == "__main__":
    main()
