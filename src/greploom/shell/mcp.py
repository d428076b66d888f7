"""The MCP server: the CLI's use cases as tools, warm, concurrent and safe by default.

Tools (the same functions the CLI calls, so answers cannot drift):

- ``search_code``: hybrid search, graph expansion, packed context;
- ``get_node_context``: context for stable keys or CPG ids;
- ``trace_calls``: the shortest call chains between two definitions, as code;
- ``context_for_code``: the definitions a piece of code uses (greploom.shell.mcp_code);
- ``find_related``: the definitions nearest a given one in meaning and in the graph
  (greploom.shell.mcp_related);
- ``index_code``: index a CPG JSON file or a source directory, incrementally.

Per-call arguments win; omitted ones fall back to the ``serve`` flags, then to
the environment. Text results are the CLI's context (honesty header first);
structured results are the CLI's JSON envelope. Expected failures raise
``ToolError`` with one sentence; anything else is logged here and masked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import attrs
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent, ToolAnnotations
from pydantic import Field

import greploom
from greploom.core.errors import GreploomError
from greploom.core.paths import CALLS_LIMIT, CHAINS_LIMIT, MAX_CALLS, MAX_CHAINS
from greploom.core.render import SourceMode
from greploom.shell.config import GrepLoomConfig
from greploom.shell.guard import PathGuard, clip
from greploom.shell.indexing import run_index
from greploom.shell.querying import QueryAnswer, QueryEngine
from greploom.shell.tracing import trace_calls as trace_use_case

log = logging.getLogger("greploom.mcp")
T = TypeVar("T")

INSTRUCTIONS = """\
greploom finds the code that answers a question in an indexed code base and returns it packed
to a token budget. Call search_code with a question, a symbol name or a place (adapters.py:412,
or a pasted traceback: the definitions around those lines come first) first; call
get_node_context with keys from a previous result (the `key` field, or the `key:` that ends each
block's header, e.g. function:pkg/mod.py:Class.method), or with a qualified name that names one
definition (pkg.mod.Class.method, Class.method), to see a node and its callers and callees; call
trace_calls with two definitions (keys or names) to see how one reaches the other: the shortest call
chains, every step's code with its calling line marked `# <- calls NAME`; call context_for_code
with code being edited or read (and its file and line when it was cut from one) for the
definitions its names refer to; call find_related with a definition's key for more like it: the
definitions nearest it in meaning and in the graph (callers, callees, class and file siblings, similar
code); call index_code
after the code changed. Each text result starts with a header line: search mode (hybrid; symbol for
a name the index defines; lexical-only when no embedder answered), embedder, tokens used / budget,
whether a block was truncated, how many were dropped, how many were shortened (shown with only the
lines that answer the question, without source, or as a one-line reference because the budget ran
short: each result's `detail` says focused, summary or reference; `... lines 120-188 (a, b)` lines
name what a focused block left out), how many blocks are stale (their file changed since it was
indexed: call index_code), and how old the index is. By default (code="hits") the
hits show their code and their callers and callees their signatures: pass code="none" for the
cheapest overview, code="all" for everyone's code. Pass a shortened hit's `key` to
get_node_context for the whole block; raise
`budget` when blocks were dropped and you need them; lower `top_k` for a sharper answer. The
budget holds for the text and for the structured result, each packed for itself (the JSON needs
room for its metadata, about 300 tokens); a budget too small is an error naming the smallest
that answers."""

ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "description": "search mode, embedder, budget, tokens_used, ..."},
        "results": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["metadata", "results"],
}
INDEX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "total": {"type": "integer"},
        "embedded": {"type": "integer"},
        "unchanged": {"type": "integer"},
        "repointed": {"type": "integer"},
        "deleted": {"type": "integer"},
        "failed": {"type": "integer"},
        "seconds": {"type": "number"},
        "db_path": {"type": "string"},
        "cpg_path": {"type": "string"},
        "embedder": {"type": "string"},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["total", "embedded", "unchanged", "repointed", "deleted", "failed"],
}
PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "description": "ends, direction, bounds, budget, tokens_used, ..."},
        "chains": {"type": "array", "items": {"type": "object"}, "description": "keys and call lines"},
        "results": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["metadata", "chains", "results"],
}
MAX_NODE_ID_CHARS = 1000  # a stable key is a kind, a path and a qualified name: far shorter
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
WRITES_INDEX = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Budget = Annotated[
    int | None,
    Field(
        ge=100,
        le=1_000_000,
        description="Token budget (cl100k_base) the text and the structured result each fit; default 8192.",
    ),
]
# `code` says which blocks show code; `include_source` is the older switch, kept so
# clients written for it keep working (true is "all", false is "none").
Code = Annotated[
    Literal["hits", "all", "none"],
    Field(
        description="Which blocks show code. 'hits' (default): each hit's code, a big one as the lines "
        "that answer the query with the rest named; graph neighbours as signatures and summaries. "
        "'all': code for every block that fits (costs more). 'none': signatures and summaries only."
    ),
]
IncludeSource = Annotated[
    bool | None, Field(description="Older switch: true is code='all', false is code='none'.")
]
DbPath = Annotated[
    str | None,
    Field(description="Index file to use, inside the server's allowed roots; default: the server's --db."),
]
NodeId = Annotated[str, Field(max_length=MAX_NODE_ID_CHARS)]
CpgPath = Annotated[
    str | None,
    Field(description="Expand through this CPG JSON file instead of the stored graph (inside the roots)."),
]


@attrs.frozen
class ServeSettings:
    """What ``greploom serve`` was started with."""

    config: GrepLoomConfig
    cpg_path: Path | None = None
    roots: tuple[Path, ...] = ()

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
    ) -> QueryAnswer:
        """search_code's answer."""
        return self.engine(db_path).query(
            query, budget=budget, top_k=top_k, include_source=include_source, cpg_path=self.cpg(cpg_path)
        )

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

    def index(
        self,
        path: str,
        db_path: str | None,
        tier: str,
        force: bool,
        source_root: str | None = None,
        exclude: list[str] | None = None,
        include_vendored: bool = False,
    ) -> dict[str, Any]:
        """index_code's result."""
        source = self.guard.check(path, "path")
        db = self.guard.check(db_path, "db_path") if db_path else self.settings.config.db_path
        root = self.guard.check(source_root, "source_root") if source_root else None
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


def _mode(code: str, include_source: bool | None) -> SourceMode:
    """The source mode a call asks for: the older boolean wins when given."""
    if include_source is not None:
        return SourceMode.ALL if include_source else SourceMode.NONE
    return SourceMode(code)


@contextmanager
def tool_errors(tool: str) -> Iterator[None]:
    """Expected failures become a ToolError sentence; unexpected ones are logged and masked."""
    try:
        yield
    except GreploomError as exc:
        raise ToolError(str(exc)) from exc
    except ToolError:
        raise
    except Exception:
        log.exception("unexpected failure in %s", tool)
        raise ToolError(f"{tool} failed unexpectedly; the server log has the details") from None


def _answer(answer: QueryAnswer) -> ToolResult:
    # Both are sent, so both must fit: each is packed to the budget for itself.
    text, envelope = answer.both()
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=envelope)


