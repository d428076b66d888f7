"""The MCP tool ``context_for_code``: the definitions a piece of code uses, packed to a budget.

Registered by greploom.shell.mcp.build_server beside the other tools, with
the same budget, code and index parameters, errors and structured result.
The code is an argument (a client has no stdin to give and its files may not
be the server's); ``file`` and ``line`` say where it was cut from, when it
was, so that its own definition is left out and what that one calls comes
first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

from fastmcp.tools.base import ToolResult
from pydantic import Field

from greploom.shell.code_context import MAX_CODE_BYTES, CodePlace
from greploom.shell.mcp_service import GreploomService
from greploom.shell.mcp_types import (
    ENVELOPE_SCHEMA,
    READ_ONLY,
    Budget,
    Code,
    DbPath,
    answer_result,
    source_mode_of,
)

if TYPE_CHECKING:
    from fastmcp import FastMCP

DESCRIPTION = (
    "Find the definitions that a piece of code uses (the functions, classes and methods its names "
    "refer to, across files), packed to a budget: call it with the code being edited or read instead "
    "of a question in words. Give file and line when the code was cut from an indexed file: its own "
    "definition is then left out, and what that definition calls comes first. Here `code` is the "
    "snippet; how much code the answer shows (called `code` in the other tools) is `show_code`."
)


def register(
    mcp: FastMCP, service: GreploomService, run: Callable[[str, Callable[[], ToolResult]], ToolResult]
) -> None:
    """Add ``context_for_code`` to ``mcp``, with the parameter types the other tools use."""

    @mcp.tool(annotations=READ_ONLY, output_schema=ENVELOPE_SCHEMA, description=DESCRIPTION)
    def context_for_code(
        code: Annotated[
            str,
            Field(
                min_length=1, max_length=MAX_CODE_BYTES, description="The code: a line, a few, or a function."
            ),
        ],
        file: Annotated[
            str | None,
            Field(
                max_length=1000, description="The indexed file the code was cut from (as results name it)."
            ),
        ] = None,
        line: Annotated[
            int | None, Field(ge=1, description="The code's first line in that file (1-based).")
        ] = None,
        budget: Budget = None,
        show_code: Code = "hits",
        db_path: DbPath = None,
    ) -> ToolResult:
        place = None
        if file is not None:
            first = line or 1
            place = CodePlace(file, first, first + code.count("\n"))
        return run(
            "context_for_code",
            lambda: answer_result(
                service.engine(db_path).code_context(
                    code, place, budget=budget, include_source=source_mode_of(show_code, None)
                )
            ),
        )

    del context_for_code
