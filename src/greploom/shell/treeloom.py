"""Building a CPG from a source directory with treeloom (an optional extra)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from importlib.util import find_spec
from pathlib import Path

from greploom.core.errors import CpgError, GreploomError

_UNPARSED = re.compile(r"Parse tree has errors for (.+?), skipping")
# Languages people keep code in that treeloom may not parse; only those its
# registry does not list are reported, so a treeloom that learns one stops the warning.
CODE_EXTENSIONS = frozenset(
    (
        ".rb",
        ".php",
        ".cs",
        ".kt",
        ".kts",
        ".swift",
        ".scala",
        ".lua",
        ".dart",
        ".ex",
        ".exs",
        ".erl",
        ".hs",
        ".ml",
        ".clj",
        ".jsx",
        ".vue",
        ".svelte",
        ".m",
        ".mm",
        ".zig",
        ".jl",
        ".pl",
        ".r",
    )
)
_EXCLUDED_DIRS = frozenset(("__pycache__", "node_modules", ".git", "venv", ".venv"))  # treeloom's


def build_cpg_with_treeloom(source_dir: Path, out: Path) -> tuple[Path, tuple[str, ...]]:
    """Run ``treeloom build --include-source`` on a source directory; also what it left out.

    treeloom drops a file it cannot parse whole, with only a Python warning
    (which ``--quiet`` hides), and ignores languages it has no grammar for:
    both come back as one-line warnings for the index run.
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
    done = subprocess.run([*cmd, "--include-source"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise CpgError(
            f"treeloom could not build a CPG of {source_dir}: {lines[-1] if lines else 'no output'}"
        )
    warnings = []
    unparsed = sorted(set(_UNPARSED.findall(done.stderr)))
    if unparsed:
        shown = ", ".join(unparsed[:5]) + (f" (+{len(unparsed) - 5} more)" if len(unparsed) > 5 else "")
        warnings.append(
            f"treeloom could not parse {_files(len(unparsed))} (a syntax error drops a whole file), "
            f"not indexed: {shown}"
        )
    unsupported = _unsupported_files(source_dir)
    if unsupported:
        counts = ", ".join(f"{n} {ext}" for ext, n in unsupported.most_common())
        warnings.append(
            f"treeloom has no parser for {_files(sum(unsupported.values()))} here, not indexed: {counts}"
        )
    return out, tuple(warnings)


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _unsupported_files(source_dir: Path) -> Counter[str]:
    """Files in languages this treeloom has no grammar for, by extension."""
    try:
        from treeloom.lang.registry import LanguageRegistry

        supported = LanguageRegistry.default().supported_extensions()
    except Exception:  # an unexpected treeloom: say nothing rather than something wrong
        return Counter()
    wanted = CODE_EXTENSIONS - supported
    found: Counter[str] = Counter()
    for _folder, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d not in _EXCLUDED_DIRS]
        for name in files:
            ext = os.path.splitext(name)[1].lower()
            if ext in wanted:
                found[ext] += 1
    return found
