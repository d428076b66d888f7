"""Which files under a source directory hold code and are to be indexed, which of them no
parser should be given, and a fingerprint of them all: the file-system side of
greploom.shell.sources.

One walk (:func:`select_sources`) decides the file set every part of an index
run sees: treeloom is given exactly these files, greploom's own outline pass
reads the same, and the fingerprint covers them and the rules that chose them.
The rules (greploom.core.ignore): ``--exclude`` patterns, ``.gitignore`` and
``.greploomignore`` files at every level of the directory (each for its own
subtree, as git reads ``.gitignore``; those in folders above it are not read),
and the vendored and built trees skipped by default; the files each left out
are counted.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from greploom.core.doc_files import doc_format
from greploom.core.ignore import IGNORE_FILES, OUTPUT_DIRS, IgnoreRules, Reason, left_out_line
from greploom.core.secrets import secret_file
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
# Never source, never counted: caches, git's own folder, virtual environments, greploom's index.
EXCLUDED_DIRS = frozenset(("__pycache__", ".git", "venv", ".venv", ".greploom"))


@attrs.frozen
class SourceSet:
    """The code files of a source directory an index run sees, and what its rules left out."""

    root: Path  # resolved
    files: tuple[str, ...]  # relative, POSIX, sorted
    left_out: tuple[tuple[Reason, int], ...] = ()  # files each rule left out (none counted 0)
    vendored: tuple[str, ...] = ()  # the vendored or built folders and files left out, as named
    rules: str = ""  # fingerprint of the rules that chose the files
    # Doc and config files the same rules kept (greploom.core.doc_files), relative, sorted;
    # and how many secret files (.env, keys: greploom.core.secrets) were left unread.
    docs: tuple[str, ...] = ()
    secret_files: int = 0

    def note(self) -> str | None:
        """One line on what was left out (None: nothing)."""
        return left_out_line(dict(self.left_out), self.vendored)


def select_sources(
    root: Path,
    exclude: Sequence[str] = (),
    *,
    include_vendored: bool = False,
    include: Sequence[str] = (),
    within: Sequence[str] = (),
) -> SourceSet:
    """The code files under ``root`` an index run gives treeloom and reads itself, by one walk.

    Folders a rule leaves out are not entered except to count their code files.
    A bad ``--exclude`` or ``include`` pattern raises UsageError; an ignore file that
    cannot be read is skipped, as git skips it. ``include``: a file kept must match
    one of these patterns; ``within``: a collection's paths under ``root``, outside
    which nothing is walked or counted (greploom.core.ignore).
    """
    base = root.resolve()
    rules = IgnoreRules.create(exclude, include_vendored=include_vendored, include=include, within=within)
    found: list[str] = []
    counts: dict[Reason, int] = {}
    vendored: list[str] = []
    docs: list[str] = []
    secrets = 0

    def leave_out(why: Reason, count: int, shown: str) -> None:
        if count:
            counts[why] = counts.get(why, 0) + count
            if why is Reason.VENDORED:
                vendored.append(shown)

    for folder, dirs, files in os.walk(base):
        rel = Path(folder).relative_to(base).as_posix()
        prefix = "" if rel == "." else rel + "/"
        rules = _with_ignore_files(rules, Path(folder), prefix.rstrip("/"), files)
        kept: list[str] = []
        for name in sorted(dirs):
            if name in EXCLUDED_DIRS:
                continue
            why = rules.reason(prefix + name, is_dir=True)
            if why is Reason.OUTSIDE:
                continue  # not the collection's: not walked, not counted
            if (
                why is Reason.VENDORED
                and name in OUTPUT_DIRS
                and os.path.isfile(Path(folder, name, "__init__.py"))
            ):
                why = None  # a Python package named build or dist, not an output
            if why is None:
                kept.append(name)
            else:
                leave_out(why, _count_code_files(Path(folder, name)), prefix + name + "/")
        dirs[:] = kept
        for name in files:
            if suffix(name) not in CODE_SUFFIXES:
                if secret_file(name):
                    secrets += 1
                elif doc_format(name) is not None and rules.reason(prefix + name, is_dir=False) is None:
                    docs.append(prefix + name)
                continue
            why = rules.reason(prefix + name, is_dir=False)
            if why is None:
                found.append(prefix + name)
            elif why is not Reason.OUTSIDE:
                leave_out(why, 1, prefix + name)
    return SourceSet(
        base,
        tuple(sorted(found)),
        tuple((why, counts[why]) for why in Reason if why in counts),
        tuple(vendored),
        rules.fingerprint,
        tuple(sorted(docs)),
        secrets,
    )


def _with_ignore_files(rules: IgnoreRules, folder: Path, where: str, present: Sequence[str]) -> IgnoreRules:
    for name in IGNORE_FILES:
        if name not in present:
            continue
        try:
            text = (folder / name).read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            continue  # none there, or not readable: git goes on without it too
        rules = rules.with_file(where, name, text)
    return rules


def _count_code_files(folder: Path) -> int:
    """How many code files a folder left out holds (what indexing it would have read)."""
    count = 0
    for _here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRS]
        count += sum(suffix(name) in CODE_SUFFIXES for name in files)
    return count


def code_files(root: Path) -> list[str]:
    """The code files under ``root`` the default rules keep, relative, POSIX, sorted
    (``.gitignore``, ``.greploomignore``, vendored and built trees left out)."""
    return list(select_sources(root).files)


def suffix(file: str) -> str:
    """A file's extension, lower-cased: ``a/B.TS`` -> ``.ts``."""
    return os.path.splitext(file)[1].lower()


def sources_digest(selection: SourceSet | None) -> str:
    """A fingerprint of the code files an index run sees (names, sizes, modification times)
    and of the rules that chose them.

    An index run whose CPG is unchanged can still have work when a file
    changed that treeloom skipped or records no source for, or when an ignore
    file changed: this tells.
    """
    if selection is None:
        return ""
    digest = hashlib.sha256(selection.rules.encode())
    for name in (*selection.files, *selection.docs):
        try:
            info = (selection.root / name).stat()
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


def treeloom_files(selection: SourceSet, known: Callable[[str], bool] | None = None) -> list[str]:
    """The selected files treeloom is given: those it parses, less binary, too large and
    minified or generated ones (a line over ``MAX_LINE_CHARS``): treeloom spends about
    15 s per MB of minified JavaScript and makes a node of every function in it.
    The outline pass reads the others and its warnings name them. ``known``: files known
    to be such (their content was found so before), taken without reading them again."""
    out: list[str] = []
    for name in selection.files:
        if suffix(name) not in TREELOOM_SUFFIXES:
            continue
        if known is not None and known(name):
            out.append(name)
            continue
        raw, why = read_file(selection.root, name)
        if (
            why is None
            and raw is not None
            and unusual_file(raw.decode("utf-8", errors="replace"), raw) is None
        ):
            out.append(name)
    return out
