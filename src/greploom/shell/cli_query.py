"""``greploom query``: the code that answers a question, packed to a token budget, printed.

Registered on :data:`greploom.shell.cli.app`, which imports this module; the
exit codes, the error lines and the configuration rules are that module's.
The answers: a search or a node lookup (greploom.shell.querying, in this
process or on a resident server's warm engine: :class:`~greploom.shell.cli.Invocation`),
``--code`` (the definitions a piece of code uses: greploom.shell.code_answer)
and ``--like`` (the definitions nearest one: greploom.shell.related).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from cyclopts import Parameter

from greploom.core.errors import UsageError
from greploom.shell.cli import (
    CollectionNames,
    ConfigFile,
    Provider,
    app,
    command_config,
    err,
    invocation,
    out,
)

if TYPE_CHECKING:
    from greploom.core.render import SourceMode
    from greploom.shell.answer import QueryAnswer
    from greploom.shell.config import GrepLoomConfig


@app.command
def query(
    text: str | None = None,
    *,
    db: Path | None = None,
    cpg: Path | None = None,
    budget: int | None = None,
    top_k: int | None = None,
    depth: int | None = None,
    format: Literal["context", "json"] = "context",
    node: Annotated[list[str] | None, Parameter(consume_multiple=True, negative_iterable=())] = None,
    include_source: Annotated[bool, Parameter(negative=())] = False,
    no_source: Annotated[bool, Parameter(negative=())] = False,
    ranking: Literal["signals", "plain"] | None = None,
    context: Literal["fixed", "adaptive"] | None = None,
    provider: Provider | None = None,
    model: str | None = None,
    ollama_url: str | None = None,
    embedding_url: str | None = None,
    code: Annotated[str | None, Parameter(allow_leading_hyphen=True)] = None,
    like: str | None = None,
    session: str | None = None,
    fresh: Annotated[bool, Parameter(negative=())] = False,
    collection: CollectionNames = None,
    config_file: ConfigFile = None,
) -> int:
    """Search the index and print the code that answers TEXT, packed to a token budget.

    Parameters
    ----------
    text
        What you are looking for: a question, a symbol name, or a place
        (`adapters.py:412`, a pasted traceback): places answer with the
        definition around their line first.
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    cpg
        Expand through this CPG JSON file instead of the graph stored in the index.
    budget
        Token budget for the whole answer as printed, header included (cl100k_base); the JSON
        envelope is packed to it whole. Too small for the answer: an error naming the smallest
        that answers [default: 8192].
    top_k
        Search hits to show, 1-100 (from the third on, briefly: the definition line and the
        lines that answer) [default: 10].
    depth
        Graph hops to expand from each hit, 0-4 [default: 1].
    format
        ``context`` (markdown for an LLM) or ``json``.
    node
        Stable keys, CPG ids, or qualified names (or a dotted suffix naming one definition:
        ``Cart.total``) to show instead of searching (repeatable).
    include_source
        Code for every block that fits, graph neighbours too. By default the hits show
        their code (a big one the lines that answer the query, the rest named), the first
        hit's neighbours their signatures and summaries, the others' one-line references.
    no_source
        No code at all: signatures and summaries only.
    ranking
        ``signals`` (code-aware re-ranking) or ``plain`` (RRF of BM25 and vectors) [default: signals].
    context
        ``fixed`` (top-k hits) or ``adaptive`` (the scores decide how many hits) [default: fixed].
        Either way a hit too long for the budget left is shown shorter: its summary, else its
        one-line reference (the header counts them).
    provider
        Must match the index's embedder; ``none`` searches lexically only.
    model
        Must match the index's embedding model.
    ollama_url
        Ollama base URL, when the index was embedded with ollama.
    embedding_url
        OpenAI-compatible base URL, when the index was embedded with openai.
    code
        Instead of TEXT: code being written or read, ``-`` (stdin) or ``FILE:LINE[-LINE]``;
        the answer is the definitions the names it uses refer to (the definition around
        FILE:LINE is its own and left out) [depth default: 0].
    like
        Instead of TEXT: a definition (a stable key, a CPG id, or a qualified name naming one);
        the answer is the definitions nearest it in meaning (its own vector against the others',
        or its summary as words in an index without vectors) and in the graph (its callers,
        callees, siblings in its class and file), never itself [top-k default: 8, depth: 0].
    session
        A name shared by related queries (any name; kept beside the index for an hour): a
        follow-up ("what are the arguments to that?") leans toward what the session has been
        about, and blocks it already received whole come as one-line references.
    fresh
        With --session: forget what the session remembers first (a new topic).
    collection
        Search this collection of the config file (repeatable): several are searched as one,
        one ranking and one budget, each block naming its collection. Instead of --db.
    config_file
        The config file naming the collections [default: the nearest ``greploom.toml``, or
        ``pyproject.toml`` with ``[tool.greploom]``, here or above]; without -c: all of them.
    """
    from greploom.core.envelope import cli_form
    from greploom.core.render import SourceMode
    from greploom.shell.guard import clip
    from greploom.shell.querying import run_query

    config = command_config(
        db_path=db,
        budget=budget,
        top_k=top_k,
        depth=depth,
        ranking=ranking,
        context=context,
        provider=provider,
        model=model,
        ollama_url=ollama_url,
        embedding_url=embedding_url,
    )
    if cpg is not None:
        from greploom.shell.serde import check_cpg_file

        if not cpg.exists():
            raise UsageError(f"--cpg {cpg}: no such file")
        check_cpg_file(cpg)  # a FIFO or a device would never end
    if include_source and no_source:
        raise UsageError("--include-source and --no-source contradict each other; pass one")
    mode = SourceMode.ALL if include_source else SourceMode.NONE if no_source else SourceMode.HITS
    if fresh and session is None:
        raise UsageError("--fresh forgets a session's memory: pass it with --session NAME")
    if session is not None and (like is not None or code is not None):
        raise UsageError("--session shapes searches and --node lookups; --like and --code take none")
    engine_for = invocation().engine_for
    if collection or config_file is not None:
        if db is not None or cpg is not None or like is not None or code is not None or session is not None:
            raise UsageError(
                "-c/--config search a config file's collections; --db, --cpg, --like, --code and "
                "--session take one index: pass those without -c"
            )
        from greploom.shell.cli_collections import collections_answer

        answer = collections_answer(config, config_file, collection or (), text, tuple(node or ()), mode=mode)
    elif like is not None:
        if text or node or cpg or code is not None:
            raise UsageError("--like and query text, --node, --code or --cpg cannot go together; pass one")
        answer = _like_answer(config, like, mode, depth, top_k)
    elif code is not None:
        if text or node or cpg:
            raise UsageError("--code and query text, --node or --cpg cannot go together; pass one")
        answer = _code_answer(config, code, mode, depth)
    elif engine_for is None:
        _collections_hint(config, db is None and cpg is None)
        answer = run_query(
            config, text, tuple(node or ()), include_source=mode, cpg_path=cpg, session=session, fresh=fresh
        )
    else:  # a resident server's warm engine, given every setting the cold path takes from config
        answer = engine_for(config).query(
            text,
            tuple(node or ()),
            budget=config.budget,
            top_k=config.top_k,
            depth=config.depth,
            ranking=config.ranking,
            context=config.context,
            include_source=mode,
            cpg_path=cpg,
            db_named=config.db_path,
            session=session,
            fresh=fresh,
        )
    # Packed for the format asked for, before any warning: a budget too small for
    # it is one error line. The JSON is printed as greploom.core.envelope.cli_form
    # counts it (indented by two, one final newline).
    output = cli_form(answer.envelope) if format == "json" else answer.text
    for unknown in answer.unknown_nodes:
        print(f"greploom: warning: unknown node {clip(unknown)}", file=err())
    for place in answer.places_not_found:
        print(f"greploom: warning: no indexed file matches {place}; answered as words", file=err())
    out().write(output)
    return 0


def _code_answer(config: GrepLoomConfig, spec: str, mode: SourceMode, depth: int | None) -> QueryAnswer:
    """The answer of ``query --code SPEC``: code from stdin (``-``) or a file's lines.

    Always in this process (greploom.shell.resident_client.COLD_ONLY): stdin
    and the working directory are the caller's.
    """
    from greploom.shell.code_context import MAX_CODE_BYTES, code_at, read_place
    from greploom.shell.querying import QueryEngine

    place = None
    if spec == "-":
        code = sys.stdin.read(MAX_CODE_BYTES + 1)
    else:
        place = read_place(spec)
        code = code_at(place, Path.cwd())
    engine = QueryEngine(config, one_shot=True)
    try:
        return engine.code_context(code, place, depth=depth or 0, include_source=mode)
    finally:
        engine.close()


def _like_answer(
    config: GrepLoomConfig, like: str, mode: SourceMode, depth: int | None, top_k: int | None
) -> QueryAnswer:
    """The answer of ``query --like KEY``: on a resident server's warm engine, or a fresh one."""
    from greploom.shell.querying import QueryEngine
    from greploom.shell.related import related_answer

    engine_for = invocation().engine_for
    engine = engine_for(config) if engine_for is not None else QueryEngine(config, one_shot=True)
    try:
        return related_answer(
            engine,
            like,
            budget=config.budget,
            top_k=top_k,
            depth=depth or 0,
            include_source=mode,
            db_named=config.db_path,
        )
    finally:
        if engine_for is None:
            engine.close()


def _collections_hint(config: GrepLoomConfig, default_db: bool) -> None:
    """With no index at the default file and a config file naming collections here or above,
    say to search those (`-c NAME`) rather than only that the index is missing."""
    if not default_db or config.db_path.exists():
        return
    from greploom.core.errors import StoreError
    from greploom.shell.collections import find_config

    found = find_config(Path.cwd().resolve())
    if found is not None:
        raise StoreError(
            f"no index at {config.db_path}; {found} names collections: search them with -c NAME "
            "(index them with `greploom index`), or pass --db"
        )
