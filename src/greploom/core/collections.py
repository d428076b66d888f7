"""Collections: named parts of a code base, each indexed into its own SQLite file.

A configuration file (``greploom.toml``, or ``[tool.greploom]`` in
``pyproject.toml``: greploom.shell.collections finds and parses it) names
them::

    [collections.app]
    paths = ["src", "lib"]   # or path = "src"; relative to the file's folder
    include = ["*.py"]       # optional: only files matching one of these
    exclude = ["**/gen/**"]  # optional: more files left out
    provider = "local"       # optional embedder settings, as the index flags

This module turns the parsed mapping into frozen :class:`Collection` values
and says, in one line naming the file and the key, what is wrong with it; it
reads no file. It also decides the one index root of a collection of several
paths (:func:`index_root`).

Decisions, hard to undo once users have config files:

- One collection is one index, one SQLite file (``.greploom/<name>.db``
  beside the config file unless ``db`` says otherwise): the storage model
  stays one file per indexed tree, and a query over several collections
  federates over their files (greploom.core.federation).
- A collection of several paths is indexed from their deepest common folder,
  restricted to those paths (the walk never enters the rest): one index, one
  re-index plan, keys relative to that folder, so a key does not change when
  a path is added beside it. ``include`` and ``exclude`` are gitignore
  patterns relative to that root (for one path: the path itself).
- Names are file-name safe (letters, digits, ``_ . -``, at most 64), because
  they name the index file and are typed after ``-c``.
- Unknown keys are errors, not ignored: a misspelt ``exclude`` would
  otherwise index what the user meant to leave out.
- No two collections share an index file, nor one the other keeps beside
  its own (``NAME.parts.db``: names ending ``.parts``, ``.sessions`` or
  ``.damaged`` are refused, and ``index`` without a ``db``, which is
  ``greploom index``'s default file); ``db`` values that meet are refused by
  the shell, which resolves them (greploom.shell.collections).
"""

from __future__ import annotations

import re
from collections.abc import Collection as Container
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from greploom.core.errors import UsageError
from greploom.core.ignore import check_patterns
from greploom.core.summary import Tier

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # names the index file: .greploom/<name>.db
INDEX_FOLDER = ".greploom"  # beside the config file, as the default index's folder is beside the code
TOP_KEYS = ("collections",)  # the file's own keys (more may come: defaults for every collection)
LIST_KEYS = ("paths", "include", "exclude")
TEXT_KEYS = ("path", "tier", "provider", "model", "ollama_url", "embedding_url", "db")
FLAG_KEYS = ("include_vendored",)
KEYS = tuple(sorted((*LIST_KEYS, *TEXT_KEYS, *FLAG_KEYS)))
# What greploom keeps beside an index NAME.db: a collection named so would share its file.
_RESERVED = (".parts", ".sessions", ".damaged")


@attrs.frozen
class Collection:
    """One named collection: where its code is, which files, which embedder, which index file."""

    name: str
    paths: tuple[str, ...]  # as written: relative to the config file's folder, or absolute
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    include_vendored: bool = False
    tier: str | None = None
    provider: str | None = None
    model: str | None = None
    ollama_url: str | None = None
    embedding_url: str | None = None
    db: str | None = None  # the index file as written; None: .greploom/<name>.db

    @property
    def db_file(self) -> str:
        """The index file, relative to the config file's folder unless written absolute."""
        return self.db if self.db is not None else f"{INDEX_FOLDER}/{self.name}.db"


