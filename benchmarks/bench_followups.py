#!/usr/bin/env python3
"""Follow-ups in a session (issue 18 item 1): does a session help the second question? Prints figures only.

    python benchmarks/bench_followups.py [--budget 2000] [--top 5] [--only requests] [-v]
    python benchmarks/bench_followups.py --check      # only check the pairs' keys against the indexes

The pairs are hand-written, from reading the code, in
benchmarks/followups/{requests,flask}.json: a list of
``{"first", "second", "answers", "kind"}``. A ``followup`` pair's second
question is anaphoric and only makes sense after the first ("where is it
called from?", "what does that return when the body is empty?"); a ``pivot``
pair's second question stands alone on another topic. ``answers``: the stable
keys of the definitions that answer the second question.

Each pair is asked two ways, on the harness's index of its code base
(benchmarks/.work/quality/index/NAME.db, built by benchmarks/quality/run.py),
with one ``QueryEngine(GrepLoomConfig(db_path=db), one_shot=True)`` per index:

- without session: ``engine.query(second, budget=B)``;
- with session: ``engine.query(first, budget=B, session=sid)`` then
  ``engine.query(second, budget=B, session=sid)``, a fresh ``sid`` per pair
  (``bench-<run>-<i>``: the run token keeps a rerun within a session's expiry
  from finding the memory of the previous run).

Of the second answer it measures:

- hit: an answer key is among the first ``--top`` blocks whose relationship
  is ``hit`` (``answer.nodes``, in order), and its rank there;
- in text: an answer key's block is in the packed text (``key: K`` printed);
- tokens: the envelope's ``tokens_used`` and the text's (``answer.packing``);
- shown earlier: the blocks the answer gave as a one-line "shown earlier"
  reference (``metadata["session"]["shown_earlier"]``), with session only;
- tokens saved by not resending: for each of those, its block's tokens whole
  (its node looked up alone with its code, as the first answer sent it) less
  its tokens as the reference sent.

It reports, per code base and overall: the follow-up hit rate without vs with
session, the same for pivots (a session should not harm them), the mean tokens
of the second answer, and the blocks shown earlier. When this greploom's
``QueryEngine.query`` takes no ``session`` keyword it says so and measures
only the without-session side.

Every key of every pair is checked against the index's ``nodes`` table before
anything is measured; a missing key, a bad kind or an empty answer list stops
the run with the list of them (exit status 2).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from greploom.core.errors import GreploomError
from greploom.core.render import SourceMode
from greploom.shell.config import GrepLoomConfig
from greploom.shell.querying import QueryAnswer, QueryEngine
from greploom.shell.session_answer import SHOWN_EARLIER

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "followups"
INDEXES = HERE / ".work" / "quality" / "index"
NAMES = ("requests", "flask")
KINDS = ("followup", "pivot")


def load_pairs(name: str) -> list[dict[str, Any]]:
    """The pairs of one code base, as stored."""
    pairs: list[dict[str, Any]] = json.loads((PAIRS / f"{name}.json").read_text())
    return pairs


def index_keys(db: Path) -> set[str]:
    """Every stable key in the index, read-only."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {row[0] for row in con.execute("SELECT key FROM nodes")}
    finally:
        con.close()


def problems(name: str, pairs: Sequence[dict[str, Any]], keys: set[str]) -> list[str]:
    """What is wrong with the pairs of one code base: missing keys, bad fields."""
    out = []
    for i, pair in enumerate(pairs):
        where = f"{name}.json #{i}"
        for field in ("first", "second"):
            if not isinstance(pair.get(field), str) or not pair[field].strip():
                out.append(f"{where}: no {field!r} question")
        if pair.get("kind") not in KINDS:
            out.append(f"{where}: kind {pair.get('kind')!r} is none of {KINDS}")
        answers = pair.get("answers")
        if not isinstance(answers, list) or not answers:
            out.append(f"{where}: no answers")
            continue
        out.extend(f"{where}: key not in the index: {k}" for k in answers if k not in keys)
    return out


