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

Two more narrow a run down, for a collection (greploom.core.collections) or
``--include``: ``within``, the folders (or files) of a collection of several
paths, outside which nothing is walked or counted; and ``include``
patterns, which a file the rules above keep must match one of (folders are
always entered: ``*.py`` may match below any of them). A file left out by
both is counted by the rules above.

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
    NOT_INCLUDED = "not matching include"
    OUTSIDE = "outside the collection's paths"  # not part of the collection: never counted


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
    include: GitIgnoreSpec | None = None  # a kept file must match one of these (None: no such rule)
    within: tuple[str, ...] = ()  # the folders or files the walk is kept to (none: all of it)

    @classmethod
    def create(
        cls,
        exclude: Sequence[str] = (),
        *,
        include_vendored: bool = False,
        include: Sequence[str] = (),
        within: Sequence[str] = (),
    ) -> IgnoreRules:
        """The rules before any ignore file is read; a bad ``--exclude`` or ``--include``
        pattern is a UsageError."""
        spec = _patterns("--exclude", exclude)
        seed = "\0".join([str(include_vendored), *VENDORED_DIRS, *VENDORED_FILES, "\1", *exclude])
        if include or within:  # only then: the fingerprints of existing indexes stay the same
            seed = "\0".join([seed, "\2", *include, "\3", *within])
        return cls(
            exclude=spec,
            vendored=not include_vendored,
            fingerprint=_sha256(seed),
            include=_patterns("--include", include) if include else None,
            within=tuple(w.strip("/") for w in within),
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
        if self.within and not _within(path, self.within, is_dir=is_dir):
            return Reason.OUTSIDE
        why = self._left_out(path, is_dir=is_dir)
        if why is None and not is_dir and self.include is not None and not self.include.match_file(path):
            return Reason.NOT_INCLUDED
        return why

    def _left_out(self, path: str, *, is_dir: bool) -> Reason | None:
        """Why the exclude patterns, the ignore files or the vendored rule leave ``path`` out."""
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


def check_patterns(label: str, patterns: Sequence[str], *, keeps: bool) -> None:
    """A UsageError naming ``label`` (a config file's key) for a pattern that is not one;
    ``keeps``: the patterns keep the files they match (include), else leave them out."""
    _patterns(label, patterns, keeps=keeps)


def _patterns(flag: str, patterns: Sequence[str], *, keeps: bool | None = None) -> GitIgnoreSpec:
    """The spec of ``--exclude`` or ``--include`` patterns; a UsageError for one that is not a pattern."""
    keeping = flag == "--include" if keeps is None else keeps
    for pattern in patterns:
        if not pattern.strip() or pattern.lstrip().startswith("#"):
            raise UsageError(f"{flag} {pattern!r} is not a pattern: give a glob such as 'gen/' or '*.pb.go'")
        if pattern.startswith("!"):
            raise UsageError(
                f"{flag} {pattern!r} would re-include, and {flag} only "
                f"{'keeps files matching it' if keeping else 'leaves files out'}: "
                "put `!` lines in a .greploomignore"
            )
    spec, bad = _spec(patterns)
    if bad:
        raise UsageError(f"{flag} {bad[0]!r} is not a valid gitignore pattern")
    return spec


def _within(path: str, within: Sequence[str], *, is_dir: bool) -> bool:
    """Whether ``path`` is one of ``within``, under one, or (a folder) on the way to one."""
    for place in within:
        if path == place or path.startswith(place + "/"):
            return True
        if is_dir and place.startswith(path + "/"):
            return True
    return False


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
