"""Operating-system and SQLite failures told by their real reason, in one line each.

A read-only mount, a folder without write permission, a full disk, ``ulimit
-f``, a failing device and a damaged index file are conditions of the machine,
not bugs: each becomes a :class:`~greploom.core.errors.GreploomError` leaf with
its own exit code (``PermissionDeniedError`` 6, ``ReadOnlyError`` 7,
``DiskFullError`` 8, ``DiskIOError`` 9, ``CorruptIndexError`` 4) and a message
that says what to do. SQLite reports most of them as its own codes; the errno
it saw (``Connection.system_errno``) or a look at the path tells them apart.

Every use case runs inside :func:`storage_faults`, so no such failure reaches
the user as an internal error, and the adapters below it need not repeat the
mapping.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import apsw

from greploom.core.errors import (
    CorruptIndexError,
    DiskFullError,
    DiskIOError,
    GreploomError,
    PermissionDeniedError,
    ReadOnlyError,
    StoreError,
)

_PERMISSION = frozenset({errno.EACCES, errno.EPERM})
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
UNCHANGED = "the previous index is unchanged"


def _read_only_mount(path: Path) -> bool:
    """Whether the nearest existing folder of ``path`` lies on a read-only file system."""
    for candidate in (path, *path.parents):
        try:
            return bool(os.statvfs(candidate).f_flag & os.ST_RDONLY)
        except OSError:
            continue
    return False


def _writable(path: Path) -> bool:
    """Whether this process may write ``path`` (or create it in its folder)."""
    target = path if path.exists() else path.parent
    return os.access(target, os.W_OK)


def by_errno(code: int | None, path: Path, doing: str, detail: str = "") -> GreploomError:
    """The error for an OS error number met while ``doing`` something to ``path``."""
    reason = f" ({detail})" if detail else ""
    if code == errno.EROFS or (code in _PERMISSION and _read_only_mount(path)):
        return ReadOnlyError(
            f"cannot {doing} {path}: the file system is read-only; put the index on a writable disk "
            "with --db (queries and status work on a read-only index)"
        )
    if code in _PERMISSION:
        return PermissionDeniedError(
            f"cannot {doing} {path}: permission denied; check the owner and mode of the file and its folder"
        )
    if code in _FULL:
        limit = "the file-size limit (ulimit -f)" if code == errno.EFBIG else "no space left on the device"
        return DiskFullError(f"cannot {doing} {path}: {limit}; free some space and run again")
    if code in (errno.EISDIR, errno.ENOTDIR):
        return StoreError(
            f"cannot {doing} {path}: a directory stands where a file must be (or the reverse); "
            "remove it or choose another --db"
        )
    if code == errno.ENOENT:
        return StoreError(f"cannot {doing} {path}: no such file or directory")
    return DiskIOError(f"cannot {doing} {path}: input/output error{reason}; check the disk and the mount")


def damaged_index(path: Path, detail: str, source: str = "PATH") -> CorruptIndexError:
    """The one message for a damaged index: what SQLite saw, and the command that rebuilds it."""
    return CorruptIndexError(
        f"the index {path} is damaged ({detail[:120]}); rebuild it with "
        f"`greploom index {source} --db {path} --force` (`greploom check` says more)"
    )


def from_os_error(exc: OSError, path: Path, doing: str) -> GreploomError:
    """The error for an ``OSError``; its own file name wins over ``path`` when it has one."""
    named = Path(os.fsdecode(exc.filename)) if exc.filename else path
    return by_errno(exc.errno, named, doing, exc.strerror or "")


def from_sqlite_error(exc: apsw.Error, path: Path, doing: str, os_errno: int = 0) -> GreploomError | None:
    """The error for an SQLite failure that is the machine's, not greploom's (None: a bug)."""
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return damaged_index(path, str(exc))
    if isinstance(exc, apsw.FullError):
        return by_errno(os_errno if os_errno in _FULL else errno.ENOSPC, path, doing)
    if isinstance(exc, apsw.ReadOnlyError | apsw.PermissionsError):
        if _read_only_mount(path):
            return by_errno(errno.EROFS, path, doing)
        if not _writable(path):
            return by_errno(errno.EACCES, path, doing)
        return ReadOnlyError(f"cannot {doing} {path}: SQLite opened it read-only ({exc})")
    if isinstance(exc, apsw.CantOpenError | apsw.IOError):
        if os_errno:
            return by_errno(os_errno, path, doing, os.strerror(os_errno))
        if _read_only_mount(path) and isinstance(exc, apsw.CantOpenError):
            return by_errno(errno.EROFS, path, doing)
        if isinstance(exc, apsw.CantOpenError) and not os.access(path.parent, os.W_OK | os.X_OK):
            return by_errno(errno.EACCES, path, doing)
        return DiskIOError(f"cannot {doing} {path}: {exc}; check the disk and the mount")
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return StoreError(f"the index {path} is busy (another writer); try again in a moment")
    return None


@contextlib.contextmanager
def storage_faults(
    path: Path, doing: str, probe: Callable[[], Sequence[str]] | None = None
) -> Iterator[None]:
    """Translate OS and SQLite failures raised inside into their greploom errors.

    ``probe`` checks the file (``IndexStore.quick_check``) when SQLite or an
    extension fails in a way that names no cause (sqlite-vec reports a damaged
    page as "blob read error"): problems found make it a damaged index, none
    leave it the bug it is.
    """
    try:
        yield
    except GreploomError:
        raise
    except apsw.Error as exc:
        translated = from_sqlite_error(exc, path, doing, _errno_of(exc))
        if translated is None and probe is not None:
            try:
                problems = list(probe())
            except apsw.Error as again:
                problems = [str(again)]
            if problems:
                translated = damaged_index(path, problems[0])
        if translated is None:
            raise
        raise translated from exc
    except OSError as exc:
        raise from_os_error(exc, path, doing) from exc


def _errno_of(exc: apsw.Error) -> int:
    """The OS error number SQLite saw, when the exception carries it (set by the store)."""
    code = getattr(exc, "greploom_errno", 0)
    return code if isinstance(code, int) else 0