def check(names: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The pairs of each code base, every key checked; stops the run on any problem."""
    loaded, bad = {}, []
    for name in names:
        db = INDEXES / f"{name}.db"
        if not db.exists():
            bad.append(f"{name}: no index at {db} (build it with benchmarks/quality/run.py)")
            continue
        pairs = load_pairs(name)
        bad.extend(problems(name, pairs, index_keys(db)))
        loaded[name] = pairs
    if bad:
        print(f"{len(bad)} problem(s) in benchmarks/followups:", file=sys.stderr)
        for line in bad:
            print(f"  {line}", file=sys.stderr)
        raise SystemExit(2)
    return loaded


def has_sessions() -> bool:
    """Whether this greploom's QueryEngine.query takes a ``session`` keyword."""
    return "session" in inspect.signature(QueryEngine.query).parameters


def hit_keys(answer: QueryAnswer) -> list[str]:
    """The keys of the answer's hit blocks (relationship ``hit``), in order."""
    return [n.ref.key for n in answer.nodes if getattr(n.relationship, "value", n.relationship) == "hit"]


def hit_rank(answer: QueryAnswer, wanted: Sequence[str], top: int) -> int | None:
    """The 1-based rank of the first answer key among the answer's first ``top`` hit blocks."""
    for rank, key in enumerate(hit_keys(answer)[:top], 1):
        if key in wanted:
            return rank
    return None


def measure(answer: QueryAnswer, wanted: Sequence[str], top: int) -> dict[str, Any]:
    """What the benchmark reads of a second answer."""
    meta = answer.envelope["metadata"]
    return {
        "rank": hit_rank(answer, wanted, top),
        "in_text": any(f"key: {k}" in answer.text for k in wanted),
        "tokens": int(meta["tokens_used"]),
        "text_tokens": int(answer.packing.tokens_used),
        "shown_earlier": int((meta.get("session") or {}).get("shown_earlier", 0)),
        "hits": hit_keys(answer)[:top],
    }


def saved_tokens(engine: QueryEngine, answer: QueryAnswer, budget: int) -> int:
    """The tokens the answer's "shown earlier" references saved: each such block's cost whole (its
    node looked up alone, with its code, as it was sent the first time) less its cost as sent."""
    saved = 0
    for packed in answer.packing.blocks:
        if SHOWN_EARLIER not in packed.text:
            continue
        key = packed.block.key
        whole = engine.query(None, [key], budget=budget, depth=0, include_source=SourceMode.ALL)
        full = next((b.tokens for b in whole.packing.blocks if b.block.key == key), packed.tokens)
        saved += max(0, full - packed.tokens)
    return saved


def failed(error: Exception) -> dict[str, Any]:
    """A query greploom refused: a miss, with its error kept."""
    return {
        "rank": None,
        "in_text": False,
        "tokens": 0,
        "text_tokens": 0,
        "shown_earlier": 0,
        "hits": [],
        "error": f"{type(error).__name__}: {error}",
    }


def run_index(
    name: str,
    pairs: Sequence[dict[str, Any]],
    *,
    budget: int,
    top: int,
    sessions: bool,
    run: str,
    verbose: bool,
) -> list[dict[str, Any]]:
    """Every pair of one code base, asked without (and, when there are sessions, with) a session."""
    db = INDEXES / f"{name}.db"
    engine = QueryEngine(GrepLoomConfig(db_path=db), one_shot=True)
    rows = []
    try:
        for i, pair in enumerate(pairs):
            wanted = pair["answers"]
            row: dict[str, Any] = {"name": name, "i": i, "kind": pair["kind"], "pair": pair}
            try:
                # The hits' code, as `greploom query` and search_code show it by default.
                alone = engine.query(pair["second"], budget=budget, include_source=SourceMode.HITS)
                row["without"] = measure(alone, wanted, top)
            except GreploomError as e:
                row["without"] = failed(e)
            if sessions:
                sid = f"bench-{run}-{name}-{i}"
                ask: Any = engine.query  # takes ``session`` where this greploom has sessions
                try:
                    ask(pair["first"], budget=budget, session=sid, include_source=SourceMode.HITS)
                    second = ask(pair["second"], budget=budget, session=sid, include_source=SourceMode.HITS)
                    row["with"] = measure(second, wanted, top)
                    row["with"]["saved"] = saved_tokens(engine, second, budget)
                except GreploomError as e:
                    row["with"] = failed(e)
            rows.append(row)
            if verbose:
                print_row(row)
    finally:
        engine.close()
    return rows


def print_row(row: dict[str, Any]) -> None:
    """One pair: its kind, the questions, and where the answer ranked each way."""
    pair = row["pair"]

    def side(m: dict[str, Any]) -> str:
        rank = f"hit@{m['rank']}" if m["rank"] else "miss"
        text = "in text" if m["in_text"] else "not in text"
        extra = f", {m['shown_earlier']} shown earlier" if m["shown_earlier"] else ""
        err = f" [{m['error']}]" if "error" in m else ""
        return f"{rank}, {text}, {m['tokens']} tok{extra}{err}"

    print(f"  {row['name']} #{row['i']:<2} {row['kind']:<8} {pair['first']!r} -> {pair['second']!r}")
    print(f"      without: {side(row['without'])}   hits: {', '.join(row['without']['hits'])}")
    if "with" in row:
        print(f"      with:    {side(row['with'])}   hits: {', '.join(row['with']['hits'])}")
    print(f"      wanted:  {', '.join(pair['answers'])}")


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}% ({part}/{whole})" if whole else "    -"


