"""The ``greploom`` command line: a thin skin over the index, query and status use cases.

Exit codes (also in the README and ``greploom --help``):

    0  success
    1  other greploom error
    2  bad usage: unknown flag, value out of range, nothing to do
    3  the CPG cannot be read or built
    4  the index is missing, not an index, too new, busy, or damaged
    5  the embedder is unreachable, answered badly, or differs from the index's; or ask's chat model failed
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


def invocation() -> Invocation:
    """Where the command runs now: a resident server's invocation, else this process (:data:`COLD`)."""
    return INVOCATION.get(COLD)


def out() -> TextIO:
    """The command's standard output: the invocation's, else sys.stdout as it is now."""
    return invocation().out or sys.stdout


def err() -> TextIO:
    """The command's standard error: the invocation's, else sys.stderr as it is now."""
    return invocation().err or sys.stderr


def command_config(**overrides: Any) -> GrepLoomConfig:
    """A command's configuration: the invocation's environment, then the command's flags."""
    return GrepLoomConfig.from_env(invocation().environ).with_overrides(**overrides)


def run_config(flags: Mapping[str, Any]) -> GrepLoomConfig:
    """The configuration of an index run (``index``, ``watch``) from its command's flags."""
    exclude, include = flags.get("exclude"), flags.get("include")
    config = command_config(
        db_path=flags.get("db"),
        tier=flags.get("tier"),
        provider=flags.get("provider"),
        model=flags.get("model"),
        ollama_url=flags.get("ollama_url"),
        embedding_url=flags.get("embedding_url"),
        source_root=flags.get("source_root"),
        exclude=tuple(exclude) if exclude else None,
        include=tuple(include) if include else None,
        include_vendored=flags.get("include_vendored") or None,
    )
    environ = invocation().environ
    if flags.get("tier") is None and not (os.environ if environ is None else environ).get("GREPLOOM_TIER"):
        from greploom.shell.index_state import recorded_tier

        config = config.with_overrides(tier=recorded_tier(config.db_path))  # keep the index's
    return config


CollectionNames = Annotated[list[str] | None, Parameter(name=["--collection", "-c"], negative_iterable=())]
ConfigFile = Annotated[Path | None, Parameter(name="--config")]


@app.command
def index(
    path: Path | None = None,
    *,
    collection: CollectionNames = None,
    config_file: ConfigFile = None,
    db: Path | None = None,
    tier: Tier | None = None,
    provider: Provider | None = None,
    model: str | None = None,
    ollama_url: str | None = None,
    embedding_url: str | None = None,
    source_root: Path | None = None,
    exclude: Annotated[list[str] | None, Parameter(negative_iterable=())] = None,
    include: Annotated[list[str] | None, Parameter(negative_iterable=())] = None,
    include_vendored: Annotated[bool, Parameter(negative=())] = False,
    force: bool = False,
) -> int:
    """Index a CPG JSON file, or a source directory (built with treeloom first), or without PATH
    the collections a ``greploom.toml`` (or ``[tool.greploom]`` in ``pyproject.toml``) names.

    A source directory's ``.gitignore`` files (each for its own folder's subtree, as git
    reads them), its ``.greploomignore`` files (same syntax) and ``--exclude`` decide which
    files are indexed; vendored and built trees (``vendor/``, ``third_party/``,
    ``node_modules/``, ``dist/``, ``build/``, ``*.min.js``) are left out unless
    ``--include-vendored``. The run says how many files each left out.

    Parameters
    ----------
    path
        A CPG JSON file written by ``treeloom build``, or a source directory. Without it: every
        collection of the nearest config file (here or above), each into its own index.
    collection
        Without PATH: index only this collection of the config file (repeatable).
    config_file
        Without PATH: the config file naming the collections [default: the nearest
        ``greploom.toml``, or ``pyproject.toml`` with ``[tool.greploom]``, here or above].
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
    include
        For a source directory: index only the files this pattern matches (gitignore syntax:
        ``*.py``, ``src/**/*.go``); repeatable, a file matching any one is kept.
    include_vendored
        For a source directory: index vendored and built trees too (``vendor/``,
        ``third_party/``, ``node_modules/``, ``dist/``, ``build/``, minified bundles).
    force
        Re-embed every node, e.g. after switching embedders.
    """
    if path is None:
        from greploom.shell.cli_collections import index_collections

        return index_collections(locals())
    if collection or config_file is not None:
        raise UsageError("-c and --config index a config file's collections: drop PATH, or drop them")
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

    info = index_status(command_config(db_path=db).db_path)
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

    report = check_index(command_config(db_path=db).db_path)
    if format == "json":
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(report.text())
    return report.exit_code


# `query`, `ask`, `path` and the long-running commands (serve, watch) live in their own modules, registered on
# `app` here.
from greploom.shell import cli_ask, cli_path, cli_query, cli_serve  # noqa: E402, F401


def _one_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return " ".join(lines) if lines else "invalid command line"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a command, turn every expected failure into one line and an exit code."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(tokens, exit_on_error=False, print_error=False, help_on_error=False)
    except CycloptsError as exc:
        print(f"greploom: error: {_one_line(str(exc))} (see `greploom --help`)", file=err())
        return 2
    except GreploomError as exc:
        print(f"greploom: error: {exc}", file=err())
        return exc.exit_code
    except KeyboardInterrupt:
        print("greploom: interrupted", file=err())
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine's condition (a full disk under stdout, ...), not a bug
        from greploom.shell.faults import from_os_error

        error = from_os_error(exc, Path(exc.filename or "."), "use")
        print(f"greploom: error: {error}", file=err())
        return error.exit_code
    except Exception as exc:
        if os.environ.get("GREPLOOM_DEBUG"):
            raise
        print(
            f"greploom: internal error: {type(exc).__name__}: {_one_line(str(exc))} "
            "(a bug; GREPLOOM_DEBUG=1 shows the traceback)",
            file=err(),
        )
        return 70
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
