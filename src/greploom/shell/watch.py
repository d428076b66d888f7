"""Watching a source directory: file events, debounced, then an index run; queries answer throughout.

File events come from watchfiles (the Rust ``notify`` crate: inotify,
FSEvents, ReadDirectoryChangesW), debounced so that a save, a checkout or a
formatter's sweep is one run. Each run is :func:`greploom.shell.indexing.run_index`:
the files it selects decide what is indexed (ignore rules included), the
CPG is rebuilt only when a file it reads changed, and only changed
definitions are embedded again. An index run switches in one transaction,
so a query never sees half a refresh, and a run killed midway leaves the
previous index answering.

What the watcher is doing is kept beside the index in ``INDEX.watch`` (JSON:
pid, changes pending, the last refresh and its outcome), for ``greploom
status``; it is removed when the watcher stops.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from greploom.core.doc_files import doc_format
from greploom.core.errors import GreploomError, IndexBusyError
from greploom.core.secrets import secret_file
from greploom.shell.atomic import write_json
from greploom.shell.config import GrepLoomConfig
from greploom.shell.cpg_parts import parts_path
from greploom.shell.source_files import CODE_SUFFIXES, suffix

WATCH_SUFFIX = ".watch"
DEBOUNCE_MS = 500  # a save, a checkout, a formatter's sweep: one run
IGNORE_FILES = frozenset({".gitignore", ".greploomignore"})  # a change to the rules is a change
BUSY_RETRY_S = 1.0  # how often a refresh looks again at an index another run holds
# Folders no index run reads: version control, caches, environments, build outputs.
SKIPPED_DIRS = frozenset(
    {".greploom", ".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", ".tox", ".venv", "venv", "node_modules", ".hypothesis", ".idea"}
)  # fmt: skip


def state_path(db_path: Path) -> Path:
    """The watcher's state file beside the index."""
    return db_path.with_name(db_path.name + WATCH_SUFFIX)


