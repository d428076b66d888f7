"""One writer per index: an OS file lock beside the index file."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from greploom.core.errors import IndexBusyError


@contextlib.contextmanager
def index_lock(db_path: Path) -> Iterator[None]:
    """An exclusive, non-blocking lock beside the index; released when the process dies."""
    lock_path = db_path.with_name(db_path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a+") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: SQLite's own locking still applies
            yield
            return
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise IndexBusyError(
                f"the index {db_path} is busy: another `greploom index` run is writing it; "
                "wait for it to finish"
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def run_in_progress(db_path: Path) -> bool:
    """Whether an index run holds the index's lock now (without taking it for longer than a look).

    A shared, non-blocking lock on a read-only handle: it fails while a run
    holds the exclusive one, and a run never waits for it.
    """
    lock_path = db_path.with_name(db_path.name + ".lock")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: unknown, say nothing runs
        return False
    try:
        with lock_path.open("r") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    except OSError:
        return False
    return False
