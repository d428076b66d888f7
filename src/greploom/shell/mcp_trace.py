"""The MCP tool ``trace_calls``: the shortest call chains between two definitions, as code.

Registered by greploom.shell.mcp.build_server beside the other tools, with
the same budget and index parameters, errors and structured result (its
schema adds the chains: greploom.shell.mcp_types.PATH_SCHEMA). The use case
is :func:`greploom.shell.tracing.trace_calls`, which ``greploom path`` runs
too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Literal

from fastmcp.tools.base import ToolResult
from pydantic import Field

from greploom.core.paths import CALLS_LIMIT, CHAINS_LIMIT, MAX_CALLS, MAX_CHAINS
from greploom.shell.mcp_service import GreploomService
from greploom.shell.mcp_types import MAX_NODE_ID_CHARS, PATH_SCHEMA, READ_ONLY, Budget, DbPath, answer_result

if TYPE_CHECKING:
    from fastmcp import FastMCP


def register(
    mcp: FastMCP, service: GreploomService, run: Callable[[str, Callable[[], ToolResult]], ToolResult]
) -> None:
    """Add ``trace_calls`` to ``mcp``, with the parameter types the other tools use."""

    @mcp.tool(annotations=READ_ONLY, output_schema=PATH_SCHEMA)
    def trace_calls(  # noqa: PLR0917 - a tool's parameters mirror its JSON schema
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
            lambda: answer_result(
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

    del trace_calls
