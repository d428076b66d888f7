"""A private factory yields to what it builds (greploom.core.factories).

Laws:

1. A thin private function that constructs ``X`` with ``new`` builds ``X``,
   and its declared return type with it; a public function, a dunder, one
   that constructs nothing (it delegates: ``return f(...)``, or only throws
   ``new Error(...)``) or one longer
   than FACTORY_LINES lines builds nothing.
2. Yielding permutes: every candidate stays, and the scores are the input's,
   traded in pairs.
3. A built definition that a factory of it outranked ends above that factory;
   a declaration (interface, type alias) never takes a factory's place.
4. Only factories and what they build move; with nothing built, nothing moves.
"""

from __future__ import annotations

from collections import Counter

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.candidate import Candidate, Ranked
from greploom.core.factories import FACTORY_LINES, built_by, factories_yield

NAMES = ("_maxLength", "_union", "$ZodCheckMaxLength", "$ZodUnion", "parse", "_helper", "Check")
kinds = st.sampled_from(("function", "function", "class", "interface", "type"))


def _factory(name: str, built: str, returns: str = "", padding: int = 0) -> str:
    declared = f": {returns}" if returns else ""
    body = "\n".join(f"  const x{i} = {i};" for i in range(padding))
    return (
        f"export function {name}(params){declared} {{\n{body}\n  return new checks.{built}({{params}});\n}}"
    )


@given(st.sampled_from(("_maxLength", "_union")), st.sampled_from(("$ZodCheckMaxLength", "Check")))
def test_a_thin_private_function_builds_what_it_news(name: str, built: str) -> None:
    assert built_by(name, _factory(name, built)) == {built}
    assert built_by(name, _factory(name, "Class", returns=f"schemas.{built}<T>")) == {"Class", built}


@given(st.sampled_from(("maxLength", "__init__", "parse")), st.integers(0, 3))
def test_a_public_function_builds_nothing(name: str, padding: int) -> None:
    assert built_by(name, _factory(name, "$ZodCheckMaxLength", padding=padding)) == frozenset()


@given(st.integers(FACTORY_LINES, FACTORY_LINES + 20))
def test_a_long_function_is_no_factory(padding: int) -> None:
    assert (
        built_by("_maxLength", _factory("_maxLength", "$ZodCheckMaxLength", padding=padding)) == frozenset()
    )


def test_delegating_is_not_building() -> None:
    source = "def _stream_is_misconfigured(stream) -> bool:\n    return is_ascii_encoding(stream.encoding)\n"
    assert built_by("_stream_is_misconfigured", source) == frozenset()
    assert (
        built_by("_trim", "export function _trim(): Check<string> {\n  return _overwrite(trim);\n}") == set()
    )
    assert built_by("_x", None) == frozenset()
    raising = "function _fail(message) {\n  throw new ValidationError(message);\n}"
    assert built_by("_fail", raising) == frozenset()  # an error it raises is not what it makes


def _ranked(draw: st.DrawFn) -> list[Ranked]:
    size = draw(st.integers(0, 8))
    scores = sorted(draw(st.lists(st.floats(0.0, 1.0), min_size=size, max_size=size)), reverse=True)
    return [
        Ranked(
            Candidate(
                f"k{i}", draw(st.sampled_from(NAMES)), f"m.n{i}", "src/a.ts", i + 1, 0, kind=draw(kinds)
            ),
            score,
            (("base", score),),
        )
        for i, score in enumerate(scores)
    ]


pools = st.composite(_ranked)()
builds = st.dictionaries(
    st.sampled_from([f"k{i}" for i in range(8)]),
    st.frozensets(st.sampled_from(NAMES), max_size=2),
    max_size=4,
)


@given(pools, builds)
def test_yielding_permutes_and_trades_scores(pool: list[Ranked], built: dict[str, frozenset[str]]) -> None:
    out = factories_yield(pool, built)
    assert sorted(r.candidate.key for r in out) == sorted(r.candidate.key for r in pool)
    assert Counter(r.score for r in out) == Counter(r.score for r in pool)
    assert [r.score for r in out] == [r.score for r in pool]  # still best first


@given(pools, builds)
def test_what_a_factory_builds_ends_above_it(pool: list[Ranked], built: dict[str, frozenset[str]]) -> None:
    out = factories_yield(pool, built)
    place = {r.candidate.key: i for i, r in enumerate(out)}
    before = {r.candidate.key: i for i, r in enumerate(pool)}
    moved = {r.candidate.key for r in out if place[r.candidate.key] != before[r.candidate.key]}
    for key in moved:
        ranked = next(r for r in out if r.candidate.key == key)
        if "built" in dict(ranked.signals):  # took a factory's place: it is what one builds
            assert ranked.candidate.kind not in ("interface", "type")
            assert any(ranked.candidate.name in built.get(k, ()) for k in moved if k != key)
        else:  # gave its place: it is a factory
            assert "builds" in dict(ranked.signals) and built.get(key)
    for r in pool:
        names = built.get(r.candidate.key, frozenset())
        below = [t for t in pool[before[r.candidate.key] + 1 :] if t.candidate.name in names]
        code = [t for t in below if t.candidate.kind not in ("interface", "type")]
        # the first code it builds below it, when nothing else took or gave its place first
        if code and r.candidate.key not in moved and code[0].candidate.key not in moved:
            assert code[0].score >= r.score


@given(pools)
def test_nothing_built_nothing_moves(pool: list[Ranked]) -> None:
    assert factories_yield(pool, {}) == pool
    assert factories_yield(pool, {r.candidate.key: frozenset() for r in pool}) == pool


def test_zod_s_factory_yields_to_its_check() -> None:
    check = Candidate("c", "$ZodCheckMaxLength", "checks.$ZodCheckMaxLength", "checks.ts", 3, 2)
    shape = attrs.evolve(check, key="d", kind="interface")
    factory = Candidate("f", "_maxLength", "api._maxLength", "api.ts", 1, 1)
    pool = [Ranked(factory, 0.9, ()), Ranked(shape, 0.7, ()), Ranked(check, 0.5, ())]
    out = factories_yield(pool, {"f": built_by("_maxLength", _factory("_maxLength", "$ZodCheckMaxLength"))})
    assert [r.candidate.key for r in out] == ["c", "d", "f"]
    assert [r.score for r in out] == [0.9, 0.7, 0.5]