def summary(label: str, rows: Sequence[dict[str, Any]], top: int, sessions: bool) -> None:
    """The figures of a set of pairs: hit rates per kind, tokens, blocks shown earlier."""
    print(f"\n{label}: {len(rows)} pairs")
    sides = ("without", "with") if sessions else ("without",)
    for kind in KINDS:
        of_kind = [r for r in rows if r["kind"] == kind]
        if not of_kind:
            continue
        for s in sides:
            hits = sum(1 for r in of_kind if r[s]["rank"] is not None)
            texts = sum(1 for r in of_kind if r[s]["in_text"])
            ranks = [r[s]["rank"] for r in of_kind if r[s]["rank"] is not None]
            mrr = sum(1 / k for k in ranks) / len(of_kind)
            print(
                f"  {kind:<8} {s + ' session':<15} hit@{top} {pct(hits, len(of_kind))}"
                f"   in text {pct(texts, len(of_kind))}   MRR@{top} {mrr:.3f}"
            )
        if sessions:
            a = sum(1 for r in of_kind if r["without"]["rank"] is not None)
            b = sum(1 for r in of_kind if r["with"]["rank"] is not None)
            print(f"  {kind:<8} change with session: {100 * (b - a) / len(of_kind):+.1f} points (hit@{top})")
    for s in sides:
        tokens = [r[s]["tokens"] for r in rows if "error" not in r[s]]
        text_tokens = [r[s]["text_tokens"] for r in rows if "error" not in r[s]]
        if tokens:
            print(
                f"  second answer {s + ' session':<15} mean tokens: envelope {statistics.mean(tokens):7.1f}"
                f"   text {statistics.mean(text_tokens):7.1f}"
            )
    if sessions:
        shown = [r["with"]["shown_earlier"] for r in rows]
        print(
            f"  shown earlier in the second answer: {sum(shown)} blocks in all, "
            f"{statistics.mean(shown):.2f} per pair, in {sum(1 for n in shown if n)} of {len(rows)} answers"
        )
        saved = [r["with"].get("saved", 0) for r in rows if "error" not in r["with"]]
        with_any = [n for n in saved if n]
        print(
            f"  tokens saved by not resending: {sum(saved)} in all, {statistics.mean(saved):.1f} per pair"
            + (f", {statistics.mean(with_any):.1f} per answer that saved any" if with_any else "")
            + " (the budget they free goes to blocks not sent yet)"
        )
    errors = [(r, s) for r in rows for s in sides if "error" in r[s]]
    for r, s in errors:
        print(f"  error ({r['name']} #{r['i']}, {s}): {r[s]['error']}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--top", type=int, default=5, help="hit blocks an answer key must be among")
    ap.add_argument("--only", choices=NAMES, action="append", help="one code base (repeatable)")
    ap.add_argument("--check", action="store_true", help="only check the pairs' keys against the indexes")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every pair's result")
    args = ap.parse_args(argv)
    names = tuple(args.only) if args.only else NAMES
    loaded = check(names)
    for name, pairs in loaded.items():
        counts = ", ".join(f"{sum(1 for p in pairs if p['kind'] == k)} {k}" for k in KINDS)
        print(f"{name}: {len(pairs)} pairs ({counts}), every key in {INDEXES / (name + '.db')}")
    if args.check:
        return
    sessions = has_sessions()
    if not sessions:
        print("sessions not available in this greploom")
    run = f"{os.getpid()}-{int(time.time())}"
    print(f"budget {args.budget}, hit = an answer key among the first {args.top} hit blocks")
    every: list[dict[str, Any]] = []
    for name, pairs in loaded.items():
        t0 = time.perf_counter()
        rows = run_index(
            name, pairs, budget=args.budget, top=args.top, sessions=sessions, run=run, verbose=args.verbose
        )
        summary(f"{name} ({time.perf_counter() - t0:.1f} s)", rows, args.top, sessions)
        every.extend(rows)
    if len(loaded) > 1:
        summary("overall", every, args.top, sessions)


if __name__ == "__main__":
    main()
