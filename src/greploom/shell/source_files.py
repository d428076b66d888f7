"""Which files under a source directory hold code, which of them no parser should be given,
and a fingerprint of them all: the file-system side of greploom.shell.sources."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from greploom.core.spans import FAMILIES
from greploom.shell.outline import OUTLINED

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger files are generated or bundled code
MAX_LINE_CHARS = 5_000  # a line this long is minified or generated: not outlined, not shown
# Files a code base keeps code in: what treeloom parses, what tree-sitter outlines
# here, and the languages neither parses (indexed as a module holding the text).
_OTHER_CODE = ".rb .php .cs .kt .kts .swift .scala .lua .dart .ex .exs .erl .hs .ml .clj .vue .svelte .m .mm"
CODE_SUFFIXES = frozenset(
    (*FAMILIES, *OUTLINED, ".py", ".pyi", *_OTHER_CODE.split(), ".zig", ".jl", ".pl", ".r")
)
TREELOOM_SUFFIXES = frozenset((*FAMILIES, ".py", ".pyi"))  # what treeloom parses
EXCLUDED_DIRS = frozenset(("__pycache__", "node_modules", ".git", "venv", ".venv", ".greploom"))


def code_files(root: Path) -> list[str]:
    """Files under ``root`` a code base keeps code in, relative, POSIX, sorted.

    The folders treeloom leaves out (``node_modules``, ``.git``, virtual
    environments, ``__pycache__``) and greploom's own ``.greploom`` are left out.
    """
    found: list[str] = []
    base = root.resolve()
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIRS)
        rel = Path(folder).relative_to(base)
        for name in files:
            if os.path.splitext(name)[1].lower() in CODE_SUFFIXES:
                found.append((rel / name).as_posix())
    return sorted(found)


def suffix(file: str) -> str:
    """A file's extension, lower-cased: ``a/B.TS`` -> ``.ts``."""
    return os.path.splitext(file)[1].lower()


def sources_digest(root: Path | None) -> str:
    """A fingerprint of the code files under ``root`` (names, sizes, modification times).

    An index run whose CPG is unchanged can still have work when a file
    changed that treeloom skipped or records no source for: this tells.
    """
    if root is None:
        return ""
    digest = hashlib.sha256()
    base = root.resolve()
    for name in code_files(base):
        try:
            info = (base / name).stat()
        except OSError:
            continue
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "backslashreplace"))
    return digest.hexdigest()


def unusual_file(text: str, raw: bytes) -> str | None:
    """Why a file is not outlined nor shown: binary, or minified and generated."""
    if b"\0" in raw[:8192]:
        return "binary"
    if any(len(line) > MAX_LINE_CHARS for line in text.splitlines()):
        return f"minified: a line over {MAX_LINE_CHARS} characters"
    return None


def read_file(base: Path, name: str) -> tuple[bytes | None, str | None]:
    """A file's bytes, or None and why not (None, None: not there or not readable)."""
    try:
        path = (base / name).resolve()
        if not path.is_relative_to(base) or not path.is_file():
            return None, None
        if path.stat().st_size > MAX_FILE_BYTES:
            return None, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB"
        return path.read_bytes(), None
    except (OSError, ValueError):  # ValueError: a NUL byte in a hand-written CPG's file name
        return None, None


def unfit_files(root: Path) -> list[tuple[str, str]]:
    """Code files under ``root`` no parser should be given: (file, why).

    Binary files, files larger than ``MAX_FILE_BYTES`` and minified or
    generated ones (a line over ``MAX_LINE_CHARS``): treeloom spends about 15 s
    per MB of minified JavaScript and makes a node of every function in it.
    """
    base = root.resolve()
    out: list[tuple[str, str]] = []
    for name in code_files(base):
        raw, why = read_file(base, name)
        if why is None and raw is not None:
            why = unusual_file(raw.decode("utf-8", errors="replace"), raw)
        if why is not None:
            out.append((name, why))
    return out
