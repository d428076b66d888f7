"""Freshness: whether a file changed since the index read it, judged from what the shell observes.

An index run records each source file's size, modification time and
sha256 (:class:`FileStamp`). At query time the shell looks at the files the
answer's blocks come from, and :func:`judge` decides from size and time
first, as ``make`` and git do: the size differs, or the file is gone, means
changed; both equal means unchanged; the same size with another time (a
touch, a checkout, an editor's save of the same bytes) is not known until
the content is hashed, and :func:`settle` decides that. A block from a
changed file is stale: its lines are the indexed ones, not the file's now.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import attrs

from greploom.core.expand import ExpandedNode


@attrs.frozen
class FileStamp:
    """What an index run saw of one file."""

    size: int
    mtime_ns: int
    sha256: str


class Verdict(str, enum.Enum):
    """What size and time alone say of a file."""

    FRESH = "fresh"
    STALE = "stale"
    UNSURE = "unsure"  # same size, another time: the content decides


def judge(recorded: FileStamp, size: int | None, mtime_ns: int | None) -> Verdict:
    """The verdict on a file the index recorded as ``recorded``, now ``size`` and ``mtime_ns``.

    ``size`` None: the file is gone (or unreadable), which is a change.
    """
    if size is None or size != recorded.size:
        return Verdict.STALE
    if mtime_ns == recorded.mtime_ns:
        return Verdict.FRESH
    return Verdict.UNSURE


def settle(recorded: FileStamp, sha256: str | None) -> bool:
    """Whether an unsure file changed: its content's hash now (None: unreadable) against the index's."""
    return sha256 != recorded.sha256


def mark_stale(nodes: Iterable[ExpandedNode], stale_files: frozenset[str]) -> tuple[ExpandedNode, ...]:
    """The nodes, those whose file is in ``stale_files`` flagged stale; the rest as they were."""
    return tuple(attrs.evolve(n, stale=True) if n.ref.file in stale_files else n for n in nodes)
