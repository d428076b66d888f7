"""Context for a piece of code: read it, find the definitions its names refer to, rank them.

The code comes as text (``query --code -`` reads stdin; the MCP tool
``context_for_code`` takes it as an argument) or as a place in a file
(``--code FILE:LINE[-LINE]``): then the lines are read from the file, the
definition around them is the snippet's own (never its own context), and
the definitions it calls (greploom's call links, stored in the index) are
what the code there refers to. The ranking is the core's
(:mod:`greploom.core.snippet`).
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from greploom.core.errors import UsageError
from greploom.core.locations import Location
from greploom.core.snippet import Definition, Ranked, Snippet, rank_definitions, top
from greploom.shell.store import IndexStore

CODE_CONTEXT_TOP = 8  # definitions looked up at least (top_k when larger): the budget cuts the rest
MAX_CODE_BYTES = 200_000  # a snippet, or a few files' worth; more is not a snippet
_PLACE = re.compile(r"^(?P<file>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")


@attrs.frozen
class CodePlace:
    """Lines of a file given as the code (``FILE:LINE[-LINE]``), 1-based and inclusive."""

    file: str
    start: int
    end: int


@attrs.frozen
class Gathered:
    """The ranked definitions, and the snippet's own ones left out."""

    ranked: tuple[Ranked, ...]
    own: tuple[str, ...]
    resolved: int  # how many of the snippet's names some definition bears


def read_place(spec: str) -> CodePlace:
    """``FILE:LINE`` or ``FILE:LINE-LINE``, else a usage error saying what is accepted."""
    match = _PLACE.match(spec)
    if match is None:
        raise UsageError(f"--code takes - (stdin) or FILE:LINE[-LINE], not {spec!r}")
    start = int(match["start"])
    end = int(match["end"] or start)
    if start < 1 or end < start:
        raise UsageError(f"--code {spec}: lines are 1-based and the range must not run backwards")
    return CodePlace(match["file"], start, end)


def code_at(place: CodePlace, base: Path) -> str:
    """The lines ``place`` names, read from the file (relative to ``base`` when not absolute)."""
    path = Path(place.file) if Path(place.file).is_absolute() else base / place.file
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CODE_BYTES * 50)
    except OSError as exc:
        raise UsageError(f"--code {place.file}: cannot read it ({exc.strerror or exc})") from exc
    lines = data.decode("utf-8", errors="replace").splitlines()
    if place.start > len(lines):
        raise UsageError(f"--code {place.file}:{place.start}: the file has {len(lines)} lines")
    return "\n".join(lines[place.start - 1 : place.end])


def check_code(code: str) -> str:
    """The code, or a usage error when there is none or too much."""
    if not code.strip():
        raise UsageError("the code is empty; give the lines to find context for")
    if len(code.encode("utf-8", errors="replace")) > MAX_CODE_BYTES:
        raise UsageError(f"the code is over {MAX_CODE_BYTES:,} bytes; give the lines being edited, not files")
    return code


def gather(store: IndexStore, snippet: Snippet, place: CodePlace | None, limit: int) -> Gathered:
    """The definitions the snippet's names refer to, best first, at most ``limit``."""
    rows = store.definitions_with_names(snippet.names())
    candidates = [Definition(key, name, qualname, file, kind) for key, name, qualname, file, kind in rows]
    own: tuple[str, ...] = ()
    callees: frozenset[str] = frozenset()
    origin_file = None
    if place is not None:
        lines = sorted({place.start, place.end})
        located = store.locate([Location(place.file.replace("\\", "/"), line) for line in lines])
        own = tuple(dict.fromkeys(key for _, keys in located for key in keys))
        contexts = store.contexts(own)
        callees = frozenset(ref.key for ctx in contexts.values() for ref in ctx.structure.callees)
        files = {ctx.ref.file for ctx in contexts.values()}
        origin_file = min(files) if files else None
    ranked = rank_definitions(
        snippet,
        candidates,
        store.definition_count(),
        origin_file=origin_file,
        callees=callees,
        excluded=frozenset(own),
    )
    resolved = len({c.name for c in candidates})
    return Gathered(top(ranked, limit), own, resolved)
