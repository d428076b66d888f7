"""``greploom path A B``: the shortest call chains between two definitions, as code.

Registered on :data:`greploom.shell.cli.app`, which imports this module; the
exit codes and the error lines are that module's. The use case is
:func:`greploom.shell.tracing.trace_calls`, which the MCP tool ``trace_calls``
calls too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

from cyclopts import Parameter

from greploom.core.paths import MAX_CALLS, MAX_CHAINS
from greploom.shell.cli import app
from greploom.shell.config import GrepLoomConfig


@app.command
def path(
    source: str,
    target: str,
    *,
    db: Path | None = None,
    budget: int | None = None,
    max_calls: int = MAX_CALLS,
    max_chains: int = MAX_CHAINS,
    format: Literal["context", "json"] = "context",
    no_source: Annotated[bool, Parameter(negative=())] = False,
) -> int:
    """Show how SOURCE reaches TARGET: the shortest call chains between them, each step as code.

    Each step's code is shown with the line that calls the next step marked by a trailing
    comment (``# <- calls NAME``, ``//`` in C-like languages), a long one focused around that
    line. When SOURCE reaches TARGET by no chain within --max-calls, the chains from TARGET to
    SOURCE are shown, and the header says so; when neither does, the answer says "no call
    chain within N calls" (exit 0, as a query that matched nothing).

    Parameters
    ----------
    source
        Where the chains start: a stable key, a CPG id, or a qualified name (or a dotted suffix
        naming one definition: ``Session.request``). A name naming several is an error listing them.
    target
        Where the chains end, given the same way.
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    budget
        Token budget for the whole answer as printed, header included (cl100k_base); too small
        for the answer: an error naming the smallest that answers [default: 8192].
    max_calls
        The most calls a chain may make, 1-12.
    max_chains
        The most chains to show, shortest first, 1-10.
    format
        ``context`` (markdown for an LLM) or ``json``.
    no_source
        No code: each step as its signature, summary and calling line.
    """
    from greploom.core.envelope import cli_form
    from greploom.shell.tracing import trace_calls

    config = GrepLoomConfig.from_env().with_overrides(db_path=db, budget=budget)
    answer = trace_calls(
        config, source, target, max_calls=max_calls, max_chains=max_chains, code=not no_source
    )
    # Packed for the format asked for: a budget too small for it is one error line.
    sys.stdout.write(cli_form(answer.envelope) if format == "json" else answer.text)
    return 0
