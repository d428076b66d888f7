"""Code locations in a query: the definition a ``path:line`` points at.

Agents paste what tools print: a traceback frame (``File ".../adapters.py",
line 412, in send``), a compiler, linter or test-runner position
(``src/app.py:88``, ``adapters.py:412:9``), a JavaScript stack frame
(``at parse (/app/lib/command.js:1043:12)``) or a bare file
(``sessions.py``). Each names a place; the answer is the innermost
definition around that line, or the file's module when no line is given.

The path as written rarely equals the indexed one: a traceback has the
absolute path of an installed copy, the index has paths relative to the
code base's root. A path matches an indexed file when their trailing
components agree; the files agreeing on the most components win
(``requests/adapters.py`` is ``adapters.py`` in an index of
``src/requests``, and ``sansio/app.py`` beats ``app.py`` for
``flask/sansio/app.py``). Only files the index holds count, so a word like
``e.g.`` or ``Session.send`` names no place.

Laws (tests/properties/test_locations.py): a ``path:line`` written anywhere
in a query is found with its line, whatever punctuation surrounds it;
traceback frames come innermost first (Python prints the most recent call
last); a path matches only files it is a suffix of, or that are a suffix
of it, or that agree with it on two trailing components, and never one
that agrees on fewer components than another match; the located
definition contains the line, and no definition containing it is nested
inside it; a module contains every line of its file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import attrs

MAX_LOCATIONS = 8  # places one query may name: a pasted traceback, not a whole log

_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)')
_WITH_LINE = re.compile(r"^(.+?):(\d+)(?::\d+)?$")
# What wraps a place in prose: brackets and quotes before it; brackets, quotes and
# sentence punctuation after it ("see (cart.py:41:12)?", "in app.py.").
_LEADING = re.compile(r"^[(\[{<'\"`]+")
_TRAILING = re.compile(r"[)\]}>,;:'\"`?!.]+$")


@attrs.frozen
class Location:
    """A place a query names: a path as written ('/'-separated) and a 1-based line, if any."""

    path: str
    line: int | None = None


@attrs.frozen
class Span:
    """An indexed definition's place: its key, kind and lines (``end`` None when unknown)."""

    key: str
    kind: str
    line: int
    end: int | None


def query_locations(text: str) -> tuple[Location, ...]:
    """The places a query names, in the order a reader should see them, at most ``MAX_LOCATIONS``.

    Traceback frames first, innermost (last printed) first; then every
    ``path:line[:col]`` and every bare path-like word (one with a ``.`` or a
    ``/``), in query order. Which of these are files of the index is for
    :func:`match_files` to say.
    """
    found: list[Location] = []
    frames = list(_FRAME.finditer(text))
    found.extend(Location(_normal(m.group(1)), int(m.group(2))) for m in reversed(frames))
    rest = _FRAME.sub(" ", text)
    for word in rest.split():
        token = _TRAILING.sub("", _LEADING.sub("", word))
        with_line = _WITH_LINE.match(token)
        if with_line:
            path, line = with_line.group(1), int(with_line.group(2))
            if _path_like(path) and line > 0:
                found.append(Location(_normal(path), line))
        elif _path_like(token):
            found.append(Location(_normal(token)))
    return tuple(dict.fromkeys(found))[:MAX_LOCATIONS]


def _path_like(token: str) -> bool:
    return bool(token) and ("/" in token or "\\" in token or "." in token.strip("."))


def _normal(path: str) -> str:
    return path.replace("\\", "/")


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def match_files(path: str, files: Iterable[str]) -> tuple[str, ...]:
    """The indexed files ``path`` names: those agreeing with it on the most trailing components.

    A file matches when one of the two paths is a suffix of the other
    (``adapters.py`` in an index of ``src/requests`` for an installed copy's
    ``/venv/.../requests/adapters.py``), or when they agree on two trailing
    components at least (``src/requests/adapters.py`` for that same path).
    A file whose folder differs right above the name (``httpx/adapters.py``
    for ``requests/adapters.py``) is another file. Names compare exactly:
    code bases live on case-sensitive file systems. Among the matches, those
    agreeing on the most components win, a whole suffix before a partial
    one. Sorted, for a stable order.
    """
    wanted = _parts(path)
    best: tuple[int, bool] | None = None
    matched: list[str] = []
    for file in files:
        have = _parts(file)
        agree = 0
        for mine, theirs in zip(reversed(wanted), reversed(have), strict=False):
            if mine != theirs:
                break
            agree += 1
        whole = agree in (len(have), len(wanted))
        if agree == 0 or not (whole or agree >= 2):
            continue
        rank = (agree, whole)
        if best is None or rank > best:
            best, matched = rank, []
        if rank == best:
            matched.append(file)
    return tuple(sorted(matched))


def contains(span: Span, line: int) -> bool:
    """Whether a definition spans ``line``: a module spans its whole file; a definition
    whose end is unknown spans only its first line."""
    if span.kind == "module":
        return line >= 1
    end = span.end if span.end is not None else span.line
    return span.line <= line <= end


def innermost(spans: Sequence[Span], line: int | None) -> Span | None:
    """The definition a location points at: the innermost one around ``line``, or with no
    line the module; None when nothing fits."""
    if line is None:
        modules = sorted((s for s in spans if s.kind == "module"), key=lambda s: s.key)
        return modules[0] if modules else None
    around = [s for s in spans if contains(s, line)]
    if not around:
        return None
    # A module only when no definition in it spans the line; else the latest
    # start is the innermost (definitions nest, they do not overlap); on the
    # same line the shorter one, then a function before a class.
    order = {"function": 0, "class": 1}
    return min(
        around,
        key=lambda s: (
            s.kind == "module",
            -s.line,
            (s.end if s.end is not None else s.line) - s.line,
            order.get(s.kind, 2),
            s.key,
        ),
    )
