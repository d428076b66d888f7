#!/usr/bin/env python3
"""Set-up and run greploom's two jobs on a fresh machine with only Python 3.10+.

    python3 tasks.py demo   # install, build a CPG of a sample project, index it, query it
    python3 tasks.py test   # install the test extras, run ruff, mypy --strict and pytest

Each creates ``.venv`` beside this file when it is absent and installs the
project into it (editable) with what the job needs. Nothing else is assumed:
no make, no global packages, no network at run time beyond the package index.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def run(*args: str | Path, check: bool = True) -> int:
    """Run a command from the repository root, echoing it first."""
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], cwd=ROOT, check=check).returncode


def ensure_venv(extra: str) -> None:
    """Create .venv if needed and install the project with ``extra``."""
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
        run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PY, "-m", "pip", "install", "--quiet", "-e", f".[{extra}]")


def demo() -> int:
    """The main job end to end, offline: build a CPG, index it, query it."""
    ensure_venv("treeloom")
    db = ROOT / ".greploom" / "demo.db"
    greploom = BIN / "greploom"
    run(greploom, "index", "tests/samples/pyshop", "--db", db)
    run(greploom, "status", "--db", db)
    run(greploom, "query", "where is the retry backoff computed", "--db", db, "--budget", "600")
    return 0


def test() -> int:
    """Lint, type-check and run the whole suite (examples and properties)."""
    ensure_venv("dev")
    run(BIN / "ruff", "check", "src", "tests", "benchmarks", "tasks.py")
    run(BIN / "mypy", "--strict", "src")
    code = run(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *sys.argv[2:], check=False)
    if code == 5:  # pytest: no tests collected. A suite that runs nothing has failed.
        print("pytest collected no tests: treating as a failure", file=sys.stderr)
        return 1
    return code


def main() -> int:
    jobs = {"demo": demo, "test": test}
    if len(sys.argv) < 2 or sys.argv[1] not in jobs:
        print(
            f"usage: python3 {Path(__file__).name} {{{'|'.join(jobs)}}} [pytest args]",
            file=sys.stderr,
        )
        return 2
    try:
        return jobs[sys.argv[1]]()
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
