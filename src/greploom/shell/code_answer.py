"""The code-context use case: ``greploom query --code`` and the MCP tool ``context_for_code``.

gather  the names the code uses (greploom.core.snippet), the definitions
        they refer to, ranked, its own left out (greploom.shell.code_context);
        the stored graph around them;
decide  expansion (depth 0 by default: the budget goes to the definitions
        themselves) and packing as a query's;
act     a :class:`~greploom.shell.answer.QueryAnswer` whose metadata also
        says how many names the code uses, how many resolved, and its own
        definitions.

Runs on a :class:`~greploom.shell.querying.QueryEngine` (its
:meth:`~greploom.shell.querying.QueryEngine.code_context` is this), through
its public pieces, as greploom.shell.related does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from greploom.core.errors import UsageError
from greploom.core.focus import FocusQuery
from greploom.core.render import SourceMode
from greploom.core.snippet import read_snippet
from greploom.shell.answer import QueryAnswer
from greploom.shell.code_context import CODE_CONTEXT_TOP, CodePlace, check_code, gather
from greploom.shell.guard import clip
from greploom.shell.search import SearchHit

if TYPE_CHECKING:
    from greploom.shell.querying import QueryEngine

__all__ = ["code_answer"]


def code_answer(
    engine: QueryEngine,
    code: str,
    place: CodePlace | None = None,
    *,
    budget: int | None = None,
    top_k: int | None = None,
    depth: int = 0,
    include_source: bool | SourceMode = SourceMode.HITS,
    db_named: Path | None = None,
) -> QueryAnswer:
    """The definitions a piece of code uses, packed (see :meth:`QueryEngine.code_context`)."""
    config = engine.config.with_overrides(budget=budget, top_k=top_k, depth=depth, db_path=db_named)
    snippet = read_snippet(check_code(code))
    if not snippet.terms:
        raise UsageError(
            "the code uses no names to look up (only keywords, literals, comments or its own names)"
        )
    with engine.reading() as store:
        found = gather(store, snippet, place, max(config.top_k, CODE_CONTEXT_TOP))
        hits = [SearchHit(r.key, r.score, 0, 0) for r in found.ranked]
        nodes, freshness = engine.expand(store, hits, config.depth)
        meta = engine.metadata(
            config,
            text=clip(code.strip(), 200),
            node_ids=(),
            mode="code context",
            hits=hits,
            unknown=(),
            cpg_path=None,
            freshness=freshness,
        )
    meta.update(names=len(snippet.terms), names_resolved=found.resolved, own_definitions=list(found.own))
    focus_on = FocusQuery.of(" ".join(t.name for t in snippet.terms))
    return engine.pack(config, nodes, hits, meta, include_source=include_source, focus_on=focus_on)
