"""The MCP tools' shared vocabulary: parameter types, result schemas, annotations, two conversions.

Every tool (greploom.shell.mcp and the modules holding one tool each:
mcp_code, mcp_related, mcp_trace) takes its budget, code, index and CPG
parameters as the types here, so their bounds and descriptions are the same
everywhere; their structured results follow the schemas here. The two
conversions each tool makes: the ``code`` (or older ``include_source``)
argument to a :class:`~greploom.core.render.SourceMode`, and an answer to a
``ToolResult`` carrying both its text and its envelope.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastmcp.tools.base import ToolResult
from mcp.types import TextContent, ToolAnnotations
from pydantic import Field

from greploom.core.render import SourceMode
from greploom.shell.answer import QueryAnswer

__all__ = [
    "ENVELOPE_SCHEMA",
    "INDEX_SCHEMA",
    "MAX_NODE_ID_CHARS",
    "PATH_SCHEMA",
    "READ_ONLY",
    "WRITES_INDEX",
    "Budget",
    "Code",
    "Collections",
    "CpgPath",
    "DbPath",
    "IncludeSource",
    "NodeCode",
    "NodeId",
    "answer_result",
    "source_mode_of",
]

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
        description="Which blocks show code. 'hits' (default): the first two hits' code, a big one as "
        "the lines that answer the query with the rest named; each later hit its definition line and "
        "the lines that answer; the first hit's graph neighbours as signatures and summaries, the "
        "others' as one-line references (pass any key to get_node_context for the whole block). "
        "'all': code for every block that fits (costs more). 'none': signatures and summaries only."
    ),
]
NodeCode = Annotated[
    Literal["hits", "all", "none"],
    Field(
        description="Which blocks show code. 'hits' (default): the definitions asked for, whole (cut to "
        "the budget when it is short); the first one's graph neighbours as signatures and summaries, the "
        "others' as one-line references. 'all': code for every block that fits. 'none': signatures and "
        "summaries only."
    ),
]
IncludeSource = Annotated[
    bool | None, Field(description="Older switch: true is code='all', false is code='none'.")
]
DbPath = Annotated[
    str | None,
    Field(description="Index file to use, inside the server's allowed roots; default: the server's --db."),
]
Session = Annotated[
    str | None,
    Field(
        max_length=200,
        description="Any name, the same across related calls (e.g. the task's): a follow-up "
        "('what are the arguments to that?') then leans toward what the session was about, and blocks "
        "already sent whole come back as one-line references. Kept an hour.",
    ),
]
NodeId = Annotated[str, Field(max_length=MAX_NODE_ID_CHARS)]
Collections = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=64)]] | None,
    Field(
        min_length=1,  # an empty list would search the server's one index without a word
        max_length=100,
        description="Search these collections of the server's greploom.toml (or [tool.greploom] in "
        "pyproject.toml) as one: one ranking, one budget, each result naming its collection. "
        "Instead of db_path; an unknown name is an error listing the known ones.",
    ),
]
CpgPath = Annotated[
    str | None,
    Field(description="Expand through this CPG JSON file instead of the stored graph (inside the roots)."),
]


def source_mode_of(code: str, include_source: bool | None) -> SourceMode:
    """The source mode a call asks for: the older boolean wins when given."""
    if include_source is not None:
        return SourceMode.ALL if include_source else SourceMode.NONE
    return SourceMode(code)


def answer_result(answer: QueryAnswer) -> ToolResult:
    """A tool's result: the answer's text and its envelope."""
    # Both are sent, so both must fit: each is packed to the budget for itself.
    text, envelope = answer.both()
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=envelope)
