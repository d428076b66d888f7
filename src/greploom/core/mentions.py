"""Docs linked to code: which definitions, files and config sections a doc section names.

A section of a README or a guide that names ``Session.send`` is about that
method; a hit on the section should bring the method's code, and a hit on
the method its documentation. Links are made only where the naming is
unambiguous, as call links are (greploom.core.calls): a wrong link spends an
answer's budget on code the doc is not about.

What a section names (:func:`named_in`):

- what its parser marked as code (Markdown's `` `x` ``, reStructuredText's
  ````x```` and ``:func:`x```): a span of one name, that name; a longer one
  (a command, an expression), the dotted names and paths it holds;
- in its plain text, only what cannot be a word: dotted names
  (``Session.send``), calls (``send()``), ``snake_case`` and ``CamelCase``
  identifiers with an inner capital, and paths with a folder and an extension.

How a name resolves (:func:`resolve_mentions`) against the targets (code
definitions with their dotted qualified names; config sections with their
dotted key paths):

- a path names the module of the one file it is, or ends (``cli.py`` for
  ``src/app/cli.py``);
- a dotted name names the one target whose dotted name is it or ends with it;
- a bare name names the one target it is the last part of;
- two or more candidates, or a name shorter than ``MIN_NAME`` letters: no link.

Laws (tests/properties/test_mentions.py): a link's target is among the
targets; a name matching two targets links neither; a section names each
target at most once, in order of first mention, at most ``MAX_MENTIONS``;
every reverse link (:func:`documented_by`) is a link read backwards, a
target named by at most ``MAX_DOCUMENTED_BY`` sections has them all, and a
section naming fewer targets comes before one naming more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

MAX_MENTIONS = 8  # links from one section: a changelog naming 200 functions is not about each
MAX_DOCUMENTED_BY = 5  # doc sections linked from one definition
MIN_NAME = 3

_IDENT = r"[A-Za-z_$][\w$]*"
_DOTTED = re.compile(rf"(?<![\w.$/]){_IDENT}(?:\.{_IDENT})+(?![\w$])")
_CALL = re.compile(rf"(?<![\w.$]){_IDENT}(?=\(\))")
_SNAKE = re.compile(r"(?<![\w.$/])[A-Za-z]\w*_\w*[A-Za-z0-9](?![\w$])")
_CAMEL = re.compile(r"(?<![\w.$/])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w$])")
_PATH = re.compile(r"(?<![\w.$/])(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}(?![\w/])")
# In a code span: a path, or a dotted name; never the pieces of a flag (`--max-retries`).
_IN_CODE = re.compile(
    rf"(?<![\w.$-])(?:(?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{{1,8}}(?![\w(.$])|{_IDENT}(?:\.{_IDENT})*)"
)


@attrs.frozen
class Target:
    """Something a doc can name: a definition (its qualified name) or a config section (its keys)."""

    key: str
    dotted: str  # pkg.mod.Class.method, or services.worker for a config section
    file: str
    is_module: bool = False


def named_in(text: str, code_spans: Iterable[str] = ()) -> tuple[str, ...]:
    """The names a section's text and its code spans hold, in order of first appearance."""
    found: list[tuple[int, str]] = []
    for order, span in enumerate(code_spans):
        inner = re.sub(r"^:[\w:.-]+:`|`$", "", span.strip())  # :func:`x` when the parser kept the role
        for m in _IN_CODE.finditer(inner):
            name = m.group(0).rstrip(".")
            # A span of one name (`Cart`) names it; in a command or an expression
            # (`pip install shop`) a bare word is a word: only its dotted names and paths count.
            if " " in inner.strip() and "." not in name and "/" not in name:
                continue
            found.append((-1_000_000 + order, name))
    for pattern in (_PATH, _DOTTED, _CALL, _SNAKE, _CAMEL):
        found.extend((m.start(), m.group(0)) for m in pattern.finditer(text))
    out: list[str] = []
    for _, name in sorted(found, key=lambda p: p[0]):
        if name not in out:
            out.append(name)
    return tuple(out)


@attrs.frozen
class _Lookup:
    by_dotted: Mapping[str, tuple[str, ...]]  # every dotted suffix -> target keys
    by_file: Mapping[str, tuple[str, ...]]  # every path suffix -> module keys


def _lookup(targets: Sequence[Target], names: Iterable[str] | None = None) -> _Lookup:
    """Every dotted suffix and path suffix of the targets; with ``names``, only those a name
    can be looked up by (:func:`_resolve`): a code base's definitions are many, the names its
    docs hold few."""
    wanted: set[str] | None = None
    if names is not None:
        wanted = set()
        for name in names:
            wanted.update((name, name.removesuffix("()"), name.lstrip("./")))
        last = {w.rsplit(".", 1)[-1] for w in wanted}
        ends = {w.rsplit("/", 1)[-1] for w in wanted}
    dotted: dict[str, list[str]] = {}
    files: dict[str, list[str]] = {}
    for t in targets:
        parts = t.dotted.split(".")
        if wanted is None or parts[-1] in last:
            for i in range(len(parts)):
                suffix = ".".join(parts[i:])
                if wanted is None or suffix in wanted:
                    dotted.setdefault(suffix, []).append(t.key)
        if t.is_module and (wanted is None or t.file.rsplit("/", 1)[-1] in ends):
            segments = t.file.split("/")
            for i in range(len(segments)):
                path = "/".join(segments[i:])
                if wanted is None or path in wanted:
                    files.setdefault(path, []).append(t.key)
    return _Lookup(
        {k: tuple(dict.fromkeys(v)) for k, v in dotted.items()},
        {k: tuple(dict.fromkeys(v)) for k, v in files.items()},
    )


def _resolve(name: str, lookup: _Lookup) -> str | None:
    if len(name.replace(".", "").replace("/", "")) < MIN_NAME:
        return None
    if "/" in name or (name in lookup.by_file and name not in lookup.by_dotted):
        found = lookup.by_file.get(name.lstrip("./"), ())
    else:
        found = lookup.by_dotted.get(name.removesuffix("()"), ())
    return found[0] if len(found) == 1 else None


def resolve_mentions(
    sections: Sequence[tuple[str, Sequence[str]]], targets: Sequence[Target]
) -> dict[str, tuple[str, ...]]:
    """Each section key's linked target keys (only sections with a link), from the names it holds."""
    lookup = _lookup(targets, (n for _, names in sections for n in names))
    out: dict[str, tuple[str, ...]] = {}
    for key, names in sections:
        linked: list[str] = []
        for name in names:
            target = _resolve(name, lookup)
            if target is not None and target != key and target not in linked:
                linked.append(target)
                if len(linked) == MAX_MENTIONS:
                    break
        if linked:
            out[key] = tuple(linked)
    return out


def documented_by(mentions: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """The reverse of the links: each target's doc sections, at most ``MAX_DOCUMENTED_BY``, the
    most focused first (naming the fewest targets: a guide's section on it before a changelog
    entry naming eight), then by key."""
    back: dict[str, list[str]] = {}
    for doc in sorted(mentions, key=lambda d: (len(mentions[d]), d)):
        for target in mentions[doc]:
            back.setdefault(target, []).append(doc)
    return {t: tuple(docs[:MAX_DOCUMENTED_BY]) for t, docs in back.items()}
