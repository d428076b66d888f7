"""The long-running commands of the ``greploom`` command line: ``serve`` and ``watch``.

Registered on :data:`greploom.shell.cli.app`, which imports this module; the
exit codes, the error lines and the configuration rules are that module's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from cyclopts import Parameter

from greploom.core.errors import UsageError
from greploom.shell.cli import ConfigFile, Provider, Tier, app, run_config


@app.command
def watch(
    path: Path,
    *,
    db: Path | None = None,
    tier: Tier | None = None,
    provider: Provider | None = None,
    model: str | None = None,
    ollama_url: str | None = None,
    embedding_url: str | None = None,
    exclude: Annotated[list[str] | None, Parameter(negative_iterable=())] = None,
    include_vendored: Annotated[bool, Parameter(negative=())] = False,
    debounce_ms: int = 500,
) -> int:
    """Keep the index of a source directory fresh: index it, then again whenever its files change.

    File events are debounced (a save, a checkout, a formatter's sweep: one run); each run
    re-parses only when a file it reads changed and embeds only changed definitions. Queries
    answer throughout, from the previous index until a run's switch. ``greploom status``
    shows what the watcher is doing. Stops on Ctrl-C or SIGTERM.

    Parameters
    ----------
    path
        The source directory.
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    tier
        Summary tier: ``fast`` or ``enhanced``.
    provider
        Embedding provider; ``none`` keeps a lexical-only index [default: local].
    model
        Embedding model name for ollama/openai.
    ollama_url
        Ollama base URL.
    embedding_url
        OpenAI-compatible server base URL.
    exclude
        Leave out the files this pattern matches (gitignore syntax); repeatable.
    include_vendored
        Index vendored and built trees too.
    debounce_ms
        Milliseconds of quiet after a change before a run starts, 50-60000.
    """
    from greploom.shell.watch import watch_forever

    if not path.is_dir():
        raise UsageError(f"greploom watch needs a source directory; {path} is not one")
    if not 50 <= debounce_ms <= 60_000:
        raise UsageError(f"--debounce-ms must be between 50 and 60000, not {debounce_ms}")
    watch_forever(path, run_config(locals()), debounce_ms=debounce_ms)
    return 0


@app.command
def serve(
    *,
    db: Path | None = None,
    cpg: Path | None = None,
    host: str = "127.0.0.1",
    port: int = 8901,
    transport: Literal["streamable-http", "stdio"] = "streamable-http",
    root: Annotated[list[Path] | None, Parameter(consume_multiple=True, negative_iterable=())] = None,
    allow_host: Annotated[list[str] | None, Parameter(consume_multiple=True, negative_iterable=())] = None,
    resident: bool = True,
    watch: Path | None = None,
    exclude: Annotated[list[str] | None, Parameter(negative_iterable=())] = None,
    include_vendored: Annotated[bool, Parameter(negative=())] = False,
    config_file: ConfigFile = None,
) -> int:
    """Run the MCP server (tools: search_code, get_node_context, trace_calls, context_for_code,
    find_related, index_code).

    While it runs, ``greploom query`` on this machine hands its questions for the same
    index to it and prints the same answer, warm (resident mode): the server writes
    ``INDEX.serve`` beside the index (a loopback port and a token, readable by this user
    only) and removes it when it stops. ``GREPLOOM_RESIDENT=0`` makes a query run cold.

    Parameters
    ----------
    db
        The default index file [default: .greploom/index.db, or GREPLOOM_DB].
    cpg
        A CPG JSON file to expand through instead of the stored graph.
    host
        Address to bind (HTTP). Anything but loopback needs GREPLOOM_API_TOKEN.
    port
        Port to bind (HTTP).
    transport
        ``streamable-http`` (endpoint /mcp) or ``stdio``.
    root
        Directories tools may read and write (repeatable) [default: the working directory];
        the directories of --db and --cpg are always allowed.
    allow_host
        Extra names accepted in the HTTP Host header besides loopback and --host (repeatable).
    resident
        Answer ``greploom query`` for the index too (``--no-resident``: MCP only).
    watch
        A source directory to keep the index fresh from while serving, as ``greploom watch``
        does (index it, then again on every change).
    exclude
        With --watch: leave out the files this pattern matches (gitignore syntax); repeatable.
    include_vendored
        With --watch: index vendored and built trees too.
    config_file
        The collections config the tools' ``collections`` argument names collections of
        [default: the nearest ``greploom.toml``, or ``pyproject.toml`` with ``[tool.greploom]``,
        from the working directory up, read at each such call].
    """
    from greploom.shell.serve import serve_forever

    if (exclude or include_vendored) and watch is None:
        raise UsageError("--exclude and --include-vendored choose what --watch indexes; add --watch DIR")
    serve_forever(
        run_config(locals()),
        cpg=cpg,
        host=host,
        port=port,
        transport=transport,
        roots=tuple(root or ()),
        allow_hosts=tuple(allow_host or ()),
        token=os.environ.get("GREPLOOM_API_TOKEN") or None,
        resident=resident,
        watch=watch,
        config_file=config_file.resolve() if config_file is not None else None,
    )
    return 0
