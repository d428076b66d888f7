"""Current code over legacy copies: legacy trees read from the code base's own paths.

Libraries keep their old API beside the new one: pydantic's ``v1/`` and
``deprecated/``, a TypeScript library's ``v3/`` beside its ``v4/``,
Kubernetes' ``v1beta1/`` beside ``v1/``. A question asked of such a code
base wants the current code, and the old copy, matching the same words with
the same names, often ranks first. Here:

- A **legacy tree** is a directory of the code base named for it
  (:data:`LEGACY_DIRS`: ``legacy``, ``deprecated``, ``compat``, ...), a
  version directory (``v3``, ``v1beta1``) beside a newer one in the same
  parent, or a first version directory (``v0``, ``v1``) beside code of its
  parent that lies in no version directory (pydantic's ``v1/`` beside the
  rest of ``pydantic/``). Only the given files are read: the candidates'
  and their namesakes' (what the shell cheaply knows).
- A definition in a legacy tree is **demoted** when it has a current
  namesake: a definition of the same name in another file that lies in no
  legacy tree (and that the caller counts as current: product code).
- Every definition in a legacy tree the query does not name is an **old
  copy**, namesake or not (:func:`old_copies`): pydantic's ``v1/`` and
  ``deprecated/`` hold the helpers of their old APIs (``DecoratorBaseModel.
  check_kwargs``), which no current definition is named after and which took
  the first places of "decorator to check one field of a model". The ranking
  demotes them less than a copy beside its current namesake.
- A query that **names a legacy tree** (one of its directories' names:
  ``v1``, ``deprecated``) wants that tree: its candidates are not demoted,
  and their namesakes among the candidates outside the trees the query
  names are, so the copy asked for comes first.

Nothing is removed: :func:`demoted` only says which keys to demote; the
factor is the ranking's (greploom.core.ranking).

Laws (tests/properties/test_legacy.py): a definition outside every legacy
tree is never demoted unless the query names a tree holding its namesake; a
legacy definition without a current namesake is never demoted; one with a
current namesake is, unless the query names its tree; the old copies are
exactly the definitions in a legacy tree the query does not name; an older version
directory is legacy beside a newer one and never the other way round; the
result does not depend on the order of the files or definitions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import attrs

# A question naming one of these asks about old code, deprecated code among it.
ASKS_FOR_OLD = frozenset(
    {
        "deprecated", "deprecation", "deprecate", "deprecates", "legacy", "old", "older", "obsolete",
        "removed", "outdated", "compat", "compatibility", "migration", "migrate", "v1",
    }
)  # fmt: skip
# Directory names that say "old code" in every language's conventions.
LEGACY_DIRS = frozenset({"legacy", "deprecated", "compat", "_compat", "obsolete", "old"})
_VERSION = re.compile(r"v(\d+)(?:[._-]?(alpha|beta|rc)(\d*))?")
_STAGES = {"alpha": 0, "beta": 1, "rc": 2, None: 3}

Version = tuple[int, int, int]


@attrs.frozen
class Definition:
    """A candidate as legacy detection sees it: its key, name and file."""

    key: str
    name: str
    file: str


def version_of(directory: str) -> Version | None:
    """The version a directory's name says (``v3``: (3, 3, 0); ``v1beta2``: (1, 1, 2)), or None."""
    m = _VERSION.fullmatch(directory.lower())
    if m is None:
        return None
    major, stage, number = m.groups()
    return int(major), _STAGES[stage], int(number or 0)


def _directories(file: str) -> list[str]:
    return file.split("/")[:-1]


def suspect(file: str) -> bool:
    """Whether a file may lie in a legacy tree: a directory of its path is legacy by name or a version.

    Cheap, from the path alone; whether a version directory is an old one
    takes the code base's other files (:func:`legacy_trees`).
    """
    return any(d.lower() in LEGACY_DIRS or version_of(d) is not None for d in _directories(file))