def build_server(settings: ServeSettings) -> tuple[FastMCP, GreploomService]:
    """The FastMCP server and the service behind its tools."""
    service = GreploomService(settings)
    mcp: FastMCP = FastMCP(
        name="greploom",
        instructions=INSTRUCTIONS,
        version=greploom.__version__,
        mask_error_details=True,
    )

    def run(tool: str, fn: Callable[[], T]) -> T:
        with tool_errors(tool):
            return fn()

    @mcp.tool(annotations=READ_ONLY, output_schema=ENVELOPE_SCHEMA)
    def search_code(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=4000,
                description="A question, a symbol name, or a place (adapters.py:412, a traceback).",
            ),
        ],
        budget: Budget = None,
        top_k: Annotated[
            int | None, Field(ge=1, le=100, description="Search hits to expand; default 5.")
        ] = None,
        code: Code = "hits",
        include_source: IncludeSource = None,
        db_path: DbPath = None,
        cpg_path: CpgPath = None,
    ) -> ToolResult:
        """Find the code that answers a question: hybrid search, graph expansion, packed to a budget."""
        return run(
            "search_code",
            lambda: _answer(
                service.search(
                    query,
                    budget=budget,
                    top_k=top_k,
                    include_source=_mode(code, include_source),
                    db_path=db_path,
                    cpg_path=cpg_path,
                )
            ),
        )

    @mcp.tool(annotations=READ_ONLY, output_schema=ENVELOPE_SCHEMA)
    def get_node_context(
        node_ids: Annotated[
            list[NodeId],
            Field(
                min_length=1,
                max_length=100,
                description="Stable keys (from a result's `key`), CPG ids, or qualified names "
                "(or a dotted suffix naming one definition: `Cart.total`).",
            ),
        ],
        budget: Budget = None,
        code: Code = "hits",
        include_source: IncludeSource = None,
        db_path: DbPath = None,
        cpg_path: CpgPath = None,
    ) -> ToolResult:
        """Show known nodes with their callers, callees, parameters and parent class, packed to a budget."""
        return run(
            "get_node_context",
            lambda: _answer(
                service.nodes(
                    node_ids,
                    budget=budget,
                    include_source=_mode(code, include_source),
                    db_path=db_path,
                    cpg_path=cpg_path,
                )
            ),
        )

    @mcp.tool(annotations=READ_ONLY, output_schema=PATH_SCHEMA)
    def trace_calls(
        from_: Annotated[
            str,
            Field(
                alias="from",
                min_length=1,
                max_length=MAX_NODE_ID_CHARS,
                description="Where the chains start (the caller's end): a stable key from a result, a CPG "
                "id, or a qualified name naming one definition (`Session.request`).",
            ),
        ],
        to: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NODE_ID_CHARS,
                description="Where the chains end (the callee's end), given the same way.",
            ),
        ],
        max_calls: Annotated[
            int,
            Field(ge=1, le=CALLS_LIMIT, description=f"The most calls a chain may make; default {MAX_CALLS}."),
        ] = MAX_CALLS,
        max_chains: Annotated[
            int,
            Field(
                ge=1, le=CHAINS_LIMIT, description=f"The most chains, shortest first; default {MAX_CHAINS}."
            ),
        ] = MAX_CHAINS,
        budget: Budget = None,
        code: Annotated[
            Literal["all", "none"],
            Field(
                description="'all' (default): every step's code, a long one focused around its calling "
                "line. 'none': each step's signature, summary and calling line only."
            ),
        ] = "all",
        db_path: DbPath = None,
    ) -> ToolResult:
        """How does one function reach another? The shortest call chains from `from` to `to`, each step's
        code with the line calling the next step marked, packed to a budget. When `from` reaches `to` by no
        chain within max_calls, the chains from `to` back to `from` are given and the header says so; when
        neither reaches the other it says "no call chain within N calls" (a normal result)."""
        return run(
            "trace_calls",
            lambda: _answer(
                service.trace(
                    from_,
                    to,
                    max_calls=max_calls,
                    max_chains=max_chains,
                    budget=budget,
                    code=code == "all",
                    db_path=db_path,
                )
            ),
        )

    @mcp.tool(annotations=WRITES_INDEX, output_schema=INDEX_SCHEMA)
    def index_code(
        path: Annotated[str, Field(min_length=1, description="A CPG JSON file or a source directory.")],
        db_path: DbPath = None,
        tier: Annotated[Literal["fast", "enhanced"], Field(description="Summary tier.")] = "enhanced",
        force: Annotated[bool, Field(description="Re-embed every node.")] = False,
        source_root: Annotated[
            str | None,
            Field(
                description="For a CPG file: the directory treeloom built it from, where greploom reads "
                "the source treeloom does not record (JavaScript, TypeScript, Go, Rust, C, C++)."
            ),
        ] = None,
        exclude: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=1000)]] | None,
            Field(
                max_length=1000,
                description="For a source directory: more files to leave out, as gitignore patterns "
                "relative to it ('gen/', '*.pb.go'). Its .gitignore and .greploomignore files apply too.",
            ),
        ] = None,
        include_vendored: Annotated[
            bool,
            Field(
                description="For a source directory: index vendored and built trees too (vendor/, "
                "third_party/, node_modules/, dist/, build/, minified bundles), left out by default."
            ),
        ] = False,
    ) -> ToolResult:
        """Index or re-index code incrementally; searches keep answering while it runs."""
        result = run(
            "index_code",
            lambda: service.index(path, db_path, tier, force, source_root, exclude, include_vendored),
        )
        return ToolResult(
            content=[TextContent(type="text", text=result["summary"])], structured_content=result
        )

    from greploom.shell import mcp_code, mcp_related  # their tools take the types above: after this loads

    mcp_code.register(mcp, service, run)
    mcp_related.register(mcp, service, run)
    return mcp, service


# For the tools defined in their own modules (greploom.shell.mcp_code, greploom.shell.mcp_related).
answer_result = _answer
source_mode_of = _mode
