"""Progress of an index run on stderr: a live bar per stage on a terminal, one plain line per stage otherwise.

An index run reports its stages through :class:`greploom.shell.ports.Progress`
(``stage, done, total``): building the CPG, reading it, embedding, writing
the index. On a terminal each stage gets a rich progress bar with its count,
rate, elapsed time and ETA; rich comes with cyclopts, and is named as a
dependency because greploom imports it itself. Without a terminal (an agent,
CI, a log file) each stage is one line when it starts, with how much it
has to do, so a long run is never silent until its end and a log holds no
carriage returns.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

STAGES = ("building the CPG", "reading the CPG", "embedding", "writing the index")  # in run order
UNITS = {"building the CPG": "files", "embedding": "definitions", "writing the index": "definitions"}


def is_stage_line(line: str) -> bool:
    """Whether a line of stderr is a plain progress line (what a log reader may skip)."""
    return any(line == f"greploom: {s}" or line.startswith(f"greploom: {s}: ") for s in STAGES)


class PlainProgress:
    """One line per stage, when the stage starts."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._seen: set[str] = set()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage in self._seen:
            return
        self._seen.add(stage)
        unit = UNITS.get(stage)
        if unit and total == 1:
            unit = unit.removesuffix("s")  # 1 file, 1 definition
        what = f"{stage}: {total:,} {unit}" if unit else stage
        if done and unit:
            what += f" ({done:,} done before)"
        print(f"greploom: {what}", file=self._stream or sys.stderr, flush=True)

    def close(self) -> None:
        """Nothing to finish."""


class RateColumn(ProgressColumn):
    """Units per second (rich's own speed column counts bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "", style="progress.data.speed")


class BarProgress:
    """A rich progress bar per stage: count, rate, elapsed time and ETA."""

    def __init__(self) -> None:
        self._bars = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._tasks: dict[str, Any] = {}
        self._started = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self._started:
            self._bars.start()
            self._started = True
        task = self._tasks.get(stage)
        if task is None:
            task = self._tasks[stage] = self._bars.add_task(stage, total=max(total, 1))
        self._bars.update(task, completed=done if total else 1, total=max(total, 1))

    def close(self) -> None:
        """Stop redrawing (the finished bars stay on screen)."""
        if self._started:
            self._bars.stop()


def progress_for(stream: TextIO) -> PlainProgress | BarProgress:
    """The reporter for ``stream``: bars on a terminal, plain lines otherwise."""
    return BarProgress() if stream.isatty() else PlainProgress(stream)
