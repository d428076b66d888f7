"""The MCP tool ``find_related``: the definitions nearest a given one in meaning and in the graph.

Registered by greploom.shell.mcp.build_server beside the other tools, with
the same budget, code and index parameters, errors and structured result.
The use case is :func:`greploom.shell.related.related_answer`, which
``greploom query --like`` runs too, on the server's warm engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

from fastmcp.tools.base import ToolResult
from pydantic import Field

from greploom.shell.config import MAX_TOP_K
from greploom.shell.mcp_service import GreploomService
from greploom.shell.mcp_types import (
    ENVELOPE_SCHEMA,
    MAX_NODE_ID_CHARS,
    READ_ONLY,
    Budget,
    Code,
    DbPath,
    answer_result,
    source_mode_of,
)
from greploom.shell.related import RELATED_TOP, related_answer

if TYPE_CHECKING:
    from fastmcp import FastMCP

DESCRIPTION = (
    "Find the definitions related to one definition, more like this one: the nearest in meaning (its "
    "own embedding against the others'; in an index without vectors its summary searched as words, "
    "which the header says) and in the graph (its callers, callees, parent class, members, siblings "
    "in its class and file), fused and packed to a budget. Give a `key` from a result, or a qualified "
    "name naming one definition; the definition itself is never in the answer."
)


def register(
    mcp: FastMCP, service: GreploomService, run: Callable[[str, Callable[[], ToolResult]], ToolResult]
) -> None:
    """Add ``find_related`` to ``mcp``, with the parameter types the other tools use."""

    @mcp.tool(annotations=READ_ONLY, output_schema=ENVELOPE_SCHEMA, description=DESCRIPTION)
    def find_related(
        key: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_NODE_ID_CHARS,
                description="The definition: a stable key from a result, a CPG id, or a qualified name "
                "(or a dotted suffix naming one definition: `Cart.total`).",
            ),
        ],
        top_k: Annotated[
            int | None,
            Field(ge=1, le=MAX_TOP_K, description=f"How many related definitions; default {RELATED_TOP}."),
        ] = None,
        budget: Budget = None,
        code: Code = "hits",
        db_path: DbPath = None,
    ) -> ToolResult:
        return run(
            "find_related",
            lambda: answer_result(
                related_answer(
                    service.engine(db_path),
                    key,
                    budget=budget,
                    top_k=top_k,
                    include_source=source_mode_of(code, None),
                )
            ),
        )

    del find_related
