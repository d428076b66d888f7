"""A private factory yields to what it builds: the behaviour a question asks about lives there.

zod's core keeps one thin private factory per check and schema in ``api.ts``::

    export function _maxLength(maximum: number, params?: ...): checks.$ZodCheckMaxLength<...> {
      const ch = new checks.$ZodCheckMaxLength({ check: "max_length", ...params, maximum });
      return ch;
    }

Its name and parameters say the words of the question ("how is a maximum length
enforced on strings and arrays") better than the check does, so it came first,
while the code that enforces the length is ``$ZodCheckMaxLength``. Here a
definition that

- is a private function (its name starts with ``_``, not a dunder),
- is thin (at most :data:`FACTORY_LINES` lines), and
- constructs something in its code (``new X(...)``, not ``throw new X(...)``: an
  error it raises is not what it makes; not in a comment or a string),

builds ``X``, and its declared return type (``): T {``, in its signature) when
the class it constructs is a parameter (``new Class({type: "union", ...})``
returning ``schemas.$ZodUnion``). When what it builds is a candidate ranked
below it, the two trade places and scores: the built definition takes the
factory's, the factory the built one's. Declarations (interfaces, type
aliases) take no place: they hold no behaviour. Questions in words only; a
symbol query names what it wants.

Only construction counts. A private function returning another's call
(``return is_ascii_encoding(...)``) delegates, and the one delegated to is not
its answer: letting it take the place cost the quality harness a click
question (NDCG@10 0.8304 -> 0.8294). Python constructs by calling, which
cannot be told from delegating without types, so Python code never yields.
A public factory is an answer of its own (attrs' ``instance_of``, the public
face of ``_InstanceOfValidator``), so it keeps its place. Measured on the
quality harness (signals, mean NDCG@10 over 11 code bases): 0.8271 -> 0.8306,
zod 0.698 -> 0.745; at most 8 lines: no change (zod's factories are 10 to 13
lines); at most 15 or 25: the same; the declared return type taken whatever
the body does: 0.8324 at 15 lines, 0.8312 at 40 (httpx's 30-line
``_parse_challenge -> _DigestAuthChallenge`` passed the parser asked for).

Laws (tests/properties/test_factories.py): the output is a permutation of the
input and the scores are the input's, traded in pairs; a built definition
never ends below a factory of it that was above it; only factories and what
they build move; a public function, one with no ``new`` (or only a thrown one),
or one longer than :data:`FACTORY_LINES` builds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import attrs

from greploom.core.candidate import Ranked
from greploom.core.summary import is_python

FACTORY_LINES = 15  # a factory is thin: zod's are 10 to 13 lines
# Comments and string literals say nothing of what code does ("returns a new Session").
_NOT_CODE = re.compile(
    r"//[^\n]*|/\*.*?\*/"  # comments
    r"|`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"",  # strings
    re.S,
)
_NAME = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*"
# `new X(` builds X; `throw new X(` raises it (mobx's `_toPrimitive` throws a TypeError).
_NEW = re.compile(rf"(\bthrow\s+)?\bnew\s+({_NAME})\s*[(<]")
# The declared return type, `): T {`, read in the signature only: up to the brace opening the body.
_RETURNS = re.compile(rf"\)\s*:\s*({_NAME})[^{{]*\{{\s*$", re.M)
_DECLARATIONS = frozenset({"interface", "type"})


def is_private(name: str) -> bool:
    """Whether a definition's name marks it private: ``_x``, not ``__x__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def may_build(name: str, file: str) -> bool:
    """Whether the function ``name`` of ``file`` may be a factory, before its source is read:
    private, and not Python, which constructs by calling."""
    return is_private(name) and not is_python(file)


def built_by(name: str, source: str | None) -> frozenset[str]:
    """The names of what the definition ``name`` with this ``source`` builds, as a thin private
    factory: the classes its code constructs with ``new`` and, when it does, its declared
    return type (last dotted segments); none for any other definition. Python functions are
    left out before (:func:`may_build`)."""
    if not source or not is_private(name) or source.count("\n") >= FACTORY_LINES:
        return frozenset()
    code = _NOT_CODE.sub(" ", source)
    constructed = [built.rsplit(".", 1)[-1] for thrown, built in _NEW.findall(code) if not thrown]
    if not constructed:
        return frozenset()
    returns = _RETURNS.search(code)
    declared = [returns.group(1).rsplit(".", 1)[-1]] if returns else []
    return frozenset(constructed + declared) - {name}


def factories_yield(ranked: Sequence[Ranked], built: Mapping[str, frozenset[str]]) -> list[Ranked]:
    """``ranked`` (best first) with each factory trading place and score with the best
    candidate below it that it builds (``built``: key -> names, :func:`built_by`); best
    factories first. Each candidate and each name moves once; a factory is never what
    another one builds (``_g`` newing ``_f``: ``_f`` yields to what it builds instead), and
    a candidate a query's place points at (which leads anyway) takes no part."""
    out = list(ranked)
    factories = {key for key, names in built.items() if names}
    moved: set[str] = set()
    taken: set[str] = set()
    for i in range(len(out)):
        factory = out[i]
        names = built.get(factory.candidate.key, frozenset()) - taken
        if not names or factory.candidate.key in moved or factory.candidate.location_rank > 0:
            continue
        for j in range(i + 1, len(out)):
            target = out[j]
            c = target.candidate
            if (
                c.name in names
                and c.kind not in _DECLARATIONS
                and c.key not in moved
                and c.key not in factories
                and c.location_rank == 0
            ):
                if target.score < factory.score:
                    out[i] = _traded(target, factory.score, "built")
                    out[j] = _traded(factory, target.score, "builds")
                    moved.update((factory.candidate.key, c.key))
                    taken.add(c.name)
                break
    return out


def _traded(ranked: Ranked, score: float, signal: str) -> Ranked:
    """``ranked`` with the other's score, and a signal saying why."""
    return attrs.evolve(ranked, score=score, signals=(*ranked.signals, (signal, 1.0)))
