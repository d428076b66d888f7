"""The code bases of the quality harness, at pinned versions, and how to get their CPGs.

Sources come from the package index (wheels: their Python files, no build;
or sdists, which carry the tests) or the npm registry (``npm pack``);
treeloom builds each CPG with source text. Everything lands in
benchmarks/.work/quality (git-ignored).

The first eight code bases are the harness's from before issue 16 (group
``base``); the ones after them (group ``cases``) carry the kinds of
question issue 16 names: how a part works, current code beside legacy
copies, product code beside its tests, module-level names
(``case_queries.py``). They keep the paths of their archive (``include``
picks the folders), so a test is under ``tests/`` as in the repository.
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
    archive: str = "wheel"  # pypi only: "wheel" (the package's files) or "sdist" (with its tests)
    include: tuple[str, ...] = ()  # only these paths of package_dir are unpacked (all when empty)
    docstrings: bool = True  # generated withheld-docstring queries (a second index: base corpora only)
    group: str = "base"  # "base": the harness before issue 16; "cases": issue 16's code bases


CORPORA = (
    Corpus("requests", "pypi", "requests==2.32.3", "requests"),
    Corpus("click", "pypi", "click==8.1.7", "click"),
    Corpus("flask", "pypi", "flask==3.0.3", "flask"),
    Corpus("attrs", "pypi", "attrs==24.2.0", "attr"),
    Corpus("httpx", "pypi", "httpx==0.27.2", "httpx"),
    Corpus("commander", "npm", "commander@12.1.0", "package/lib", "javascript"),
    Corpus("express", "npm", "express@4.21.2", "package/lib", "javascript"),
    Corpus("zod", "npm", "zod@3.25.76", "package/src/v4/core", "typescript"),
    # Issue 16's cases. starlette and jinja2 from their sdists, tests included: how a part
    # works, product over tests, module-level names. pydantic 2 keeps its 1.x API in
    # pydantic/v1/ and old 2.x API in pydantic/deprecated/ beside the current code.
    Corpus(
        "starlette",
        "pypi",
        "starlette==0.46.2",
        "starlette-0.46.2",
        archive="sdist",
        include=("starlette", "tests"),
        docstrings=False,
        group="cases",
    ),
    Corpus(
        "jinja2",
        "pypi",
        "jinja2==3.1.6",
        "jinja2-3.1.6",
        archive="sdist",
        include=("src", "tests"),
        docstrings=False,
        group="cases",
    ),
    Corpus(
        "pydantic", "pypi", "pydantic==2.11.7", ".", include=("pydantic",), docstrings=False, group="cases"
    ),
)


def source_dir(corpus: Corpus) -> Path:
    """The unpacked package folder, fetched once."""
    target = WORK / "src" / corpus.name
    package = target / corpus.package_dir
    if package.is_dir() and any(package.iterdir()):
        return package
    download = WORK / "dl"
    download.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if corpus.registry == "pypi":
        sdist = corpus.archive == "sdist"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary" if sdist else "--only-binary",
                ":all:",
                "-d",
                str(download),
                corpus.spec,
            ],
            check=True,
        )
        stem, version = corpus.spec.lower().split("==")
        # requests-2.32.3-py3-none-any.whl, jinja2-3.1.6.tar.gz (a wheel spells - as _)
        prefix = f"{stem}-{version}".replace("_", "-") + ("." if sdist else "-")
        found = sorted(download.glob("*.tar.gz" if sdist else "*.whl"))
        archive = next(p for p in found if p.name.lower().replace("_", "-").startswith(prefix))
        if sdist:
            with tarfile.open(archive) as tar:
                tar.extractall(target, members=_included(corpus, tar.getmembers()), filter="data")
        else:
            with zipfile.ZipFile(archive) as wheel:
                names = wheel.namelist()
                wheel.extractall(target, [n for n in names if _keeps(corpus, n)])
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


def _keeps(corpus: Corpus, name: str) -> bool:
    """Whether an archive member lies in one of the corpus's included paths (all when none)."""
    if not corpus.include:
        return True
    root = corpus.package_dir.strip("/").removeprefix(".").strip("/")
    inner = name[len(root) + 1 :] if root and name.startswith(root + "/") else ("" if root else name)
    return any(inner == p or inner.startswith(p + "/") for p in corpus.include)


def _included(corpus: Corpus, members: list[tarfile.TarInfo]) -> list[tarfile.TarInfo]:
    return [m for m in members if _keeps(corpus, m.name)]


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
