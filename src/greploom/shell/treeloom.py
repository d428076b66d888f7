"""Building a CPG from a source directory with treeloom (an optional extra).

treeloom is given the files greploom's own walk chose (greploom.shell.source_files:
ignore rules applied, unfit files left out), by name, through its public
``CPGBuilder`` API in a child process, never its directory walk. That walk
leaves out every file with a ``venv`` (or ``node_modules``, ``.git``, ...)
component anywhere in its *absolute* path, so ``treeloom build
/home/u/venv/proj`` finds nothing; and per-file ``--exclude`` patterns cost it
files x patterns matches. Paths are stored relative to the directory, as
``treeloom build DIR`` stores them.

Each file is built on its own (greploom.shell.cpg_parts says why), in worker
processes that share the CPUs: on numpy's 763 files, 2 workers built every
part in 34 s on a busy machine (one process alone: 40 s, most of it parsing),
where one whole-tree build took minutes and 4.4 GB, since treeloom's
whole-graph phases grow faster than the code base.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import IO

import attrs

from greploom.core.errors import CpgError, GreploomError

# One worker: argv the directory and the edge kinds kept; stdin the files, relative,
# NUL-separated. Of the literals (38% of numpy's nodes, with their text) only those greploom
# can read are kept: each scope's first body node (a docstring is read from it:
# greploom.core.summary) and the ends of a data flow between two scopes (it may join two
# definitions: greploom.core.context's data sources); a flow within one scope stays within
# one definition, which data sources leave out, so such flows are not kept either (the
# only use greploom has for data_flows_to edges). Each file is built alone (one CPGBuilder,
# the language registry shared) and answered as a frame: two big-endian uint32 lengths, a
# JSON header (file, error, warnings) and the part, zlib-compressed compact JSON. A file
# treeloom cannot build is answered with its error, not the end of the run.
_WORKER = """
import json, os, struct, sys, warnings, zlib
from pathlib import Path
from treeloom import CPGBuilder
from treeloom.lang.registry import LanguageRegistry
root = Path(sys.argv[1]).resolve()
kinds = set(sys.argv[2].split(","))
names = [os.fsdecode(n) for n in sys.stdin.buffer.read().split(b"\\0") if n]
registry = LanguageRegistry.default()
out = sys.stdout.buffer
for name in names:
    error, part = "", b""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            builder = CPGBuilder(registry=registry, include_source=True, relative_root=root)
            raw = builder.add_file(root / name).build().to_dict()
            nodes, first = raw["nodes"], {}
            kind_of = {n["id"]: n for n in nodes}
            for n in nodes:  # each scope's first body node: a docstring when it is a string literal
                up = kind_of.get(n.get("scope"))
                line = (n.get("location") or {}).get("line", 0)
                if up is None or n["kind"] == "parameter":
                    continue
                if up["kind"] != "module" and line <= (up.get("location") or {}).get("line", 0):
                    continue
                at = (line, (n.get("location") or {}).get("column", 0))
                if n["scope"] not in first or at < first[n["scope"]][0]:
                    first[n["scope"]] = (at, n["id"])
            keep = {i for _, i in first.values()}
            edges = []
            for e in raw["edges"]:  # a flow between two scopes may join two definitions: kept
                if e["kind"] not in kinds:
                    continue
                a, b = kind_of.get(e["source"]), kind_of.get(e["target"])
                if e["kind"] == "data_flows_to" and a is not None and b is not None:
                    if a.get("scope") == b.get("scope"):
                        continue
                    keep.update((e["source"], e["target"]))
                edges.append(e)
            dropped = {n["id"] for n in nodes if n["kind"] == "literal" and n["id"] not in keep}
            raw = {
                "nodes": [n for n in nodes if n["id"] not in dropped],
                "edges": [e for e in edges if e["source"] not in dropped and e["target"] not in dropped],
            }
            part = zlib.compress(json.dumps(raw, separators=(",", ":"), default=str).encode(), 1)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    head = json.dumps({"file": name, "error": error, "warnings": [str(w.message) for w in said]}).encode()
    out.write(struct.pack(">II", len(head), len(part)) + head + part)
    out.flush()
