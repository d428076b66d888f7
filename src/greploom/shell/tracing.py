"""The call-path use case: ``greploom path A B`` and the MCP tool ``trace_calls``.

gather  the two ends, resolved as ``query --node`` resolves them (a stable
        key, a CPG id, or a qualified name naming one definition; a name
        naming several is an error listing their keys); the callees of every
        definition the search reaches, a breadth-first level at a time, from
        the stored graph; the stored contexts of the chains' steps; which of
        their files changed since they were indexed;
decide  the chains (greploom.core.paths), their steps, calling lines and
        blocks (greploom.core.path_answer);
act     a :class:`~greploom.shell.answer.QueryAnswer`: the text and the JSON
        envelope, each packed to the budget for itself when first asked for,
        a budget too small for either an error naming the smallest that answers.

No chain within the bound either way is an answer, not an error (exit 0, a
normal MCP result), as a query that matched nothing is: its header and note
say so. An end naming nothing, or several definitions, is a usage error.

The stored callee lists are capped (greploom.core.context.MAX_NEIGHBOURS, 40
per definition, same-file callees first). A definition whose list is at the
cap may have left callees out, so its callees are also read from the other
side of each edge: every definition that lists it among its callers (one
scan of the index per level of the search that meets such definitions;
the metadata's ``capped`` counts them). An edge both of whose lists were cut (a caller of more than 40
definitions calling a callee of more than 40 callers) is still missing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from greploom.core.budget import TokenCounter
from greploom.core.context import MAX_NEIGHBOURS
from greploom.core.envelope import PackedEnvelope
from greploom.core.errors import StoreError, UsageError
from greploom.core.expand import NodeContext
from greploom.core.path_answer import (
    chains_json,
    pack_path_envelope,
    pack_path_text,
    path_blocks,
    path_steps,
    path_summary,
)
from greploom.core.paths import CALLS_LIMIT, CHAINS_LIMIT, MAX_CALLS, MAX_CHAINS, CallPaths, shortest_chains
from greploom.shell import store_calls
from greploom.shell.answer import QueryAnswer, TextAnswer
from greploom.shell.answer_meta import query_metadata
from greploom.shell.config import GrepLoomConfig
from greploom.shell.faults import storage_faults
from greploom.shell.freshness import changed_files
from greploom.shell.guard import clip
from greploom.shell.querying import resolve_nodes  # query --node's resolution, reused
from greploom.shell.store import IndexStore
from greploom.shell.tokens import count_tokens

__all__ = ["trace_calls"]

# What a query's metadata states that a path answer has no use for.
_QUERY_ONLY = (
    "query",
    "node_ids",
    "top_k",
    "ranking",
    "context",
    "depth",
    "hits",
    "unknown_nodes",
    "places_not_found",
    "embedder_error",
    "vectors",
    "build",
)


def check_bounds(max_calls: int, max_chains: int) -> None:
    """A usage error for a bound out of range."""
    if not 1 <= max_calls <= CALLS_LIMIT:
        raise UsageError(f"max-calls must be between 1 and {CALLS_LIMIT}, not {max_calls}")
    if not 1 <= max_chains <= CHAINS_LIMIT:
        raise UsageError(f"max-chains must be between 1 and {CHAINS_LIMIT}, not {max_chains}")


def _end(store: IndexStore, label: str, given: str) -> tuple[str | None, str | None]:
    """The key an end names, or the problem with it (one clause of the error line)."""
    if not given.strip():
        return None, f"{label}: give a key or a qualified name"
    try:
        found = resolve_nodes(store, [given])
    except UsageError as exc:  # a name naming several definitions: the error lists their keys
        return None, f"{label}: {exc}"
    if given not in found:
        return (
            None,
            f"{label}: unknown node {clip(given)} (use a key, CPG id or qualified name from a result)",
        )
    return found[given], None


def resolve_ends(store: IndexStore, source: str, target: str) -> tuple[str, str]:
    """The keys of both ends; one usage error naming every end that names nothing or several."""
    a, problem_a = _end(store, "from", source)
    b, problem_b = _end(store, "to", target)
    problems = [p for p in (problem_a, problem_b) if p]
    if problem_a and problem_b and problem_a.split(": ", 1)[1] == problem_b.split(": ", 1)[1]:
        problems = ["from and to: " + problem_a.split(": ", 1)[1]]  # one name, said once
    if problems:
        raise UsageError("; ".join(problems))
    assert a is not None and b is not None
    if a == b:
        raise UsageError(f"both ends are {a}; give two different definitions")
    return a, b


class _Callees:
    """The batched callee lookup the search reads, from the stored graph, counting capped lists."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self.capped: set[str] = set()

    def __call__(self, keys: Collection[str]) -> Mapping[str, Collection[str]]:
        found = store_calls.callees(self.store.conn, keys)
        full = [key for key, outs in found.items() if len(outs) >= MAX_NEIGHBOURS]
        if full:
            self.capped.update(full)
            for key, more in store_calls.listed_as_caller(self.store.conn, full).items():
                found[key].extend(more)
        return found


