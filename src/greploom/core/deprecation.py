"""Deprecated code, as the code itself marks it.

Libraries keep their deprecated API beside the one that replaced it, often in
the same file under a related name (pydantic's ``BaseModel.dict`` beside
``BaseModel.model_dump``), and a question in words about what both do finds
the old one as readily as the new. Legacy trees (greploom.core.legacy) catch
old code by where it lives; this catches it by what it says of itself, in
each language's convention:

- a decorator or annotation named ``deprecated`` (PEP 702's
  ``@warnings.deprecated``, ``@typing_extensions.deprecated(...)``, the
  ``deprecated`` package's ``@deprecated``, Java's ``@Deprecated``, Rust's
  ``#[deprecated]``);
- a doc saying so: a ``@deprecated`` tag (JSDoc, TSDoc, Javadoc), a
  ``.. deprecated::`` directive (Sphinx), a paragraph opening with
  ``Deprecated:`` (Go's convention) or ``Deprecated.`` / ``DEPRECATED``;
- a Python body whose first statement (after its docstring) is an
  unconditional ``warnings.warn(...)`` of a deprecation category
  (``DeprecationWarning``, ``PendingDeprecationWarning`` or a category
  named ``...Deprecated...``). A warning inside a branch is not enough: it
  usually deprecates one way of calling, not the definition
  (``if positional: warnings.warn(...)``).

The summary states it as a line, ``deprecated: <what the code says>``, so a
reader sees it too. A note usually names what replaces the definition
(```dict` is deprecated; use `model_dump` instead``): :func:`successor_names`
reads those names, the shell looks them up, and the ranking lets the
successor stand where the deprecated definition was found, above it
(:func:`inherited_ranks`, greploom.core.ranking), unless the question asks
about old code.

Laws (tests/properties/test_deprecation.py): a definition with none of
these marks is never deprecated; each mark alone makes it so; a warning in a
branch, or of another category, does not; the note is one line; a successor
is never the definition itself, and inherits a rank only ever for the better.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

PREFIX = "deprecated"  # the summary line: "deprecated: <reason>", or "deprecated" alone
NOTE_CHARS = 120  # the reason, at most
_DECORATOR = re.compile(r"^@?\s*(?:[\w.]+\.)?deprecated\b", re.IGNORECASE)
_ANNOTATION = re.compile(r"^\s*(?:@Deprecated\b|#\[deprecated\b)", re.MULTILINE)
# A tag anywhere in a doc comment (JSDoc lines may keep their "*"); the prose forms only
# unindented, as a paragraph of their own: an indented "Deprecated: use y" in an argument's
# description deprecates that argument, not the definition.
_DOC_TAG = re.compile(
    r"^(?:\s*\*?\s*@deprecated\b|\.\.\s+deprecated::|Deprecated:|Deprecated\.|DEPRECATED\b)(.*)$",
    re.MULTILINE,
)
_STRING = re.compile(r"""(?:[rRbBuU]{0,2})(['"])(.*?)\1""")
_WARN = re.compile(r"^(?:warnings\.)?warn\(")
_DEPRECATION_CATEGORY = re.compile(r"\b\w*Deprecat\w*\b")
_DOCSTRING_START = re.compile(r"""^[rRbBuU]{0,2}("{3}|'{3}|"|')""")
_BODY_LOOKAHEAD = 12  # lines of a body read for its first statement, past its signature
_SIGNATURE_LINES = 40  # lines a signature may take (pydantic's BaseModel.json: 13)
# A deprecation note about one argument, keyword or option, not the definition.
_ABOUT_AN_ARGUMENT = re.compile(
    r"\b(?:argument|arguments|parameter|parameters|param|keyword|kwarg|kwargs|option)\b|\*\w+\*"
)
# What a note names as the replacement: a name in backticks (```model_dump`` ``), or the name
# after "use" when it is written like an identifier (``use parse_v2()``, ``Use Client.send``).
_QUOTED_NAME = re.compile(r"`([A-Za-z_$][\w$.]*)(?:\(\))?`")
_USE_NAME = re.compile(r"\b[Uu]se\s+([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(\))?")
_TRAILING_COMMENT = re.compile(r"\s+#[^'\"]*$")  # a comment after a signature's colon
Ranks = tuple[int, int, int]  # (lexical, vector, symbol) rank; 0: absent
Scores = tuple[float | None, float | None]  # (lexical, vector) normalized score; None: not given
V = TypeVar("V")


def deprecation(
    decorators: Sequence[str], doc: str | None, source: str | None, *, python: bool
) -> str | None:
    """The summary line saying a definition is deprecated (``deprecated: use x``), or None."""
    for decorator in decorators:
        if _DECORATOR.match(decorator):
            # treeloom keeps a decorator's name, not always its arguments: the warning the
            # body opens with says the same, when there is one.
            said = _first_string(decorator)
            if not said and source and python:
                said = _first_statement_warns(source)
            return _note(said)
    if doc:
        said = _doc_says(doc)
        if said is not None:
            return _note(said)
    if source and not python and _ANNOTATION.search(source.split("{", 1)[0]):
        return _note("")  # an annotation among the declaration's modifiers, before its body
    if source and python:
        warned = _first_statement_warns(source)
        if warned is not None:
            return _note(warned)
    return None


def _doc_says(doc: str) -> str | None:
    """What a doc's deprecation tag says (its line, and a directive's indented body), or None
    when it has none or its tag deprecates an argument: Sphinx's ``.. deprecated::`` marks a
    deprecated parameter too (attrs' ``evolve``: "*inst* was deprecated")."""
    lines = doc.split("\n")
    for i, line in enumerate(lines):
        match = _DOC_TAG.match(line)
        if match is None:
            continue
        said = [match.group(1).strip(" .:-*")]
        if line.lstrip().startswith(".."):  # a directive: its body is the indented lines below
            for below in lines[i + 1 :]:
                if below.strip() and not below.startswith((" ", "\t")):
                    break
                said.append(below.strip())
        text = " ".join(t for t in said if t)
        if _ABOUT_AN_ARGUMENT.search(text):
            continue
        return text
    return None


def note_of(summary: str) -> str | None:
    """The line of a stored summary saying its definition is deprecated, or None."""
    lines = summary.split("\n")
    return next((line for line in lines if line == PREFIX or line.startswith(PREFIX + ": ")), None)


def _note(reason: str | None) -> str:
    reason = " ".join((reason or "").split())
    if not reason:
        return PREFIX
    if len(reason) > NOTE_CHARS:
        reason = reason[: NOTE_CHARS - 3].rstrip() + "..."
    return f"{PREFIX}: {reason}"


def _first_string(text: str) -> str | None:
    match = _STRING.search(text)
    return match.group(2) if match else None


def _first_statement_warns(source: str) -> str | None:
    """The message of the deprecation warning a Python body opens with, unconditionally."""
    lines = source.split("\n")
    body = _after_signature(lines)
    if body is None:
        return None
    index, indent = body
    index = _past_docstring(lines, index)
    if index >= len(lines):
        return None
    statement = lines[index]
    if len(statement) - len(statement.lstrip()) != indent or not _WARN.match(statement.strip()):
        return None
    call = _call_text(lines, index)
    if not _DEPRECATION_CATEGORY.search(call):
        return None
    return _first_string(call) or ""


def _after_signature(lines: Sequence[str]) -> tuple[int, int] | None:
    """The index of a definition's first body line and that line's indent, or None: the line
    after the first one that ends with a colon outside brackets."""
    depth = 0
    for i, line in enumerate(lines[:_SIGNATURE_LINES]):
        code = _TRAILING_COMMENT.sub("", line).rstrip()
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0 and code.endswith(":") and i + 1 < len(lines):
            nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            if nxt is None:
                return None
            return nxt, len(lines[nxt]) - len(lines[nxt].lstrip())
    return None


def _past_docstring(lines: Sequence[str], index: int) -> int:
    """The first line after a docstring that starts at ``index`` (``index`` when there is none)."""
    match = _DOCSTRING_START.match(lines[index].strip())
    if match is None:
        return index
    quote = match.group(1)
    if quote in lines[index].strip()[match.end() :]:
        end = index  # opened and closed on its first line
    else:
        end = next((j for j in range(index + 1, len(lines)) if quote in lines[j]), len(lines) - 1)
    return next((j for j in range(end + 1, len(lines)) if lines[j].strip()), len(lines))


def _call_text(lines: Sequence[str], index: int) -> str:
    """The text of the call starting at ``lines[index]``, to its closing parenthesis (a few lines)."""
    text, depth = [], 0
    for line in lines[index : index + _BODY_LOOKAHEAD]:
        text.append(line)
        depth += line.count("(") - line.count(")")
        if depth <= 0:
            break
    return "\n".join(text)


def successor_names(note: str, own: str) -> tuple[str, ...]:
    """The names a deprecation note says replace the definition named ``own``, in order, each
    as its last dotted part (``attrs.validators.set_disabled`` -> ``set_disabled``)."""
    found: list[str] = [m.group(1) for m in _QUOTED_NAME.finditer(note)]
    for match in _USE_NAME.finditer(note):
        name, call = match.group(1), match.group(2)
        if call or "_" in name or "." in name or name != name.lower():
            found.append(name)
    names = (n.rstrip(".").rsplit(".", 1)[-1] for n in found)
    return tuple(dict.fromkeys(n for n in names if n and n != own))


def inherited_ranks(ranks: Mapping[str, Ranks], replaced_by: Mapping[str, Sequence[str]]) -> dict[str, Ranks]:
    """Each candidate's ranks, a successor's made as good as those of the definitions it replaces.

    ``ranks``: every candidate's (lexical, vector, symbol) ranks; ``replaced_by``: the
    candidates a deprecated one is replaced by. A rank only ever improves (0 is absent).
    """

    def better(now: Ranks, old: Ranks) -> Ranks:
        return (_better(now[0], old[0]), _better(now[1], old[1]), _better(now[2], old[2]))

    return _inherited(ranks, replaced_by, better)


def inherited_scores(
    scores: Mapping[str, Scores], replaced_by: Mapping[str, Sequence[str]]
) -> dict[str, Scores]:
    """Each candidate's (lexical, vector) normalized scores, a successor's made as high as those
    of the definitions it replaces, as :func:`inherited_ranks` does ranks (None: not given,
    and a successor given none keeps none)."""

    def higher(now: Scores, old: Scores) -> Scores:
        return (_higher(now[0], old[0]), _higher(now[1], old[1]))

    return _inherited(scores, replaced_by, higher)


def _inherited(
    values: Mapping[str, V], replaced_by: Mapping[str, Sequence[str]], combine: Callable[[V, V], V]
) -> dict[str, V]:
    """Each successor's value combined with those of the candidates it replaces (their own)."""
    out = dict(values)
    for old in sorted(replaced_by):
        if old not in values:
            continue
        for new in replaced_by[old]:
            if new != old and new in out:
                out[new] = combine(out[new], values[old])
    return out


def _higher(a: float | None, b: float | None) -> float | None:
    # A successor given no scores keeps none: its ranks are fused, as they were.
    return a if a is None or b is None else max(a, b)


def _better(a: int, b: int) -> int:
    present = [r for r in (a, b) if r > 0]
    return min(present) if present else 0
