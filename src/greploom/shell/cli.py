"""The ``greploom`` command line: a thin skin over the index, query and status use cases.

Exit codes (also in the README and ``greploom --help``):

    0  success
    1  other greploom error
    2  bad usage: unknown flag, value out of range, nothing to do
    3  the CPG cannot be read or built
    4  the index is missing, not an index, too new, busy, or damaged
    5  the embedder is unreachable, answered badly, or differs from the index's
    6  permission denied on a file or folder greploom needs
    7  a write was needed on a read-only file system
    8  the disk (or a quota, or the file-size limit) is full
    9  the storage answered with an I/O error
   70  internal error (a bug: please report it; GREPLOOM_DEBUG=1 shows the traceback)
  130  interrupted
"""

from __future__ import annotations

import contextvars
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TextIO

import attrs
from cyclopts import App, Parameter
from cyclopts.exceptions import CycloptsError

import greploom
from greploom.core.errors import GreploomError, UsageError
from greploom.shell.config import GrepLoomConfig

if TYPE_CHECKING:
    from greploom.core.render import SourceMode
    from greploom.shell.answer import QueryAnswer
    from greploom.shell.querying import QueryEngine

EXIT_CODES = [
    line.strip().split(None, 1)
    for line in (__doc__ or "").split("Exit codes", 1)[1].splitlines()
    if line.strip()[:1].isdigit()
]

app = App(
    name="greploom",
    help="The right code for a question, in few tokens, offline.\n\nExit codes:\n\n"
    + "\n".join(f"- **{code}**: {meaning}" for code, meaning in EXIT_CODES),
    help_format="markdown",
    version=greploom.__version__,
    result_action="return_value",
    # cyclopts would turn Ctrl-C into a silent exit 130; main() says "interrupted" instead.
    suppress_keyboard_interrupt=False,
)

Tier = Literal["fast", "enhanced"]
Provider = Literal["local", "ollama", "openai", "none"]


@attrs.frozen
class Invocation:
    """Where a command runs: this process (the defaults), or a resident server answering a CLI.

    A ``greploom serve`` answers a ``greploom query`` for its index by running
    :func:`main` on the very command line, with the client's environment,
    streams of its own, and its warm engines (:mod:`greploom.shell.resident`):
    one code path, so the answer is the cold path's.
    """

    environ: Mapping[str, str] | None = None  # None: os.environ
    engine_for: Callable[[GrepLoomConfig], QueryEngine] | None = None  # None: a fresh engine per query
    out: TextIO | None = None  # None: sys.stdout (looked up at each use, as tests redirect it)
    err: TextIO | None = None


COLD = Invocation()
INVOCATION: contextvars.ContextVar[Invocation] = contextvars.ContextVar("greploom_invocation")


def _invocation() -> Invocation:
    return INVOCATION.get(COLD)


def _out() -> TextIO:
    return _invocation().out or sys.stdout


def _err() -> TextIO:
    return _invocation().err or sys.stderr


def _config(**overrides: Any) -> GrepLoomConfig:
    return GrepLoomConfig.from_env(_invocation().environ).with_overrides(**overrides)


def run_config(flags: Mapping[str, Any]) -> GrepLoomConfig:
    """The configuration of an index run (``index``, ``watch``) from its command's flags."""
    exclude = flags.get("exclude")
    return _config(
        db_path=flags.get("db"),
        tier=flags.get("tier"),
        provider=flags.get("provider"),
        model=flags.get("model"),
        ollama_url=flags.get("ollama_url"),
        embedding_url=flags.get("embedding_url"),
        source_root=flags.get("source_root"),
        exclude=tuple(exclude) if exclude else None,
        include_vendored=flags.get("include_vendored") or None,
    )