def _stale(store: IndexStore, index_meta: Mapping[str, str], files: set[str]) -> tuple[frozenset[str], str]:
    """The steps' files changed since the index read them, and whether that was ``checked``."""
    root = index_meta.get("source_root")
    recorded = store.file_stamps(files) if root else {}
    if not root or not recorded or not Path(root).is_dir():
        return frozenset(), "unknown"
    return changed_files(Path(root), recorded), "checked"


def _gather(
    config: GrepLoomConfig, source: str, target: str, max_calls: int, max_chains: int
) -> tuple[dict[str, str], CallPaths, dict[str, NodeContext], frozenset[str], str, int]:
    """Everything the answer is decided from, read in one snapshot of the index."""
    with storage_faults(config.db_path, "read the index"):
        store = IndexStore.open_existing(config.db_path, readonly=True)
        try:
            index_meta = store.meta()
            if not index_meta.get("indexed_at"):
                raise StoreError(
                    f"the index {config.db_path} was never completed (its first run failed or is still "
                    f"running); run `greploom index PATH --db {config.db_path}`"
                )
            with store.snapshot():
                start, end = resolve_ends(store, source, target)
                lookup = _Callees(store)
                paths = shortest_chains(start, end, lookup, max_calls=max_calls, max_chains=max_chains)
                keys = {start, end} | {k for chain in paths.chains for k in chain.keys}
                contexts = store.contexts(keys)
                stale, freshness = _stale(store, index_meta, {c.ref.file for c in contexts.values()})
        finally:
            store.close()
    return index_meta, paths, contexts, stale, freshness, len(lookup.capped)


def trace_calls(
    config: GrepLoomConfig,
    source: str,
    target: str,
    *,
    max_calls: int = MAX_CALLS,
    max_chains: int = MAX_CHAINS,
    code: bool = True,
    count: TokenCounter = count_tokens,
) -> QueryAnswer:
    """The shortest call chains between two definitions, packed: ``greploom path`` and ``trace_calls``.

    ``code`` False: each step as its summary and calling line, no code.
    """
    check_bounds(max_calls, max_chains)
    config.validate()
    index_meta, paths, contexts, stale_files, freshness, capped = _gather(
        config, source, target, max_calls, max_chains
    )
    steps = path_steps(paths, contexts, stale_files)
    meta = _metadata(index_meta, config, paths, contexts, freshness=freshness, capped=capped)
    stale = frozenset(s.id for s in steps if s.stale)
    chains = chains_json(paths, steps)

    def text_at(budget: int) -> TextAnswer | None:
        blocks = path_blocks(paths, steps, budget, count, code=code)
        got = pack_path_text(meta, blocks, stale, budget, count)
        return None if got is None else TextAnswer(*got)

    def json_at(budget: int) -> PackedEnvelope | None:
        blocks = path_blocks(paths, steps, budget, count, code=code, text=False)
        return pack_path_envelope(meta, chains, steps, blocks, budget, count=count)

    return QueryAnswer(
        nodes=(),
        hits=(),
        budget=config.budget,
        unknown_nodes=(),
        places_not_found=(),
        text_at=text_at,
        json_at=json_at,
    )


def _metadata(
    index_meta: Mapping[str, str],
    config: GrepLoomConfig,
    paths: CallPaths,
    contexts: Mapping[str, NodeContext],
    *,
    freshness: str,
    capped: int,
) -> dict[str, Any]:
    """A query's metadata (the index, its age, the budget), less what only a search states, plus
    the path's: its ends, which way the chains run, the bounds, what was found."""
    meta = query_metadata(
        index_meta,
        None,
        config=config,
        text=f"{paths.source} -> {paths.target}",
        node_ids=(paths.source, paths.target),
        mode="path",
        hits=(),
        unknown=(),
        cpg_path=None,
        freshness=freshness,
    )
    for key in _QUERY_ONLY:
        meta.pop(key, None)

    def name(key: str) -> str:
        ctx = contexts.get(key)
        return ctx.qualname if ctx is not None else key

    meta.update(
        {
            "from": paths.source,
            "to": paths.target,
            "from_name": name(paths.source),
            "to_name": name(paths.target),
            "direction": "reverse" if paths.reverse else "forward" if paths.chains else "none",
            "max_calls": paths.max_calls,
            "max_chains": paths.max_chains,
            "chains_found": len(paths.chains),
            "shortest_calls": paths.chains[0].calls if paths.chains else None,
            "capped": capped,
        }
    )
    meta["summary"] = path_summary(meta, paths)
    if not paths.chains:
        meta["note"] = (
            f"No call chain of at most {paths.max_calls} call{'s' if paths.max_calls != 1 else ''} runs "
            f"from {meta['from_name']} to "
            f"{meta['to_name']} or back. The graph holds the calls the code determines (a bare name "
            "several definitions bear links nothing); raise the bound (--max-calls, MCP max_calls: up "
            f"to {CALLS_LIMIT}), or see each end's callers and callees (`greploom query --node KEY`, "
            "MCP get_node_context)."
        )
    return meta
