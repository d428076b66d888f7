"""Building a CPG from a source directory with treeloom (an optional extra)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from greploom.core.errors import CpgError, GreploomError


def build_cpg_with_treeloom(
    source_dir: Path, out: Path, exclude: Sequence[str] = ()
) -> tuple[Path, tuple[str, ...]]:
    """Run ``treeloom build --include-source`` on a source directory.

    treeloom drops a file it cannot parse whole and ignores languages it has
    no grammar for; greploom.shell.sources finds those files under the
    directory and indexes them itself, and its warnings name them.
    ``exclude`` names files (relative to the directory) treeloom is not given.
    """
    if find_spec("treeloom") is None:
        raise GreploomError(
            "treeloom is not installed, so a source directory cannot be indexed; "
            "run `pip install 'treeloom[languages]'` (greploom's `treeloom` extra) or pass a CPG JSON file"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    runner = "import sys; from treeloom.cli.main import main; sys.exit(main())"
    cmd = [
        sys.executable,
        "-W",
        "always::UserWarning",
        "-c",
        runner,
        "build",
        str(source_dir),
        "-o",
        str(out),
    ]
    # fnmatch patterns: a name's own [, * and ? are escaped as [[], [*] and [?].
    excludes = [arg for name in exclude for arg in ("--exclude", re.sub(r"([\[*?])", r"[\1]", name))]
    done = subprocess.run([*cmd, "--include-source", *excludes], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise CpgError(
            f"treeloom could not build a CPG of {source_dir}: {lines[-1] if lines else 'no output'}"
        )
    return out, ()
