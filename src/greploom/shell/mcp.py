"""The MCP server: the CLI's use cases as tools, warm, concurrent and safe by default.

Tools (the same functions the CLI calls, so answers cannot drift):

- ``search_code``: hybrid search, graph expansion, packed context;
- ``get_node_context``: context for stable keys or CPG ids;
- ``trace_calls``: the shortest call chains between two definitions, as code
  (greploom.shell.mcp_trace);
- ``context_for_code``: the definitions a piece of code uses (greploom.shell.mcp_code);
- ``find_related``: the definitions nearest a given one in meaning and in the graph
  (greploom.shell.mcp_related);
- ``index_code``: index a CPG JSON file or a source directory, incrementally.

Per-call arguments win; omitted ones fall back to the ``serve`` flags, then to
the environment. Text results are the CLI's context (honesty header first);
structured results are the CLI's JSON envelope. Expected failures raise
``ToolError`` with one sentence; anything else is logged here and masked.

This module builds the server (its instructions, its error rule, the tools
above without a module of their own); the tools' shared parameter types and
result schemas are greploom.shell.mcp_types', the settings and the warm use
cases behind the tools greploom.shell.mcp_service's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Literal, TypeVar

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import Field

import greploom
from greploom.core.errors import GreploomError
from greploom.shell import mcp_code, mcp_related, mcp_trace
from greploom.shell.mcp_service import GreploomService, ServeSettings

# The tools' shared types live in greploom.shell.mcp_types; re-exported here for the
# names importable from this module before the split.
from greploom.shell.mcp_types import (
    ENVELOPE_SCHEMA,
    INDEX_SCHEMA,
    MAX_NODE_ID_CHARS,
    PATH_SCHEMA,
    READ_ONLY,
    WRITES_INDEX,
    Budget,
    Code,
    Collections,
    CpgPath,
    DbPath,
    IncludeSource,
    NodeCode,
    NodeId,
    Session,
    answer_result,
    source_mode_of,
)

__all__ = [
    "ENVELOPE_SCHEMA",
    "INDEX_SCHEMA",
    "INSTRUCTIONS",
    "MAX_NODE_ID_CHARS",
    "PATH_SCHEMA",
    "READ_ONLY",
    "WRITES_INDEX",
    "Budget",
    "Code",
    "CpgPath",
    "DbPath",
    "GreploomService",
    "IncludeSource",
    "NodeId",
    "ServeSettings",
    "answer_result",
    "build_server",
    "source_mode_of",
    "tool_errors",
]

log = logging.getLogger("greploom.mcp")
T = TypeVar("T")

INSTRUCTIONS = """\
greploom finds the code that answers a question in an indexed code base and returns it packed
to a token budget; the index also holds the code base's docs and config by section (kinds doc
and config: a README's or guide's headings, YAML/TOML/JSON/INI sections, Dockerfiles), found
first when a question is about them (install, deploy, configure, settings...), and linked to the
code they name (relationships mentions and documented_by). Call search_code with a question, a
symbol name or a place (adapters.py:412, or a pasted traceback: the definitions around those
lines come first) first; call
get_node_context with keys from a previous result (the `key` field, or the `key:` that ends each
block's header, e.g. function:pkg/mod.py:Class.method), or with a qualified name that names one
definition (pkg.mod.Class.method, Class.method), to see a node and its callers and callees; call
trace_calls with two definitions (keys or names) to see how one reaches the other: the shortest call
chains, every step's code with its calling line marked `# <- calls NAME`; call context_for_code
with code being edited or read (and its file and line when it was cut from one) for the
definitions its names refer to; pass the same `session` name to a task's search_code
calls so that follow-ups lean on what came before and whole blocks are not sent twice;
call find_related with a definition's key for more like it: the
definitions nearest it in meaning and in the graph (callers, callees, class and file siblings, similar
code); call index_code
after the code changed. Each text result starts with a header line: search mode (hybrid; symbol for
a name the index defines; lexical-only when no embedder answered), embedder, tokens used / budget,
whether a block was truncated, how many were dropped, how many hits were shortened (shown with
only the lines that answer the question: by default a big hit, and from the third on every hit
longer than about 100 tokens; or,
when the budget ran short, without source or as a one-line reference: each result's `detail` says
full, focused, summary or reference; `... lines 120-188 (a, b)` lines name what a focused block
left out), how many blocks are stale (their file changed since it was indexed: call index_code),
and how old the index is. By default (code="hits") an answer has ten hits (`top_k`): the first two
show their code (a big one focused), each later one its definition line and the lines that answer;
the first hit's callers and callees show their signatures and summaries, the next two hits' one
line each (with the key): pass code="none" for signatures and summaries only, code="all" for
everyone's code. A larger budget does not lengthen a focused hit: pass its `key` to
get_node_context for the whole block; raise `budget` when blocks were dropped and you need them;
lower `top_k` for a sharper answer. The
budget holds for the text and for the structured result, each packed for itself (the JSON needs
room for its metadata, about 300 tokens); a budget too small is an error naming the smallest
that answers."""


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


def _alone(collections: list[str], **one_index: str | None) -> list[str]:
    """The collections a call names, when it names no argument that takes one index."""
    given = [name for name, value in one_index.items() if value]
    if given:
        raise ToolError(
            f"collections search a config file's indexes; {', '.join(given)} take one index: pass either"
        )
    return collections


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
            int | None, Field(ge=1, le=100, description="Search hits to show; default 10.")
        ] = None,
        code: Code = "hits",
        include_source: IncludeSource = None,
        db_path: DbPath = None,
        cpg_path: CpgPath = None,
        session: Session = None,
        fresh: Annotated[
            bool, Field(description="With `session`: forget what it remembers first (a new topic).")
        ] = False,
        collections: Collections = None,
    ) -> ToolResult:
        """Start here. Find the code that answers a question, a symbol name (`Cart.total`) or a place
        (`shop/cart.py:30`, a pasted traceback): the hits' code with their callers, callees and
        classes, packed to `budget` tokens. Every block header ends with `key: ...`: pass it to
        get_node_context, trace_calls or find_related."""
        if collections:
            return run(
                "search_code",
                lambda: answer_result(
                    service.collections(
                        _alone(collections, db_path=db_path, cpg_path=cpg_path, session=session),
                        query,
                        budget=budget,
                        top_k=top_k,
                        include_source=source_mode_of(code, include_source),
                    )
                ),
            )
        return run(
            "search_code",
            lambda: answer_result(
                service.search(
                    query,
                    budget=budget,
                    top_k=top_k,
                    include_source=source_mode_of(code, include_source),
                    db_path=db_path,
                    cpg_path=cpg_path,
                    session=session,
                    fresh=fresh,
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
        code: NodeCode = "hits",
        include_source: IncludeSource = None,
        db_path: DbPath = None,
        cpg_path: CpgPath = None,
        collections: Collections = None,
    ) -> ToolResult:
        """Show definitions (a result's `key`, or a qualified name such as `Cart.total`) with their
        callers, callees, parameters and parent class, packed to a budget. Use it for the whole code of
        a block that came back shortened (`... lines 120-188`, a summary, or a one-line reference)."""
        if collections:  # a key is looked up in each collection named (a result's `collection`)
            return run(
                "get_node_context",
                lambda: answer_result(
                    service.collections(
                        _alone(collections, db_path=db_path, cpg_path=cpg_path),
                        None,
                        node_ids,
                        budget=budget,
                        include_source=source_mode_of(code, include_source),
                    )
                ),
            )
        return run(
            "get_node_context",
            lambda: answer_result(
                service.nodes(
                    node_ids,
                    budget=budget,
                    include_source=source_mode_of(code, include_source),
                    db_path=db_path,
                    cpg_path=cpg_path,
                )
            ),
        )

    mcp_trace.register(mcp, service, run)

    @mcp.tool(annotations=WRITES_INDEX, output_schema=INDEX_SCHEMA)
    def index_code(
        path: Annotated[str, Field(min_length=1, description="A CPG JSON file or a source directory.")],
        db_path: DbPath = None,
        tier: Annotated[
            Literal["fast", "enhanced"] | None,
            Field(
                description="Summary tier: 'fast' (signatures) or 'enhanced' (signatures, docstrings, "
                "calls); default: the index's own (a new index: enhanced). Changing it re-embeds every node."
            ),
        ] = None,
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
        """Bring the index up to date after files changed (a result header's `stale: N` says so):
        only changed files are parsed and only changed definitions embedded; other tools keep
        answering meanwhile. Not needed while the server runs with --watch."""
        result = run(
            "index_code",
            lambda: service.index(path, db_path, tier, force, source_root, exclude, include_vendored),
        )
        return ToolResult(
            content=[TextContent(type="text", text=result["summary"])], structured_content=result
        )

    mcp_code.register(mcp, service, run)
    mcp_related.register(mcp, service, run)
    return mcp, service
