"""A private factory yields to what it builds (greploom.core.factories).

Laws:

1. A thin private function that constructs ``X`` with ``new`` builds ``X``,
   and its declared return type with it; a public function, a dunder, one
   that constructs nothing (it delegates: ``return f(...)``, or only throws
   ``new Error(...)``, or says "new" in a comment or string), a Python
   function (``may_build``: Python constructs by calling) or one longer
   than FACTORY_LINES lines builds nothing.
2. Yielding permutes: every candidate stays, and the scores are the input's,
   traded in pairs, each pair a factory and what it builds.
3. A built definition that a factory of it outranked ends above that factory;
   a declaration (interface, type alias), another factory, or a candidate a
   place in the query points at never takes a factory's place.
4. Only factories and what they build move; with nothing built, nothing moves.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.candidate import Candidate, Ranked
from greploom.core.factories import FACTORY_LINES, built_by, factories_yield, may_build

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


def test_a_factory_is_at_most_factory_lines_long() -> None:
    """_factory's lines: the signature, the padding, the return, the closing brace."""
    longest = _factory("_maxLength", "$ZodCheckMaxLength", padding=FACTORY_LINES - 3)
    assert longest.count("\n") + 1 == FACTORY_LINES
    assert built_by("_maxLength", longest) == {"$ZodCheckMaxLength"}
    longer = _factory("_maxLength", "$ZodCheckMaxLength", padding=FACTORY_LINES - 2)
    assert built_by("_maxLength", longer) == frozenset()


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
    raising = "function _fail(message) {\n  throw  new ValidationError(message);\n}"
    assert built_by("_fail", raising) == frozenset()  # an error it raises is not what it makes
    said = 'function _m() {\n  // a new Session (x)\n  const s = "new Foo(";\n  return s;\n}'
    assert built_by("_m", said) == frozenset()  # comments and strings are not code
    python = 'def _make(cfg):\n    """Return a new Session (pooled)."""\n    return Session(cfg)\n'
    assert built_by("_make", python) == frozenset()  # its docstring's "new" is no construction
    assert not may_build("_make", "pkg/session.py") and may_build("_make", "src/api.ts")
    assert not may_build("make", "src/api.ts")


def test_the_return_type_is_read_in_the_signature_only() -> None:
    body = "function _r(a) {\n  const x = a ? g(a) : fallback;\n  return new X(x);\n}"
    assert built_by("_r", body) == {"X"}


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
    assert [r.score for r in out] == [r.score for r in pool]  # the same scores, still best first
    at = {r.candidate.key: i for i, r in enumerate(pool)}
    for i, r in enumerate(out):
        if r.candidate.key == pool[i].candidate.key:
            continue
        j = at[r.candidate.key]  # r came from j; what was at i now stands at j: a pair traded
        assert out[j].candidate.key == pool[i].candidate.key
        up, down = (r, out[j]) if j > i else (out[j], r)
        assert dict(up.signals).get("built") == 1.0 and dict(down.signals).get("builds") == 1.0
        factory = down.candidate
        assert up.candidate.name in built[factory.key]  # the one moving up is what the other builds
        assert up.candidate.kind not in ("interface", "type") and not built.get(up.candidate.key)
        assert up.candidate.location_rank == factory.location_rank == 0


@given(pools, st.integers(0, 7), st.frozensets(st.sampled_from(NAMES), min_size=1, max_size=2))
def test_what_a_factory_builds_ends_above_it(pool: list[Ranked], at: int, names: frozenset[str]) -> None:
    """One factory: the best code below it that it builds, scoring less, ends above it."""
    if at >= len(pool):
        return
    factory = pool[at].candidate
    out = factories_yield(pool, {factory.key: names})
    place = {r.candidate.key: i for i, r in enumerate(out)}
    below = [
        r
        for r in pool[at + 1 :]
        if r.candidate.name in names and r.candidate.kind not in ("interface", "type")
    ]
    unplaced = factory.location_rank == 0 and below and below[0].candidate.location_rank == 0
    if unplaced and below[0].score < pool[at].score:
        assert place[below[0].candidate.key] < place[factory.key]
    else:
        assert out == pool


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
