"""Building a CPG from a source directory with treeloom (an optional extra)."""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

from greploom.core.errors import CpgError, GreploomError


def build_cpg_with_treeloom(source_dir: Path, out: Path) -> Path:
    """Run ``treeloom build --include-source`` on a source directory."""
    if find_spec("treeloom") is None:
        raise GreploomError(
            "treeloom is not installed, so a source directory cannot be indexed; "
            "run `pip install 'treeloom[languages]'` (greploom's `treeloom` extra) or pass a CPG JSON file"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    runner = "import sys; from treeloom.cli.main import main; sys.exit(main())"
    cmd = [sys.executable, "-c", runner, "build", str(source_dir), "-o", str(out), "--quiet"]
    done = subprocess.run([*cmd, "--include-source"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise CpgError(
            f"treeloom could not build a CPG of {source_dir}: {lines[-1] if lines else 'no output'}"
        )
    return out