@app.command
def index(
    path: Path,
    *,
    db: Path | None = None,
    tier: Tier | None = None,
    provider: Provider | None = None,
    model: str | None = None,
    ollama_url: str | None = None,
    embedding_url: str | None = None,
    source_root: Path | None = None,
    exclude: Annotated[list[str] | None, Parameter(negative_iterable=())] = None,
    include_vendored: Annotated[bool, Parameter(negative=())] = False,
    force: bool = False,
) -> int:
    """Index a CPG JSON file, or a source directory (built with treeloom first).

    A source directory's ``.gitignore`` files (each for its own folder's subtree, as git
    reads them), its ``.greploomignore`` files (same syntax) and ``--exclude`` decide which
    files are indexed; vendored and built trees (``vendor/``, ``third_party/``,
    ``node_modules/``, ``dist/``, ``build/``, ``*.min.js``) are left out unless
    ``--include-vendored``. The run says how many files each left out.

    Parameters
    ----------
    path
        A CPG JSON file written by ``treeloom build``, or a source directory.
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    tier
        Summary tier: ``fast`` (signatures) or ``enhanced`` (signatures, docstrings, calls).
    provider
        Embedding provider; ``none`` builds a lexical-only index [default: local].
    model
        Embedding model name for ollama/openai.
    ollama_url
        Ollama base URL [default: http://127.0.0.1:11434].
    embedding_url
        OpenAI-compatible server base URL (vLLM, TEI, llama.cpp, OpenAI).
    source_root
        For a CPG file: the directory treeloom built it from. treeloom records no source for
        JavaScript, TypeScript, Go, Rust, C and C++; greploom reads it from these files.
    exclude
        For a source directory: leave out the files this pattern matches (gitignore syntax,
        relative to the directory: ``gen/``, ``*.pb.go``, ``/scripts``); repeatable.
    include_vendored
        For a source directory: index vendored and built trees too (``vendor/``,
        ``third_party/``, ``node_modules/``, ``dist/``, ``build/``, minified bundles).
    force
        Re-embed every node, e.g. after switching embedders.
    """
    from greploom.shell.indexing import run_index

    config = run_config(locals())
    from greploom.shell.progress import progress_for

    progress = progress_for(sys.stderr)  # bars on a terminal, a plain line per stage otherwise
    try:
        result = run_index(path, config, progress, force=force)
    finally:
        progress.close()
    for note in result.notes:
        print(f"greploom: {note}", file=sys.stderr)
    for warning in result.warnings:
        print(f"greploom: warning: {warning}", file=sys.stderr)
    print(result.summary_line())
    return 0 if result.failed == 0 else 1


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
        Search hits to expand, 1-100 [default: 5].
    depth
        Graph hops to expand from each hit, 0-4 [default: 1].
    format
        ``context`` (markdown for an LLM) or ``json``.
    node
        Stable keys, CPG ids, or qualified names (or a dotted suffix naming one definition:
        ``Cart.total``) to show instead of searching (repeatable).
    include_source
        Code for every block that fits, graph neighbours too. By default the hits show
        their code (a big one the lines that answer the query, the rest named) and the
        neighbours their signatures and summaries.
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
    """
    from greploom.core.envelope import cli_form
    from greploom.core.render import SourceMode
    from greploom.shell.guard import clip
    from greploom.shell.querying import run_query

    config = _config(
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
    engine_for = _invocation().engine_for
    if like is not None:
        if text or node or cpg or code is not None:
            raise UsageError("--like and query text, --node, --code or --cpg cannot go together; pass one")
        answer = _like_answer(config, like, mode, depth, top_k)
    elif code is not None:
        if text or node or cpg:
            raise UsageError("--code and query text, --node or --cpg cannot go together; pass one")
        answer = _code_answer(config, code, mode, depth)
    elif engine_for is None:
        answer = run_query(config, text, tuple(node or ()), include_source=mode, cpg_path=cpg)
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
        )
    # Packed for the format asked for, before any warning: a budget too small for
    # it is one error line. The JSON is printed as greploom.core.envelope.cli_form
    # counts it (indented by two, one final newline).
    output = cli_form(answer.envelope) if format == "json" else answer.text
    for unknown in answer.unknown_nodes:
        print(f"greploom: warning: unknown node {clip(unknown)}", file=_err())
    for place in answer.places_not_found:
        print(f"greploom: warning: no indexed file matches {place}; answered as words", file=_err())
    _out().write(output)
    return 0


@app.command
def status(*, db: Path | None = None, format: Literal["text", "json"] = "text") -> int:
    """Show what an index holds: counts, embedder, tier, CPG, age.

    Parameters
    ----------
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    format
        ``text`` or ``json``.
    """
    from greploom.shell.status import index_status

    info = index_status(_config(db_path=db).db_path)
    if format == "json":
        print(json.dumps(info, indent=2))
    else:
        width = max(len(k) for k in info)
        for key, value in info.items():
            print(f"{key.ljust(width)}  {value}")
    return 0


@app.command
def check(*, db: Path | None = None, format: Literal["text", "json"] = "text") -> int:
    """Check an index: file, structure, completeness, vectors; print the command that repairs it.

    Exits 0 when the index is sound, else with the problem's exit code (4 for a damaged or
    incomplete index). Opens the index read-only and changes nothing.

    Parameters
    ----------
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    format
        ``text`` or ``json``.
    """
    from greploom.shell.check import check_index

    report = check_index(_config(db_path=db).db_path)
    if format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(report.text())
    return report.exit_code


# The long-running commands (serve, watch) and `path` live in their own modules, registered on `app` here.

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

    engine_for = _invocation().engine_for
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


from greploom.shell import cli_path, cli_serve  # noqa: E402, F401


def _one_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return " ".join(lines) if lines else "invalid command line"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a command, turn every expected failure into one line and an exit code."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(tokens, exit_on_error=False, print_error=False, help_on_error=False)
    except CycloptsError as exc:
        print(f"greploom: error: {_one_line(str(exc))} (see `greploom --help`)", file=_err())
        return 2
    except GreploomError as exc:
        print(f"greploom: error: {exc}", file=_err())
        return exc.exit_code
    except KeyboardInterrupt:
        print("greploom: interrupted", file=_err())
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine's condition (a full disk under stdout, ...), not a bug
        from greploom.shell.faults import from_os_error

        error = from_os_error(exc, Path(exc.filename or "."), "use")
        print(f"greploom: error: {error}", file=_err())
        return error.exit_code
    except Exception as exc:
        if os.environ.get("GREPLOOM_DEBUG"):
            raise
        print(
            f"greploom: internal error: {type(exc).__name__}: {_one_line(str(exc))} "
            "(a bug; GREPLOOM_DEBUG=1 shows the traceback)",
            file=_err(),
        )
        return 70
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
