"""What the MCP tools run on: the ``serve`` settings and the warm use cases behind the tools.

:class:`GreploomService` keeps one :class:`~greploom.shell.querying.QueryEngine`
per index file, reused across calls, and confines every path a tool is given
to the roots the server was started with (greploom.shell.guard). Its methods
are the tools' use cases, the same the CLI runs (greploom.shell.querying,
greploom.shell.tracing, greploom.shell.indexing), so answers cannot drift.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from greploom.core.errors import GreploomError
from greploom.core.render import SourceMode
from greploom.shell.collections import load_config
from greploom.shell.config import GrepLoomConfig
from greploom.shell.federated import federated_query
from greploom.shell.guard import PathGuard, clip
from greploom.shell.index_state import recorded_tier
from greploom.shell.indexing import run_index
from greploom.shell.querying import QueryAnswer, QueryEngine
from greploom.shell.tracing import trace_calls as trace_use_case

__all__ = ["GreploomService", "ServeSettings"]


@attrs.frozen
class ServeSettings:
    """What ``greploom serve`` was started with."""

    config: GrepLoomConfig
    cpg_path: Path | None = None
    roots: tuple[Path, ...] = ()
    # The collections config (``serve --config``); None: the nearest greploom.toml or
    # pyproject.toml from the server's working directory, read when a tool names collections.
    config_file: Path | None = None

    def allowed_roots(self) -> tuple[Path, ...]:
        """The directories of --db and --cpg plus every --root (the working directory if none)."""
        roots = list(self.roots) or [Path.cwd()]
        roots.append(self.config.db_path.resolve().parent)
        if self.cpg_path is not None:
            roots.append(self.cpg_path.resolve().parent)
        return tuple(roots)


class GreploomService:
    """Warm use cases behind the tools: one query engine per index file, reused."""

    def __init__(self, settings: ServeSettings) -> None:
        self.settings = settings
        self.guard = PathGuard(settings.allowed_roots())
        self._engines: dict[Path, QueryEngine] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close every engine."""
        with self._lock:
            for engine in self._engines.values():
                engine.close()
            self._engines.clear()

    def engine(self, db_path: str | None) -> QueryEngine:
        """The warm engine for an index (the server's unless a path is given)."""
        db = self.guard.check(db_path, "db_path") if db_path else self.settings.config.db_path.resolve()
        with self._lock:
            engine = self._engines.get(db)
            if engine is None:
                engine = QueryEngine(self.settings.config.with_overrides(db_path=db))
                self._engines[db] = engine
            return engine

    def cpg(self, cpg_path: str | None) -> Path | None:
        """The CPG to expand through, if any, confined to the roots."""
        if cpg_path:
            path = self.guard.check(cpg_path, "cpg_path")
            if not path.is_file():
                raise GreploomError(f"cpg_path {clip(cpg_path)} is not a file")
            return path
        return self.settings.cpg_path

    def search(
        self,
        query: str,
        *,
        budget: int | None,
        top_k: int | None,
        include_source: SourceMode,
        db_path: str | None,
        cpg_path: str | None,
        session: str | None = None,
        fresh: bool = False,
    ) -> QueryAnswer:
        """search_code's answer."""
        return self.engine(db_path).query(
            query,
            budget=budget,
            top_k=top_k,
            include_source=include_source,
            cpg_path=self.cpg(cpg_path),
            session=session,
            fresh=fresh,
        )

    def collections(
        self,
        names: list[str],
        query: str | None,
        node_ids: Sequence[str] = (),
        *,
        budget: int | None,
        top_k: int | None = None,
        include_source: SourceMode,
    ) -> QueryAnswer:
        """search_code's or get_node_context's answer over collections (greploom.shell.federated).

        The config file is read at every call (it is small, and an edit then needs no restart);
        its indexes are the operator's, so they are not confined to the roots, and each keeps
        a warm engine as a --db index does.
        """
        config = self.settings.config.with_overrides(budget=budget, top_k=top_k)
        targets = load_config(self.settings.config_file).targets(tuple(names))
        configs = [(t.name, t.configure(config)) for t in targets]
        return federated_query(
            configs, config, query, tuple(node_ids), include_source=include_source, engine_for=self._warm
        )

    def _warm(self, config: GrepLoomConfig) -> QueryEngine:
        """The warm engine of a collection's index (made for ``config`` when there is none yet)."""
        db = config.db_path.resolve()
        with self._lock:
            engine = self._engines.get(db)
            if engine is None:
                engine = QueryEngine(config.with_overrides(db_path=db))
                self._engines[db] = engine
            return engine

    def nodes(
        self,
        node_ids: list[str],
        *,
        budget: int | None,
        include_source: SourceMode,
        db_path: str | None,
        cpg_path: str | None,
    ) -> QueryAnswer:
        """get_node_context's answer."""
        return self.engine(db_path).query(
            None, node_ids, budget=budget, include_source=include_source, cpg_path=self.cpg(cpg_path)
        )

    def trace(
        self,
        source: str,
        target: str,
        *,
        max_calls: int,
        max_chains: int,
        budget: int | None,
        code: bool,
        db_path: str | None,
    ) -> QueryAnswer:
        """trace_calls's answer."""
        db = self.guard.check(db_path, "db_path") if db_path else self.settings.config.db_path.resolve()
        config = self.settings.config.with_overrides(db_path=db, budget=budget)
        return trace_use_case(config, source, target, max_calls=max_calls, max_chains=max_chains, code=code)

    def index(  # noqa: PLR0917 - index_code's arguments, in its order
        self,
        path: str,
        db_path: str | None,
        tier: str | None,
        force: bool,
        source_root: str | None = None,
        exclude: list[str] | None = None,
        include_vendored: bool = False,
    ) -> dict[str, Any]:
        """index_code's result."""
        source = self.guard.check(path, "path")
        db = self.guard.check(db_path, "db_path") if db_path else self.settings.config.db_path
        root = self.guard.check(source_root, "source_root") if source_root else None
        if tier is None:  # the index's own tier (the server's GREPLOOM_TIER for a new one)
            tier = recorded_tier(db.resolve())
        config = self.settings.config.with_overrides(
            db_path=db,
            tier=tier,
            source_root=root,
            exclude=tuple(exclude) if exclude else None,
            include_vendored=include_vendored or None,
        )
        result = run_index(source, config, force=force)
        return {
            "total": result.total,
            "embedded": result.embedded,
            "unchanged": result.unchanged,
            "repointed": result.repointed,
            "deleted": result.deleted,
            "failed": result.failed,
            "seconds": round(result.seconds, 3),
            "db_path": str(result.db_path),
            "cpg_path": str(result.cpg_path),
            "embedder": result.embedder,
            "warnings": list(result.warnings),
            "notes": list(result.notes),
            "summary": result.summary_line(),
        }
