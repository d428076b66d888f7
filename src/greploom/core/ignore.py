"""Which files under a source directory are left out of an index, and why.

Three kinds of rule decide, in this order:

1. ``--exclude`` patterns (the index run's own, relative to the source
   directory): always win;
2. ``.gitignore`` and ``.greploomignore`` files, as git reads ``.gitignore``:
   each applies to its own folder's subtree, a deeper file's rule wins over a
   shallower one's, the last matching line of a file wins, and at one level
   ``.greploomignore`` wins over ``.gitignore``. A ``!`` line re-includes what
   a rule above left out, and also what rule 3 would leave out
   (``!vendor/`` in ``.greploomignore`` indexes vendored code);
3. vendored and built trees (``VENDORED_DIRS``, ``VENDORED_FILES``), unless
   the run includes them.

The patterns are git's (``gitignore(5)``), matched by pathspec, the library
git-style tools use. Paths are POSIX, relative to the source directory; a
folder is asked with a trailing ``/`` and, when it is left out, nothing under
it is asked (git cannot re-include a file inside an ignored folder either).
Pure: the shell reads the files and walks the folders (greploom.shell.source_files).

Laws (tests/properties/test_ignore.py): a path no rule names is kept; an
``--exclude`` match is left out whatever the files say; a deeper file's rule
wins over a shallower one's; a ``!`` rule keeps a vendored path.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping, Sequence

import attrs
from pathspec import GitIgnoreSpec

from greploom.core.errors import UsageError

GITIGNORE = ".gitignore"
GREPLOOMIGNORE = ".greploomignore"
IGNORE_FILES = (GITIGNORE, GREPLOOMIGNORE)  # at one level, the later wins
# Skipped unless a run includes vendored code: other people's code and build outputs,
# folders by name (at any depth) and minified bundles by their file names.
VENDORED_DIRS = ("vendor", "third_party", "node_modules", "dist", "build")
VENDORED_FILES = ("*.min.js", "*.min.mjs", "*.min.cjs", "*.bundle.js")
# A folder of these names holding an ``__init__.py`` is a Python package so named
# (pypa/build's ``src/build``, pip's ``operations/build``), not a build output.
OUTPUT_DIRS = frozenset(("build", "dist"))


class Reason(enum.Enum):
    """Why a file is left out, as the run's note counts it."""

    GITIGNORE = "by .gitignore"
    GREPLOOMIGNORE = "by .greploomignore"
    EXCLUDE = "by --exclude"
    VENDORED = "vendored or built"


_VENDORED = {  # by a folder's or a file's own name: a folder kept is not judged again by its files
    True: GitIgnoreSpec.from_lines(f"{d}/" for d in VENDORED_DIRS),
    False: GitIgnoreSpec.from_lines(VENDORED_FILES),
}
_BY_FILE = {GITIGNORE: Reason.GITIGNORE, GREPLOOMIGNORE: Reason.GREPLOOMIGNORE}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()


def _spec(lines: Iterable[str]) -> tuple[GitIgnoreSpec, tuple[str, ...]]:
    """The spec of the valid lines, and the lines that are not patterns (git skips them too)."""
    good: list[str] = []
    bad: list[str] = []
    for line in lines:
        try:
            GitIgnoreSpec.from_lines([line])
        except ValueError:
            bad.append(line)
        else:
            good.append(line)
    return GitIgnoreSpec.from_lines(good), tuple(bad)


@attrs.frozen
class IgnoreRules:
    """The rules one walk of a source directory applies.

    ``files`` maps a folder under the directory (``""`` for the directory
    itself, ``src``, ``src/web``) to its ignore files' specs, in reading order.
    """

    exclude: GitIgnoreSpec
    vendored: bool  # whether vendored and built trees are left out
    files: Mapping[str, tuple[tuple[Reason, GitIgnoreSpec], ...]] = attrs.field(factory=dict)
    fingerprint: str = ""  # of everything that decides: patterns, flags, ignore files read

    @classmethod
    def create(cls, exclude: Sequence[str] = (), *, include_vendored: bool = False) -> IgnoreRules:
        """The rules before any ignore file is read; a bad ``--exclude`` pattern is a UsageError."""
        for pattern in exclude:
            if not pattern.strip() or pattern.lstrip().startswith("#"):
                raise UsageError(
                    f"--exclude {pattern!r} is not a pattern: give a glob such as 'gen/' or '*.pb.go'"
                )
            if pattern.startswith("!"):
                raise UsageError(
                    f"--exclude {pattern!r} would re-include, and --exclude only leaves files out: "
                    "put `!` lines in a .greploomignore"
                )
        spec, bad = _spec(exclude)
        if bad:
            raise UsageError(f"--exclude {bad[0]!r} is not a valid gitignore pattern")
        seed = "\0".join([str(include_vendored), *VENDORED_DIRS, *VENDORED_FILES, "\1", *exclude])
        return cls(
            exclude=spec,
            vendored=not include_vendored,
            fingerprint=_sha256(seed),
        )

    def with_file(self, where: str, name: str, text: str) -> IgnoreRules:
        """These rules and one more ignore file: ``name`` (``.gitignore`` or ``.greploomignore``)
        in the folder ``where`` (``""``: the source directory itself)."""
        spec, _bad = _spec(text.splitlines())
        files = dict(self.files)
        files[where] = (*files.get(where, ()), (_BY_FILE[name], spec))
        seed = "\0".join([self.fingerprint, where, name, text])
        return attrs.evolve(
            self,
            files=files,
            fingerprint=_sha256(seed),
        )

    def reason(self, path: str, *, is_dir: bool) -> Reason | None:
        """Why ``path`` (relative to the source directory) is left out, or None: it is kept."""
        asked = path + "/" if is_dir else path
        if self.exclude.match_file(asked):
            return Reason.EXCLUDE
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):  # the deepest folder's files first
            specs = self.files.get("/".join(parts[:depth]))
            if not specs:
                continue
            below = "/".join(parts[depth:]) + ("/" if is_dir else "")
            for why, spec in reversed(specs):
                hit = spec.check_file(below).include
                if hit is not None:
                    return why if hit else None  # a `!` rule keeps it, vendored or not
        if self.vendored and _VENDORED[is_dir].match_file(parts[-1] + ("/" if is_dir else "")):
            return Reason.VENDORED
        return None


def left_out_counts(counts: Mapping[Reason, int], vendored: Sequence[str], limit: int = 3) -> str:
    """What each rule left out: ``3 by .gitignore, 40 vendored or built (node_modules/, dist/;
    --include-vendored indexes them)``, the vendored or built ones named (the first ``limit``)."""
    parts = []
    for why in Reason:
        n = counts.get(why, 0)
        if not n:
            continue
        part = f"{n} {why.value}"
        if why is Reason.VENDORED:
            named = ", ".join(vendored[:limit]) + (
                f" +{len(vendored) - limit} more" if len(vendored) > limit else ""
            )
            part += (
                f" ({named}; --include-vendored indexes them)"
                if named
                else " (--include-vendored indexes them)"
            )
        parts.append(part)
    return ", ".join(parts)


def left_out_line(counts: Mapping[Reason, int], vendored: Sequence[str]) -> str | None:
    """The run's one line on what the rules left out, or None when they left out nothing:
    ``left out 43 files: 3 by .gitignore, 40 vendored or built (...)``."""
    total = sum(counts.values())
    if not total:
        return None
    return f"left out {total} {'file' if total == 1 else 'files'}: {left_out_counts(counts, vendored)}"