def read_state(db_path: Path) -> dict[str, Any] | None:
    """The watcher's state, when a watcher that is still alive wrote it."""
    try:
        state = json.loads(state_path(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not _alive(state.get("pid")):
        return None
    return state


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


class WatchStopped(BaseException):
    """SIGTERM during a refresh: the run is abandoned (its switch never happens). A
    BaseException, as KeyboardInterrupt is, so that no handler of errors swallows it."""


class Watcher:
    """Keeps an index of a directory fresh until stopped."""

    def __init__(
        self,
        directory: Path,
        config: GrepLoomConfig,
        *,
        say: Callable[[str], None],
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        self.directory = directory.resolve()
        self.config = config
        self.say = say
        self.debounce_ms = debounce_ms
        self.stop = threading.Event()
        self.refreshing = False
        self._state: dict[str, Any] = {"pid": os.getpid(), "directory": str(self.directory), "pending": 0}
        db = config.db_path.resolve()
        self._index_prefix = str(db)
        self._parts = str(parts_path(db))
        # Vendored trees are read with --include-vendored: then their edits count.
        self._skipped = SKIPPED_DIRS - {"node_modules"} if config.include_vendored else SKIPPED_DIRS

    def run(self) -> None:
        """Index once, then on every debounced batch of changes, until :attr:`stop` is set.

        The file events are watched from before the first run (it gets the first,
        empty, yield): an edit made while that run parses is the next run's.
        """
        import watchfiles

        first = True
        try:
            for changes in watchfiles.watch(
                self.directory,
                watch_filter=self.wants,
                debounce=self.debounce_ms,
                stop_event=self.stop,
                raise_interrupt=False,
                yield_on_timeout=True,
                rust_timeout=200,
            ):
                if first or changes:
                    self._refresh(len(changes))
                    first = False
        finally:
            with contextlib.suppress(OSError):
                state_path(self.config.db_path).unlink()

    def wants(self, change: Any, path: str) -> bool:
        """A change an index run may care about: not the index's own files, not a skipped folder."""
        resolved = os.path.realpath(path)
        if resolved.startswith((self._index_prefix, self._parts)):
            return False  # the index, its WAL, lock, sidecars, and the CPG's parts beside it
        changed = Path(resolved)
        parts = changed.relative_to(self.directory).parts if changed.is_relative_to(self.directory) else ()
        if any(part in self._skipped for part in parts):
            return False
        # Only files a run can read (code, docs and config), and the rules choosing them; a path
        # without a suffix may be a folder (renamed, deleted). Build outputs (.o, .pyc, .log, ...)
        # start no run.
        kind = suffix(changed.name)
        if secret_file(changed.name):
            return False  # never read (greploom.core.secrets): .env has no suffix, like a folder
        return (
            kind in CODE_SUFFIXES
            or doc_format(changed.name) is not None
            or changed.name in IGNORE_FILES
            or not kind
        )

    def _refresh(self, changed: int) -> None:
        from greploom.shell.indexing import run_index

        self.refreshing = True
        self._write(pending=changed, refreshing=True)
        if changed:
            self.say(f"{changed} changes; re-indexing {self.directory}")
        outcome: str
        try:
            result = self._index(run_index)
            outcome = result.summary_line()
            for warning in result.warnings:
                self.say(f"warning: {warning}")
        except GreploomError as exc:  # the previous index keeps answering; say why, keep watching
            outcome = f"error: {exc}"
        except Exception as exc:  # a bug: one line, and the watch goes on (the index is whole)
            outcome = f"internal error: {type(exc).__name__}: {exc} (a bug; please report it)"
        self.say(outcome)
        self.refreshing = False
        now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        self._write(pending=0, refreshing=False, waiting=None, last_refresh=now, last_outcome=outcome)

    def _index(self, run_index: Callable[..., Any]) -> Any:
        """One index run; while another run holds the index (a manual one, MCP ``index_code``),
        wait for it and then run, so no change is dropped."""
        while True:
            try:
                return run_index(self.directory, self.config)
            except IndexBusyError:
                if self.stop.wait(BUSY_RETRY_S):
                    raise
                self._write(waiting="another run holds the index")

    def _write(self, **values: Any) -> None:
        """Update the state file whole (a reader never sees half of it)."""
        self._state.update(values)
        with contextlib.suppress(OSError):  # status then says less; the watch goes on
            write_json(state_path(self.config.db_path), self._state)


def describe(state: dict[str, Any] | None) -> str:
    """The watcher's state as ``greploom status`` prints it."""
    if state is None:
        return "none"
    doing = "re-indexing" if state.get("refreshing") else "watching"
    pending = f", {state.get('pending')} changes pending" if state.get("pending") else ""
    last = state.get("last_refresh")
    outcome = str(state.get("last_outcome") or "")
    failed = f" ({outcome})" if "error" in outcome.split(":", 1)[0] else ""
    return f"pid {state.get('pid')} {doing} {state.get('directory')}{pending}" + (
        f"; last refresh {last}{failed}" if last else ""
    )


def watch_forever(directory: Path, config: GrepLoomConfig, *, debounce_ms: int = DEBOUNCE_MS) -> None:
    """``greploom watch``: a watcher saying what it does on stderr, until Ctrl-C or SIGTERM.

    SIGTERM is a stop, not a kill: the state file is removed and the exit is 0.
    """
    import signal
    import sys

    watcher = Watcher(
        directory,
        config,
        say=lambda line: print(f"greploom: {line}", file=sys.stderr, flush=True),
        debounce_ms=debounce_ms,
    )
    def stop(signum: int, frame: object) -> None:
        watcher.stop.set()
        if watcher.refreshing:
            raise WatchStopped  # a run is atomic: stopping it mid-way leaves the index as it was

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
    with contextlib.suppress(WatchStopped):
        watcher.run()