@attrs.frozen
class Collections:
    """The collections a config file names (sorted by name), and the file, for messages."""

    source: str
    collections: tuple[Collection, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The collections' names, sorted."""
        return tuple(c.name for c in self.collections)

    def named(self, names: Sequence[str] = ()) -> tuple[Collection, ...]:
        """The collections asked for, in the order asked (repeats once), or all of them for none.

        An unknown name is a usage error listing the known ones.
        """
        if not names:
            return self.collections
        by_name = {c.name: c for c in self.collections}
        unknown = [n for n in dict.fromkeys(names) if n not in by_name]
        if unknown:
            known = ", ".join(self.names) or "none"
            what = "collection" if len(unknown) == 1 else "collections"
            raise UsageError(
                f"{self.source}: no {what} {', '.join(map(repr, unknown))}; the file names: {known}"
            )
        return tuple(by_name[n] for n in dict.fromkeys(names))


def read_collections(
    data: Mapping[str, Any], source: str, *, providers: Container[str], section: str = ""
) -> Collections:
    """The collections of a parsed config file; a :class:`UsageError` naming the file and key if bad.

    ``section``: where the mapping sits in the file (``tool.greploom`` in a
    ``pyproject.toml``), prefixed to the keys the errors name.
    ``providers``: the embedding providers there are (greploom.shell.config).
    """
    at = f"{section}." if section else ""
    for key in data:
        if key not in TOP_KEYS:
            raise UsageError(f"{source}: unknown key {at}{key}; the file takes: {', '.join(TOP_KEYS)}")
    tables = data.get("collections")
    if tables is None:
        raise UsageError(f"{source}: no [{at}collections] table: name at least one collection")
    if not isinstance(tables, Mapping):
        raise UsageError(f"{source}: {at}collections must be a table of collections")
    if not tables:
        raise UsageError(f"{source}: [{at}collections] names no collection")
    found = [
        _collection(str(name), table, source, f"{at}collections.{name}", providers)
        for name, table in tables.items()
    ]
    return Collections(source, tuple(sorted(found, key=lambda c: c.name)))


def _collection(name: str, table: Any, source: str, at: str, providers: Container[str]) -> Collection:
    if not NAME.fullmatch(name):
        raise UsageError(
            f"{source}: {at}: a collection name is letters, digits, '_', '.' and '-' (at most 64), "
            "starting with a letter or digit"
        )
    if not isinstance(table, Mapping):
        raise UsageError(f"{source}: {at} must be a table (path = ..., exclude = [...])")
    for key in table:
        if key not in KEYS:
            raise UsageError(f"{source}: unknown key {at}.{key}; a collection takes: {', '.join(KEYS)}")
    values: dict[str, Any] = {}
    for key in LIST_KEYS:
        if key in table:
            values[key] = _strings(table[key], source, f"{at}.{key}")
            if key != "paths":  # a bad pattern is the file's mistake, named as its key
                check_patterns(f"{source}: {at}.{key}", values[key], keeps=key == "include")
    for key in TEXT_KEYS:
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value.strip():
                raise UsageError(f"{source}: {at}.{key} must be a non-empty string")
            values[key] = value
    for key in FLAG_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise UsageError(f"{source}: {at}.{key} must be true or false")
            values[key] = table[key]
    if name.lower().endswith(_RESERVED) or (name.lower() == "index" and "db" not in values):
        raise UsageError(
            f"{source}: {at}: the name would give the collection a file greploom keeps for another "
            f"(NAME.parts.db and NAME.sessions.db beside NAME.db; .greploom/index.db is "
            f"`greploom index`'s): rename it, or give it a db = \"...\""
        )
    if ("path" in values) == ("paths" in values):
        raise UsageError(f'{source}: {at} needs one of path = "DIR" or paths = ["DIR", ...]')
    paths = (values.pop("path"),) if "path" in values else values.pop("paths")
    if not paths:
        raise UsageError(f"{source}: {at}.paths names no folder")
    if "tier" in values and values["tier"] not in {t.value for t in Tier}:
        tiers = ", ".join(t.value for t in Tier)
        raise UsageError(f"{source}: {at}.tier {values['tier']!r} is not a tier; use one of {tiers}")
    if "provider" in values and values["provider"] not in providers:
        raise UsageError(
            f"{source}: {at}.provider {values['provider']!r} is not a provider; use one of "
            f"{', '.join(sorted(providers))}"
        )
    return Collection(name=name, paths=tuple(dict.fromkeys(paths)), **values)


def _strings(value: Any, source: str, at: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UsageError(f"{source}: {at} must be a list of non-empty strings")
    return tuple(value)


Parts = tuple[str, ...]  # a path's parts, as ``pathlib`` splits it: ("/", "proj", "src")


def index_root(paths: Sequence[Parts]) -> tuple[Parts, tuple[str, ...]]:
    """The folder a collection of ``paths`` is indexed from (its parts), and the paths within it
    (POSIX, relative) the walk is kept to: none when one path is the root itself.

    ``paths``: the parts of absolute, normalised paths (the shell resolves them). One path is
    its own root; several are indexed from their deepest common folder. Pure: compares parts.
    """
    if not paths:
        raise ValueError("a collection has at least one path")
    if len(paths) == 1:
        return paths[0], ()
    common = list(paths[0])
    for parts in paths[1:]:
        depth = 0
        while depth < min(len(common), len(parts)) and common[depth] == parts[depth]:
            depth += 1
        common = common[:depth]
    if not common:  # Windows drives: nothing in common
        shown = ", ".join("/".join(p) for p in paths)
        raise UsageError(f"the paths {shown} share no folder: make them two collections")
    within = tuple(sorted({"/".join(p[len(common) :]) for p in paths}))
    if "" in within:  # one of the paths is the root: the whole of it is the collection's
        return tuple(common), ()
    return tuple(common), within