def legacy_trees(files: Iterable[str]) -> frozenset[str]:
    """The directories (``pkg/v1``, no trailing slash) of the given files that hold legacy code."""
    trees: set[str] = set()
    versions: dict[str, list[tuple[Version, str]]] = {}
    plain_parents: set[str] = set()  # parents holding code outside any version directory of theirs
    for file in sorted(set(files)):
        parts = file.split("/")
        for i, child in enumerate(parts):
            parent = "/".join(parts[:i])
            version = version_of(child) if i < len(parts) - 1 else None
            if version is None:
                plain_parents.add(parent)
                if i < len(parts) - 1 and child.lower() in LEGACY_DIRS:
                    trees.add("/".join(parts[: i + 1]))
                continue
            versions.setdefault(parent, []).append((version, "/".join(parts[: i + 1])))
    for parent, found in versions.items():
        newest = max(v for v, _ in found)
        for version, directory in found:
            if version < newest or (version[0] <= 1 and parent in plain_parents):
                trees.add(directory)
    return frozenset(trees)


def trees_of(file: str, trees: frozenset[str]) -> tuple[str, ...]:
    """The legacy trees a file lies in, outermost first."""
    parts = _directories(file)
    prefixes = ("/".join(parts[: i + 1]) for i in range(len(parts)))
    return tuple(p for p in prefixes if p in trees)


def asks_for_old(words: frozenset[str]) -> bool:
    """Whether a query's words ask about old code ("deprecated", "legacy", "v1", ...)."""
    return not words.isdisjoint(ASKS_FOR_OLD)


def names_tree(words: frozenset[str], trees: Sequence[str]) -> bool:
    """Whether a query's words name one of these trees: a word is one of their directories' names."""
    return any(t.rsplit("/", 1)[-1].lower() in words for t in trees)


def demoted(
    definitions: Sequence[Definition],
    namesakes: Iterable[tuple[str, str]],
    words: frozenset[str],
    current: Callable[[str], bool] = lambda _file: True,
) -> frozenset[str]:
    """The keys of the definitions to demote: legacy copies with a current namesake, and
    the namesakes of a legacy tree the query names.

    ``namesakes``: ``(name, file)`` of other definitions of the code base with
    the candidates' names (the name lookup's rows); the candidates count too.
    ``current``: whether a file's code can stand as the current namesake
    (the ranking passes product code only: a test double is no current API).
    """
    if not any(suspect(d.file) for d in definitions):
        return frozenset()  # no candidate lies in a legacy tree, nor in one the query could name
    files_by_name: dict[str, set[str]] = {}
    for name, file in (*((d.name, d.file) for d in definitions), *namesakes):
        files_by_name.setdefault(name, set()).add(file)
    trees = legacy_trees(f for files in files_by_name.values() for f in files)
    asked_by_name: dict[str, set[str]] = {}  # candidates' files in a tree the query names
    for d in definitions:
        if names_tree(words, trees_of(d.file, trees)):
            asked_by_name.setdefault(d.name, set()).add(d.file)
    out: set[str] = set()
    for d in definitions:
        files = files_by_name[d.name]
        asked = asked_by_name.get(d.name)
        if asked:
            # The query names a legacy tree holding a candidate of this name: that copy is wanted.
            if d.file not in asked:
                out.add(d.key)
            continue
        if trees_of(d.file, trees) and any(
            f != d.file and not trees_of(f, trees) and current(f) for f in files
        ):
            out.add(d.key)
    return frozenset(out)


def old_copies(
    definitions: Sequence[Definition], namesakes: Iterable[tuple[str, str]], words: frozenset[str]
) -> frozenset[str]:
    """The keys of the definitions that lie in a legacy tree the query does not name, whether
    or not a current namesake exists (the trees read from the definitions' and the namesakes'
    files, as :func:`demoted` reads them)."""
    if not any(suspect(d.file) for d in definitions):
        return frozenset()
    trees = legacy_trees([*(d.file for d in definitions), *(file for _, file in namesakes)])
    return frozenset(
        d.key for d in definitions if (mine := trees_of(d.file, trees)) and not names_tree(words, mine)
    )