"""
MAX_WORKERS = 4  # parsing is CPU-bound and each worker holds one file's graph at a time


@attrs.frozen
class Built:
    """One file's answer from a worker: its compressed part, or why treeloom could not build it."""

    file: str
    part: bytes
    error: str
    warnings: tuple[str, ...]


def build_parts(
    source_dir: Path,
    files: Sequence[str],
    edge_kinds: Iterable[str],
    done: Callable[[Built], None],
    workers: int | None = None,
) -> None:
    """Build the CPG part of each of ``files`` (relative to ``source_dir``) with treeloom.

    Files are spread over worker processes by size (the largest first, each to
    the least loaded worker); ``done`` is called in this thread for every file
    as its worker answers. A worker that dies raises :class:`CpgError` after
    the files it answered were handed on, so a later run resumes from them.
    """
    if find_spec("treeloom") is None:
        raise GreploomError(
            "treeloom is not installed, so a source directory cannot be indexed; "
            "run `pip install 'treeloom[languages]'` (greploom's `treeloom` extra) or pass a CPG JSON file"
        )
    if not files:
        return
    count = max(1, min(workers or _cpus(), MAX_WORKERS, len(files)))
    shares = _spread(source_dir, files, count)
    kinds = ",".join(sorted(edge_kinds))
    answers: queue.Queue[Built | BaseException | None] = queue.Queue()
    with contextlib.ExitStack() as stack:
        procs = [_start(stack, source_dir, kinds, share, answers) for share in shares]
        try:
            ended = 0
            while ended < len(procs):
                answer = answers.get()
                if answer is None:
                    ended += 1
                elif isinstance(answer, BaseException):
                    raise answer
                else:
                    done(answer)
        finally:
            for proc, _errors in procs:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
        for proc, errors in procs:
            if proc.returncode != 0:
                errors.seek(0)
                lines = errors.read().decode("utf-8", errors="replace").strip().splitlines()
                raise CpgError(
                    f"treeloom could not build a CPG of {source_dir}: {lines[-1] if lines else 'no output'}"
                )


def _start(
    stack: contextlib.ExitStack,
    source_dir: Path,
    kinds: str,
    share: Sequence[str],
    answers: queue.Queue[Built | BaseException | None],
) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
    """A worker building ``share``, its frames read into ``answers``; its stderr kept for its error."""
    errors = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 - the stack closes it
    cmd = [sys.executable, "-c", _WORKER, str(source_dir), kinds]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
    threading.Thread(target=_read_frames, args=(proc, answers), daemon=True).start()
    assert proc.stdin is not None
    proc.stdin.write(b"\0".join(os.fsencode(name) for name in share))
    proc.stdin.close()
    return proc, errors


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _spread(root: Path, files: Sequence[str], count: int) -> list[list[str]]:
    """``files`` in ``count`` shares of about equal bytes (largest first, to the lightest share)."""

    def size(name: str) -> int:
        try:
            return (root / name).stat().st_size
        except OSError:
            return 0

    shares: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * count
    for name in sorted(files, key=size, reverse=True):
        lightest = loads.index(min(loads))
        shares[lightest].append(name)
        loads[lightest] += size(name) + 1
    return [share for share in shares if share]


def _read_frames(proc: subprocess.Popen[bytes], answers: queue.Queue[Built | BaseException | None]) -> None:
    """Hand on each frame a worker writes, then None at its end."""
    stream = proc.stdout
    assert stream is not None
    try:
        while head := stream.read(8):
            if len(head) < 8:
                break
            head_len, part_len = struct.unpack(">II", head)
            header = json.loads(stream.read(head_len))
            part = stream.read(part_len)
            if len(part) < part_len:
                break
            said = tuple(str(w) for w in header.get("warnings", ()))
            answers.put(Built(str(header["file"]), part, str(header.get("error", "")), said))
    except (OSError, ValueError, KeyError) as exc:  # a worker that wrote garbage: its end
        answers.put(CpgError(f"treeloom's worker answered badly: {exc}"))
    finally:
        stream.close()
        answers.put(None)
