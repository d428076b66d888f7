"""Context for a piece of code: the definitions the names it uses refer to, most telling first.

An agent editing ``hand = self.deck.draw(count)`` needs ``Deck.draw``'s
definition, not a question in words. :func:`read_snippet` reads the code
once into the names it uses (:class:`Term`: how often, whether called, the
name written before it) and the names it defines or assigns itself, which
are its own and not context. :func:`rank_definitions` scores the code
base's definitions that bear a used name:

- rarity: ``log(1 + N / n)`` for a name ``n`` of the ``N`` definitions
  bear (inverse document frequency: ``draw`` defined once tells more than
  ``get`` defined forty times);
- use: a called name counts more than a mentioned one, and a name used
  again a little more (``1 + log(count)``);
- the written qualifier: ``deck.draw`` favours a ``draw`` of a class
  ``Deck`` or of a module ``deck`` (case folded);
- the graph: a definition the snippet's own enclosing definition calls
  (greploom's call links, when the snippet was cut from an indexed file)
  is what the code there refers to;
- proximity: the same file, then the same folder, as the snippet.

This is lexical reading of a fragment (it may not parse: half a statement,
a line cut from the middle of a function), so names come from identifier
tokens, with string literals and line comments dropped first.

Laws (tests/properties/test_snippet.py): a name in a string literal or
comment is no term; a name the snippet defines, assigns or takes as a
parameter is no term unless it is also written after a qualifier; every
ranked definition bears a term's name and none is excluded; the order does
not depend on the order candidates come in; rarer is never worse; a
definition the enclosing one calls outranks its namesake that it does not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import attrs

MAX_TERMS = 64  # names a snippet contributes; a whole file pasted is cut to its most used
CALLED = 1.0  # added to the use factor for a called name
QUALIFIED = 1.0  # ... for a qualifier that names the definition's class or module
CALLEE = 3.0  # ... for a callee of the snippet's enclosing definition
SAME_FILE = 0.5
SAME_FOLDER = 0.25
MODULE_FACTOR = 0.5  # a module named in the code is context, less than what it defines
MAX_PER_NAME = 3  # namesakes among the best: the rest of an ambiguous name gives way to other names

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
_COMMENT = re.compile(r"(?://|#(?=\s|$)|--\s).*$", re.MULTILINE)
_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\s*(?:\.|::|->|\?\.)\s*[A-Za-z_$][\w$]*)*")
_SEPARATOR = re.compile(r"\s*(?:\.|::|->|\?\.)\s*")
_DEFINES = frozenset(
    {"def", "class", "function", "func", "fn", "interface", "struct", "enum", "trait", "type", "macro"}
)
_DECLARES = frozenset({"let", "const", "var", "val", "auto"})
_KEYWORDS = frozenset(  # keywords, and builtins every code base calls
    """
    and as assert async await break case catch class const continue def default del delete do elif
    else enum except export extends false final finally fn for from func function global go goto if
    impl implements import in include instanceof interface is lambda let loop match mod mut new nil
    none nonlocal not null or package pass pub raise return self static struct super switch this
    throw throws true try type typeof undefined use var void while with yield cls int str float
    bool dict list tuple set bytes char long double unsigned signed sizeof define ifdef ifndef
    endif pragma val where range chan map defer select fallthrough crate move ref unsafe dyn trait
    println print len
    """.split()  # noqa: SIM905 - a word list, not code
)
_ASSIGNED = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
# A definition's head up to its parameters' end: ``def send(self, request, **kw)``.
_HEAD = re.compile(
    r"\b(?:" + "|".join(sorted(_DEFINES)) + r")\s+[A-Za-z_$][\w$]*\s*(?:<[^>\n]*>)?\s*\(([^)]*)\)"
)
_PARAMETER = re.compile(r"(?:^|,)\s*(?:\*{1,2}|\.\.\.|&|mut\s+)?([A-Za-z_$][\w$]*)")


@attrs.frozen
class Term:
    """A name the snippet uses."""

    name: str
    count: int
    called: bool
    qualifiers: frozenset[str] = frozenset()  # names written just before it (``deck`` in deck.draw), folded


@attrs.frozen
class Snippet:
    """A piece of code as read: the names it uses, and those it defines or assigns itself."""

    terms: tuple[Term, ...]
    own: frozenset[str]

    def names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.terms)


@attrs.frozen
class Definition:
    """A definition of the code base that bears a used name."""

    key: str
    name: str
    qualname: str
    file: str
    kind: str


@attrs.frozen
class Ranked:
    key: str
    score: float
    name: str


def _code_only(text: str) -> str:
    """The text less its string literals and line comments (kept as blanks)."""
    return _COMMENT.sub("", _STRING.sub('""', text))


def read_snippet(text: str) -> Snippet:
    """The names a piece of code uses, most used first, and those it makes its own."""
    code = _code_only(text)
    own: set[str] = set(_ASSIGNED.findall(code))
    for head in _HEAD.finditer(code):  # the parameters of a definition in the snippet are its own
        own.update(_PARAMETER.findall(head.group(1)))
    counts: dict[str, int] = {}
    called: set[str] = set()
    qualifiers: dict[str, set[str]] = {}
    previous = ""
    for match in _CHAIN.finditer(code):
        parts = _SEPARATOR.split(match.group())
        if previous in _DEFINES or previous in _DECLARES:
            own.add(parts[0])
        previous = parts[-1] if len(parts) == 1 else ""
        is_call = code[match.end() :].lstrip().startswith("(")
        for index, part in enumerate(parts):
            counts[part] = counts.get(part, 0) + 1
            if index:
                qualifiers.setdefault(part, set()).add(parts[index - 1].lower())
        if is_call:
            called.add(parts[-1])
    terms = [
        Term(name, count, name in called, frozenset(qualifiers.get(name, ())))
        for name, count in counts.items()
        # A name the snippet defines is still used when written after a qualifier
        # (``self.adapter.send`` inside ``def send``): the namesake is another definition.
        if (name not in own or name in qualifiers) and name.lower() not in _KEYWORDS and len(name) > 1
    ]
    terms.sort(key=lambda t: (-t.count, -t.called, t.name))
    return Snippet(tuple(terms[:MAX_TERMS]), frozenset(own))


def _folder(file: str) -> str:
    return file.rsplit("/", 1)[0] if "/" in file else ""


def _qualified(term: Term, definition: Definition) -> bool:
    """Whether a qualifier written before the name names what holds the definition: its class
    (``deck.draw``: ``Deck.draw``) or, for a top-level one, its module (``pricing.total_price``)."""
    parts = definition.qualname.rsplit(".", 2)
    return len(parts) >= 2 and parts[-2].lower() in term.qualifiers


def rank_definitions(
    snippet: Snippet,
    candidates: Iterable[Definition],
    total: int,
    *,
    origin_file: str | None = None,
    callees: frozenset[str] = frozenset(),
    excluded: frozenset[str] = frozenset(),
) -> tuple[Ranked, ...]:
    """The candidates that bear a term's name, best first (ties by key).

    ``total``: how many definitions the code base has; ``callees``: keys the
    snippet's enclosing definition calls; ``excluded``: keys never returned
    (the snippet's own definition).
    """
    by_name = {t.name: t for t in snippet.terms}
    unique: dict[str, Definition] = {}
    for c in sorted(candidates, key=lambda c: (c.key, c.name, c.qualname, c.file, c.kind)):
        if c.name in by_name and c.key not in excluded:
            unique.setdefault(c.key, c)  # a key given twice: the same one wins whatever the order
    chosen = list(unique.values())
    namesakes: dict[str, int] = {}
    for c in chosen:
        namesakes[c.name] = namesakes.get(c.name, 0) + 1
    ranked = [
        Ranked(
            c.key,
            _score(by_name[c.name], c, namesakes[c.name], total, origin_file=origin_file, callees=callees),
            c.name,
        )
        for c in chosen
    ]
    ranked.sort(key=lambda r: (-r.score, r.key))
    return tuple(ranked)


def _score(
    term: Term,
    definition: Definition,
    namesakes: int,
    total: int,
    *,
    origin_file: str | None,
    callees: frozenset[str],
) -> float:
    rarity = math.log(1.0 + max(total, namesakes) / namesakes)
    use = 1.0 + math.log(term.count) + (CALLED if term.called else 0.0)
    use += QUALIFIED if _qualified(term, definition) else 0.0
    use += CALLEE if definition.key in callees else 0.0
    near = 1.0
    if origin_file is not None:
        if definition.file == origin_file:
            near += SAME_FILE
        elif _folder(definition.file) == _folder(origin_file):
            near += SAME_FOLDER
    kind = MODULE_FACTOR if definition.kind == "module" else 1.0
    return rarity * use * near * kind


def top(ranked: Sequence[Ranked], limit: int) -> tuple[Ranked, ...]:
    """The best ``limit``, at most :data:`MAX_PER_NAME` per name: a name defined twenty times
    does not fill every place."""
    counts: dict[str, int] = {}
    out: list[Ranked] = []
    for r in ranked:
        if len(out) >= limit:
            break
        if counts.get(r.name, 0) >= MAX_PER_NAME:
            continue
        counts[r.name] = counts.get(r.name, 0) + 1
        out.append(r)
    return tuple(out)
