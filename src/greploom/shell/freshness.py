"""Freshness on disk: the stamps an index run records of its source files, and the files changed since.

The decisions are :mod:`greploom.core.freshness`'s; this module stats and
hashes. An index run stamps every file it selected before treeloom reads
them, so a file edited during the run is seen as changed (the safe side),
never as unchanged.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from greploom.core.freshness import FileStamp, Verdict, judge, settle

MAX_HASHED = 64 * 1024 * 1024  # a file past this is judged by size and time alone


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()  # (hashlib.file_digest is 3.11+; greploom runs on 3.10)
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def stamp_files(root: Path, names: Iterable[str]) -> dict[str, FileStamp]:
    """Size, modification time and sha256 of each file under ``root`` that can be read."""
    out: dict[str, FileStamp] = {}
    for name in names:
        if not storable(name):
            continue  # a name not UTF-8 on disk: indexed escaped, its freshness unknown
        path = root / name
        try:
            info = path.stat()
        except (OSError, ValueError):
            continue
        digest = _sha256(path) if info.st_size <= MAX_HASHED else ""
        if digest is not None:
            out[name] = FileStamp(info.st_size, info.st_mtime_ns, digest)
    return out


def storable(name: str) -> bool:
    """Whether a file name can be stored as text (it is UTF-8 on disk)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def changed_files(root: Path, recorded: Mapping[str, FileStamp]) -> frozenset[str]:
    """The recorded files under ``root`` that changed since: gone, resized, or rewritten."""
    changed: set[str] = set()
    for name, stamp in recorded.items():
        path = root / name
        size: int | None
        mtime: int | None
        try:
            info = os.stat(path)
            size, mtime = info.st_size, info.st_mtime_ns
        except (OSError, ValueError):
            size = mtime = None
        verdict = judge(stamp, size, mtime)
        if verdict is Verdict.UNSURE:
            unhashed = not stamp.sha256  # too big to hash when stamped: time decides
            if unhashed or settle(stamp, _sha256(path)):
                changed.add(name)
        elif verdict is Verdict.STALE:
            changed.add(name)
    return frozenset(changed)
