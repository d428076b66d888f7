"""Finding and reading the collections config file; what a collection is indexed from and into.

gather  the config file: ``--config FILE``, else the nearest ``greploom.toml``
        or ``pyproject.toml`` with a ``[tool.greploom]`` table, looking in the
        working directory and then in each folder above it;
decide  its collections (greploom.core.collections validates them), each
        one's index root, the paths it is kept to and its index file;
act     return them: ``greploom index`` and ``greploom query -c`` and the
        MCP tools take it from here.

Discovery is by the nearest parent, as ruff, pytest and mypy find their
configuration: a command run in a subfolder of a project finds the
project's file. At one folder ``greploom.toml`` wins over ``pyproject.toml``
(a file of greploom's own is the more specific), and a ``pyproject.toml``
without a ``[tool.greploom]`` table is passed over, as those tools pass
over one without their table. Paths in the file are relative to its folder,
never to the working directory, so the same file means the same thing from
anywhere below it.

TOML is read with the standard library's ``tomllib`` (Python 3.11+) or its
backport ``tomli`` (3.10), the same parser under two names.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from greploom.core.collections import Collection, Collections, index_root, read_collections
from greploom.core.errors import UsageError
from greploom.shell.config import PROVIDERS, GrepLoomConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["CONFIG_FILE", "CollectionsConfig", "Target", "find_config", "load_config"]

CONFIG_FILE = "greploom.toml"
PYPROJECT = "pyproject.toml"
SECTION = ("tool", "greploom")


@attrs.frozen
class Target:
    """A collection as an index run and a query see it: its root, the paths within it, its index."""

    collection: Collection
    root: Path  # the directory (or CPG file) indexed
    within: tuple[str, ...]  # the paths under ``root`` the walk is kept to (none: all of it)
    db: Path

    @property
    def name(self) -> str:
        """The collection's name."""
        return self.collection.name

    def configure(self, config: GrepLoomConfig) -> GrepLoomConfig:
        """``config`` for this collection: its index file and files, and its embedder settings
        where neither a flag nor a ``GREPLOOM_*`` variable set one (defaults < file < environment
        < flags; the file's patterns are added to the flags'). The tier is the caller's
        (greploom.shell.cli_collections), as it also depends on the index's recorded one."""
        c = self.collection
        return config.with_overrides(
            db_path=self.db,
            provider=None if config.provider else c.provider,
            model=None if config.model else c.model,
            ollama_url=None if config.ollama_url else c.ollama_url,
            embedding_url=None if config.embedding_url else c.embedding_url,
            exclude=(*c.exclude, *config.exclude),
            include=(*c.include, *config.include),
            within=self.within,
            include_vendored=config.include_vendored or c.include_vendored or None,
        )


@attrs.frozen
class CollectionsConfig:
    """The collections a config file names, and the folder their paths are relative to."""

    path: Path
    collections: Collections

    @property
    def folder(self) -> Path:
        """The config file's folder: its paths are relative to it."""
        return self.path.parent

    def targets(self, names: Sequence[str] = ()) -> tuple[Target, ...]:
        """The collections asked for (all for none), resolved; an unknown name is a usage error,
        and so are two collections of the file whose index files meet (see :meth:`check_files`)."""
        self.check_files()
        return tuple(self.target(c) for c in self.collections.named(names))

    def check_files(self) -> None:
        """Refuse collections that would share an index file, or one the other keeps beside its
        own (``NAME.parts.db``, ``NAME.sessions.db``): compared resolved and without case, as a
        case-insensitive file system would."""
        owner: dict[str, str] = {}
        for c in self.collections.collections:
            db = (self.folder / c.db_file).resolve()
            for path in (db, db.with_name(db.stem + ".parts.db"), db.with_name(db.stem + ".sessions.db")):
                key = str(path).casefold()
                other = owner.setdefault(key, c.name)
                if other != c.name:
                    raise UsageError(
                        f"{self.path}: collections {other!r} and {c.name!r} would share the index file "
                        f"{path}: give one of them another db"
                    )

    def target(self, collection: Collection) -> Target:
        """One collection's index root, the paths within it and its index file."""
        at = f"{self.path}: collections.{collection.name}"
        paths = []
        for written in collection.paths:
            path = (self.folder / written).resolve()
            if not path.exists():
                raise UsageError(f"{at}: the path {written!r} does not exist (relative to {self.folder})")
            paths.append(path)
        if len(paths) > 1 and not all(p.is_dir() for p in paths):
            raise UsageError(f"{at}: several paths must all be folders (a CPG file is a path alone)")
        root, within = index_root([p.parts for p in paths])
        return Target(collection, Path(*root), within, self.folder / collection.db_file)


def find_config(start: Path) -> Path | None:
    """The nearest config file at or above ``start`` (see the module), or None."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        project = folder / PYPROJECT
        if project.is_file() and _section(_parse(project, strict=False)) is not None:
            return project
    return None


def load_config(path: Path | None = None, *, start: Path | None = None) -> CollectionsConfig:
    """The collections of ``path`` (``--config``), else of the nearest config file from ``start``
    (default: the working directory); a usage error when there is none or it is not valid."""
    if path is None:
        here = (start or Path.cwd()).resolve()
        path = find_config(here)
        if path is None:
            raise UsageError(
                f"no {CONFIG_FILE} (nor a pyproject.toml with [tool.greploom]) in {here} or above it: "
                "write one naming collections, or pass --config FILE"
            )
    elif not path.is_file():
        raise UsageError(f"--config {path}: no such file")
    path = path.resolve()
    data = _parse(path, strict=True)
    section = ""
    if path.name == PYPROJECT:  # greploom's table of it; any other file is greploom's whole
        found = _section(data)
        if found is None:
            raise UsageError(f"{path}: no [tool.greploom] table naming collections")
        data, section = found, ".".join(SECTION)
    collections = read_collections(data, str(path), providers=PROVIDERS, section=section)
    return CollectionsConfig(path, collections)


def _parse(path: Path, *, strict: bool) -> Mapping[str, Any]:
    """A TOML file's tables; with ``strict`` False a file that cannot be read or parsed is empty."""
    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except OSError as exc:
        if not strict:
            return {}
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        if not strict:
            return {}
        reason = " ".join(str(exc).split())
        raise UsageError(f"{path}: not valid TOML: {reason}") from exc


def _section(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``[tool.greploom]`` table of a parsed ``pyproject.toml``, or None."""
    tool = data.get(SECTION[0])
    table: Any = tool.get(SECTION[1]) if isinstance(tool, Mapping) else None
    return dict(table) if isinstance(table, Mapping) else None
