"""Building a CPG from a source directory with treeloom (an optional extra).

treeloom is given the files greploom's own walk chose (greploom.shell.source_files:
ignore rules applied, unfit files left out), by name, through its public
``CPGBuilder`` API in a child process, never its directory walk. That walk
leaves out every file with a ``venv`` (or ``node_modules``, ``.git``, ...)
component anywhere in its *absolute* path, so ``treeloom build
/home/u/venv/proj`` finds nothing; and per-file ``--exclude`` patterns cost it
files x patterns matches. Paths are stored relative to the directory, as
``treeloom build DIR`` stores them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from greploom.core.errors import CpgError, GreploomError
from greploom.shell.source_files import select_sources, treeloom_files

# argv: the directory, the output file; stdin: the files, relative, NUL-separated.
# Sorted as paths, the order `treeloom build DIR` parses them in.
_RUNNER = """
import os, sys
from pathlib import Path
from treeloom import CPGBuilder, to_json
root = Path(sys.argv[1]).resolve()
names = [os.fsdecode(n) for n in sys.stdin.buffer.read().split(b"\\0") if n]
builder = CPGBuilder(include_source=True, relative_root=root)
for path in sorted(root / name for name in names):
    builder.add_file(path)
Path(sys.argv[2]).write_text(to_json(builder.build()), encoding="utf-8")
"""


def build_cpg_with_treeloom(
    source_dir: Path, out: Path, files: Sequence[str] | None = None
) -> tuple[Path, tuple[str, ...]]:
    """Build the CPG (with source text) of ``files`` under a source directory into ``out``.

    ``files`` are relative to the directory; None: the ones its walk selects
    (greploom.shell.source_files.select_sources, unfit files left out).
    treeloom drops a file it cannot parse whole and ignores languages it has
    no grammar for; greploom.shell.sources indexes those files itself, and
    its warnings name them.
    """
    if find_spec("treeloom") is None:
        raise GreploomError(
            "treeloom is not installed, so a source directory cannot be indexed; "
            "run `pip install 'treeloom[languages]'` (greploom's `treeloom` extra) or pass a CPG JSON file"
        )
    if files is None:
        files = treeloom_files(select_sources(source_dir))
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-W", "always::UserWarning", "-c", _RUNNER, str(source_dir), str(out)]
    listing = b"\0".join(os.fsencode(name) for name in files)
    done = subprocess.run(cmd, input=listing, capture_output=True, check=False)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", errors="replace")
        lines = said.strip().splitlines()
        raise CpgError(
            f"treeloom could not build a CPG of {source_dir}: {lines[-1] if lines else 'no output'}"
        )
    return out, ()
