"""Running the CLI in-process (fast) and as a subprocess (as users do)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs

from greploom.shell.cli import main

GREPLOOM = Path(sys.executable).parent / "greploom"


def said(err: str) -> list[str]:
    """The lines of stderr that say something of the outcome: less warnings and the plain
    progress lines of an index run's stages (greploom.shell.progress)."""
    from greploom.shell.progress import is_stage_line

    lines = err.splitlines()
    return [line for line in lines if not line.startswith("greploom: warning:") and not is_stage_line(line)]


@attrs.frozen
class Run:
    """What a CLI run printed and returned."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def cli(*args: str | Path, env: dict[str, str] | None = None) -> Run:
    """Run ``greploom ARGS`` in this process, capturing output."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in args])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Run(code, out.getvalue(), err.getvalue())


def cli_process(
    *args: str | Path, cwd: Path | None = None, timeout: float = 120, stdin: str | None = None
) -> Run:
    """Run the installed ``greploom`` executable as a subprocess (``stdin``: its input)."""
    done = subprocess.run(
        [str(GREPLOOM), *(str(a) for a in args)],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)
