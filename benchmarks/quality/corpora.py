"""The code bases of the quality harness, at pinned versions, and how to get their CPGs.

Sources come from the package index (wheels: their Python files, no build)
or the npm registry (``npm pack``); treeloom builds each CPG with source text.
Everything lands in benchmarks/.work/quality (git-ignored).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
WORK = HERE.parent / ".work" / "quality"
BIN = Path(sys.executable).parent


@attrs.frozen
class Corpus:
    """One code base: where it comes from and which folder is the package."""

    name: str
    registry: str  # "pypi" or "npm"
    spec: str  # pip requirement or npm package@version
    package_dir: str  # inside the unpacked archive
    language: str = "python"  # "python", "javascript" or "typescript": the report's per-language rows


CORPORA = (
    Corpus("requests", "pypi", "requests==2.32.3", "requests"),
    Corpus("click", "pypi", "click==8.1.7", "click"),
    Corpus("flask", "pypi", "flask==3.0.3", "flask"),
    Corpus("attrs", "pypi", "attrs==24.2.0", "attr"),
    Corpus("httpx", "pypi", "httpx==0.27.2", "httpx"),
    Corpus("commander", "npm", "commander@12.1.0", "package/lib", "javascript"),
    Corpus("express", "npm", "express@4.21.2", "package/lib", "javascript"),
    Corpus("zod", "npm", "zod@3.25.76", "package/src/v4/core", "typescript"),
)


def source_dir(corpus: Corpus) -> Path:
    """The unpacked package folder, fetched once."""
    target = WORK / "src" / corpus.name
    package = target / corpus.package_dir
    if package.is_dir():
        return package
    download = WORK / "dl"
    download.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if corpus.registry == "pypi":
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary",
                ":all:",
                "-d",
                str(download),
                corpus.spec,
            ],
            check=True,
        )
        stem = corpus.spec.split("==")[0].lower()
        wheel = next(p for p in download.glob("*.whl") if p.name.lower().startswith(stem + "-"))
        zipfile.ZipFile(wheel).extractall(target)
    else:
        done = subprocess.run(
            ["npm", "pack", corpus.spec, "--silent", "--pack-destination", str(download)],
            check=True,
            capture_output=True,
            text=True,
        )
        with tarfile.open(download / done.stdout.strip().splitlines()[-1]) as tar:
            tar.extractall(target, filter="data")
    return package


def cpg_path(corpus: Corpus) -> Path:
    """The corpus's CPG (built with treeloom --include-source on first use)."""
    out = WORK / "cpg" / f"{corpus.name}.json"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                str(BIN / "treeloom"),
                "build",
                str(source_dir(corpus)),
                "-o",
                str(out),
                "--quiet",
                "--include-source",
            ],
            check=True,
        )
    return out
