"""Code-aware ranking signals.

Laws:

1. The output is a permutation of the input: signals move candidates, never
   remove or invent them (penalties included).
2. A definition boost never lowers the defining node's score; a module that
   binds the named symbol at its top level (``g = LocalProxy(...)``) is
   boosted as that symbol's definition. A definition spelled as the query
   writes it, case and all, outranks the same candidate named only by smart
   case (``flow``: function flow before FLOW and Flow), and a module named by
   its file's name ranks below the same candidate as a definition (``autorun``:
   the function before the module autorun.ts); named by its whole dotted name,
   a module is boosted in full.
3. A better backend rank never lowers a candidate's score, nor does a higher
   normalized backend score (a question fuses scores: greploom.core.score_fusion);
   a question's candidates with scores are fused by them, the vector's first alone
   scoring as under RRF (metamorphic).
4. The order does not depend on the order candidates are given in.
5. Order: the definitions the query's places point at lead, in the places'
   order; every other result follows by score, however many results its
   file has (no file is pushed down for its number of matches).
6. Non-product code (tests, examples, vendored, type stubs...) never
   outranks the same candidate placed in product code, unless the query asks
   for it; nor does a type that only declares a shape (an interface, a type
   alias) outrank the same candidate as code, for a question in words that
   does not ask about types. Symbol queries are never affected. A question
   whose head asks for tests ("tests that ...", "which test checks ...")
   ranks test code above the same candidate in product code; one that only
   says the word ("how does the test client work") lets it in, no more.
7. A definition is named by its name and by its qualified name (or a dotted
   suffix of it), as written or all in lower case; a symbol with a capital
   names only definitions in that case (smart case). Sentence punctuation is
   never part of a named symbol, and a question names only words written
   like identifiers. The name lookup keeps exactly the definitions some
   symbol names, whole qualified names first, shallower ones next.
8. The definitions the places in a query point at (``adapters.py:412``, a
   traceback's frames) lead, in the places' order, in test code too: a
   place is the strongest thing a query says.
9. A deprecated definition whose successor is among the candidates never
   outranks the same definition without one, and ranks below it unless the
   query names it (a symbol or a question naming it), points at it or asks
   about old code ("deprecated", "legacy", "v1"...), when the successor takes
   none of its place either; the successor's score never falls for it;
   nothing is removed, and nothing is demoted twice (as a test too).
10. For a question in words, a module never outranks the same candidate as a
   definition, unless the question says one of its top-level names (worded),
   points at it or asks how the code is built, when it scores as the
   definition does (symbol queries: law 2); nor does a value bound at module
   level (a variable), unless the question says its name's words.
"""

from __future__ import annotations

import math

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.code_categories import path_category
from greploom.core.file_evidence import asks_about_architecture
from greploom.core.ranking import (
    DEFINITION_BOOST,
    EXACT_CASE_BOOST,
    Candidate,
    QueryKind,
    matches_symbol,
    named_symbols,
    order_named,
    query_kind,
    rank_candidates,
    score_candidate,
)

names = st.sampled_from(("send", "parse_url", "Session", "get_adapter", "retry", "backoff_delay"))
files = st.sampled_from(
    (
        "pkg/sessions.py",
        "pkg/utils.py",
        "tests/test_utils.py",
        "examples/demo.py",
        "pkg/_compat.py",
        "pkg/models.py",
    )
)
candidates = st.builds(
    Candidate,
    key=st.uuids().map(str),
    name=names,
    qualname=st.tuples(st.sampled_from(("pkg.sessions", "pkg.utils.Session")), names).map(".".join),
    file=files,
    lexical_rank=st.integers(0, 30),
    vector_rank=st.integers(0, 30),
    symbol_rank=st.integers(0, 30),
    location_rank=st.sampled_from((0, 0, 0, 1, 2)),
)
# As the shell gives them: every backend's score for a question, or none (ranks fused).
_scores = st.none() | st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
candidates = st.builds(
    lambda c, s: c if s is None else attrs.evolve(c, lexical_score=s[0], vector_score=s[1]),
    candidates,
    _scores,
)
pools = st.lists(candidates, max_size=12, unique_by=lambda c: c.key)
QUERY_TEXTS = (
    "Session.send",
    "parse_url",
    "how are retries handled",
    "where is the backoff delay computed",
    "send",
    "test for parse_url",
    "how does retry propagation work",  # a question about how the code is built: file evidence
)
queries = st.sampled_from(QUERY_TEXTS)


@given(queries, pools)
def test_permutation_of_the_input(query: str, pool: list[Candidate]) -> None:
    """Signals reorder; they never drop a candidate the backends found."""
    ranked = rank_candidates(query, pool)
    assert sorted(r.candidate.key for r in ranked) == sorted(c.key for c in pool)


@given(
    st.sampled_from(("parse_url", "get_adapter", "Session")), files, st.integers(0, 30), st.integers(0, 30)
)
def test_definition_boost_never_lowers(name: str, file: str, lex: int, vec: int) -> None:
    """Asking for a symbol by name puts its definition at or above an otherwise equal node."""
    defining = Candidate("a", name, f"pkg.mod.{name}", file, lex, vec)
    other = Candidate("b", "unrelated_thing", "pkg.mod.unrelated_thing", file, lex, vec)
    assert query_kind(name) is QueryKind.SYMBOL
    boosted = score_candidate(name, defining)
    assert boosted.score >= score_candidate(name, other).score
    if lex or vec:
        assert ("definition", DEFINITION_BOOST * EXACT_CASE_BOOST) in boosted.signals
        assert boosted.score > score_candidate(name, other).score


@given(st.sampled_from(("flow", "autorun", "computed")), st.integers(0, 30), st.integers(0, 30))
def test_the_spelling_and_the_definition_before_smart_case_and_the_module(
    name: str, lex: int, vec: int
) -> None:
    """Same backend ranks: spelled as written before smart case, a definition before the module
    its file is named for; the module named by its whole dotted name is boosted in full."""
    if not (lex or vec):
        return
    spelled = Candidate("f", name, f"api.{name}.{name}", f"api/{name}.ts", lex, vec)
    constant = Candidate("c", name.upper(), f"api.{name}.{name.upper()}", f"api/{name}.ts", lex, vec)
    module = Candidate("m", name, f"api.{name}", f"api/{name}.ts", lex, vec, kind="module")
    ranked = [r.candidate.key for r in rank_candidates(name, [module, constant, spelled])]
    assert ranked.index("f") < ranked.index("c") and ranked.index("f") < ranked.index("m")
    whole = score_candidate(f"api.{name}", module)
    assert ("definition", DEFINITION_BOOST * EXACT_CASE_BOOST) in whole.signals


@given(st.sampled_from(("g", "current_app", "DEFAULT_TIMEOUT")), files, st.integers(1, 30))
def test_a_module_binding_the_symbol_is_its_definition(name: str, file: str, rank: int) -> None:
    """A module binding the name at its top level ranks as a definition of that name would."""
    binding = Candidate("m", "globals", "pkg.globals", file, rank, 0, rank, binds=True)
    plain = Candidate("m", "globals", "pkg.globals", file, rank, 0, rank)
    assert ("definition", DEFINITION_BOOST) in score_candidate(name, binding).signals
    assert score_candidate(name, binding).score > score_candidate(name, plain).score


backends = st.sampled_from(("lexical_rank", "vector_rank", "symbol_rank"))


@given(queries, candidates, st.integers(1, 29), backends)
def test_better_rank_never_lowers(query: str, candidate: Candidate, better: int, backend: str) -> None:
    """Moving up in a backend's list (BM25, vectors, the name lookup) moves the score up or leaves it."""
    worse = attrs.evolve(candidate, **{backend: better + 1})
    improved = attrs.evolve(candidate, **{backend: better})
    assert score_candidate(query, improved).score >= score_candidate(query, worse).score


scored_backends = st.sampled_from(("lexical_score", "vector_score"))


@given(queries, candidates, st.floats(0.0, 1.0), st.floats(0.0, 1.0), scored_backends)
def test_higher_score_never_lowers(
    query: str, candidate: Candidate, a: float, b: float, backend: str
) -> None:
    """A backend surer of a candidate moves its score up or leaves it (with the other's given)."""
    low, high = sorted((a, b))
    other = "vector_score" if backend == "lexical_score" else "lexical_score"
    given_other = {other: getattr(candidate, other) or 0.0}
    worse = attrs.evolve(candidate, **{backend: low}, **given_other)
    better = attrs.evolve(candidate, **{backend: high}, **given_other)
    assert score_candidate(query, better).score >= score_candidate(query, worse).score


@given(st.integers(1, 30), st.integers(1, 30))
def test_a_question_fuses_scores_not_ranks(lex: int, vec: int) -> None:
    """A question's candidate the vector search alone found first, by a wide margin, outranks
    one both backends found at middling ranks, which RRF ranks first."""
    question = "where is the backoff delay computed"
    sure = Candidate(
        "a", "delay", "pkg.utils.delay", "pkg/utils.py", 0, 1, lexical_score=0.0, vector_score=1.0
    )
    middling = Candidate(
        "b", "retry", "pkg.utils.retry", "pkg/utils.py", lex, vec, lexical_score=0.3, vector_score=0.5
    )
    assert score_candidate(question, sure).score > score_candidate(question, middling).score
    ranks_only = [attrs.evolve(c, lexical_score=None, vector_score=None) for c in (sure, middling)]
    assert score_candidate(question, ranks_only[1]).score > score_candidate(question, ranks_only[0]).score
    assert math.isclose(score_candidate(question, sure).score, score_candidate(question, ranks_only[0]).score)


@given(queries, pools, st.randoms(use_true_random=False))
def test_input_order_does_not_matter(query: str, pool: list[Candidate], rnd: object) -> None:
    """The same candidates give the same ranking however they arrive."""
    shuffled = list(pool)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert [r.candidate.key for r in rank_candidates(query, pool)] == [
        r.candidate.key for r in rank_candidates(query, shuffled)
    ]


@given(queries, pools)
def test_places_lead_and_the_rest_follow_by_score(query: str, pool: list[Candidate]) -> None:
    """Pointed-at definitions first, in the places' order; then best score first, whatever
    file a result is in: the fourth good match of one file still outranks a weaker one."""
    ranked = rank_candidates(query, pool)
    placed = [r for r in ranked if r.candidate.location_rank > 0]
    assert list(ranked[: len(placed)]) == placed
    assert [r.candidate.location_rank for r in placed] == sorted(r.candidate.location_rank for r in placed)
    rest = [r.score for r in ranked[len(placed) :]]
    assert rest == sorted(rest, reverse=True)


@given(queries, candidates)
def test_penalties_demote_but_do_not_remove(query: str, candidate: Candidate) -> None:
    """Test code ranks below the same code in the product, unless the query asks for tests."""
    product = Candidate(
        candidate.key,
        candidate.name,
        candidate.qualname,
        "pkg/core.py",
        candidate.lexical_rank,
        candidate.vector_rank,
    )
    in_tests = Candidate(
        candidate.key,
        candidate.name,
        candidate.qualname,
        "tests/core.py",
        candidate.lexical_rank,
        candidate.vector_rank,
    )
    assert path_category("tests/core.py") == "test" and path_category("pkg/core.py") is None
    a, b = score_candidate(query, product).score, score_candidate(query, in_tests).score
    if "test" in query.split():
        assert b >= a * 0.999 or b == a
    else:
        assert b <= a


@given(
    st.sampled_from(("tests that retries back off", "which test checks parse_url", "find the tests of send")),
    candidates,
)
def test_a_question_heading_for_tests_wants_them_first(query: str, candidate: Candidate) -> None:
    """Asked for tests, test code comes before the same code in the product."""
    candidate = attrs.evolve(candidate, location_rank=0)
    as_test = score_candidate(query, attrs.evolve(candidate, file="tests/test_utils.py")).score
    as_product = score_candidate(query, attrs.evolve(candidate, file="pkg/utils.py")).score
    assert as_test > as_product or as_product == 0.0
    said = "how does the test client send requests"  # the word, not the head: let in, no more
    in_tests = score_candidate(said, attrs.evolve(candidate, file="tests/test_utils.py")).score
    assert in_tests == score_candidate(said, attrs.evolve(candidate, file="pkg/utils.py")).score


@given(queries, candidates, st.sampled_from(("interface", "type")), st.sampled_from(("function", "class")))
def test_a_declaration_never_outranks_the_same_code(
    query: str, candidate: Candidate, decl: str, code: str
) -> None:
    """An interface or type alias ranks at most as high as code with a body, for questions."""
    as_code = score_candidate(query, attrs.evolve(candidate, kind=code)).score
    as_declaration = score_candidate(query, attrs.evolve(candidate, kind=decl)).score
    if query_kind(query) is QueryKind.SYMBOL:
        assert as_declaration == as_code  # a name asked for is asked for, whatever it declares
    else:
        assert as_declaration <= as_code
    typed = score_candidate(
        "which fields does the type of a session have", attrs.evolve(candidate, kind=decl)
    )
    untyped = score_candidate(
        "which fields does the type of a session have", attrs.evolve(candidate, kind=code)
    )
    assert typed.score == untyped.score  # asked about types: no penalty


@given(queries, candidates, st.sampled_from(("function", "class")), st.integers(0, 3))
def test_a_module_never_outranks_the_same_definition_for_a_question(
    query: str, candidate: Candidate, code: str, worded: int
) -> None:
    """A module matches many questions a little: a question in words wants a definition first."""
    candidate = attrs.evolve(candidate, worded_rank=worded)
    as_definition = score_candidate(query, attrs.evolve(candidate, kind=code)).score
    as_module = score_candidate(query, attrs.evolve(candidate, kind="module")).score
    if query_kind(query) is QueryKind.SYMBOL:
        return  # a module named by its file's name: law 2
    said = worded > 0 or candidate.location_rank > 0 or asks_about_architecture(frozenset(query.split()))
    if said:
        assert as_module == as_definition
    else:
        assert as_module < as_definition or as_definition == 0.0


@given(st.sampled_from(("how are retries handled", "where is the backoff delay computed")), candidates)
def test_a_value_never_outranks_the_same_definition_unless_named(query: str, candidate: Candidate) -> None:
    """``DEFAULT_RETRIES = 3`` is what a question about retries is about less often than the code."""
    candidate = attrs.evolve(candidate, name="send", location_rank=0)  # a name neither question says
    as_function = score_candidate(query, attrs.evolve(candidate, kind="function")).score
    as_value = score_candidate(query, attrs.evolve(candidate, kind="variable")).score
    assert as_value < as_function or as_function == 0.0
    said = attrs.evolve(candidate, name="backoff_delay")  # "backoff delay": the question says it
    named = "where is the backoff delay computed"
    assert (
        score_candidate(named, attrs.evolve(said, kind="variable")).score
        == score_candidate(named, attrs.evolve(said, kind="function")).score
    )


identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@given(st.lists(identifiers, min_size=1, max_size=4), st.sampled_from(("", "pkg.", "a.b.")))
def test_a_definition_is_named_by_its_names(path: list[str], prefix: str) -> None:
    """Its name, its qualified name and any dotted suffix, as written or in lower case."""
    name, qualname = path[-1], prefix + ".".join(path)
    for i in range(len(path)):
        suffix = ".".join(path[i:])
        for written in (suffix, suffix.lower()):
            (symbol,) = named_symbols(written)
            assert matches_symbol(symbol, name, qualname)
    assert score_candidate(qualname, Candidate("k", name, qualname, "pkg/mod.py", 1)).named


@given(identifiers, identifiers, identifiers)
def test_a_capital_asks_for_its_case(symbol: str, name: str, qualname: str) -> None:
    """Smart case: a symbol with a capital matches only where its case matches."""
    if matches_symbol(symbol, name, qualname) and any(c.isupper() for c in symbol):
        assert symbol in (name, qualname) or qualname.endswith("." + symbol)


@given(identifiers, st.sampled_from((".", ":", "...", "()")), st.sampled_from(("how does {} work", "{}")))
def test_punctuation_is_not_part_of_a_symbol(word: str, punctuation: str, template: str) -> None:
    """``parse_url.`` at the end of a sentence names ``parse_url``; plain words in a question name
    nothing, while a call such as ``send()`` does."""
    query = template.format(word + punctuation)
    for symbol in named_symbols(query):
        assert symbol == word.strip(".")
    if template != "{}" and punctuation != "()" and "_" not in word and word == word.lower():
        assert named_symbols(query) == ()


def test_each_language_s_test_and_generated_files() -> None:
    """Test and generated files by the conventions of each language; look-alikes are product code."""
    tests = (
        "pkg/client_test.go",
        "src/test/java/a/B.java",
        "src/main/java/a/ClientTest.java",
        "Foo.Tests/BarTests.cs",
        "spec/models/user_spec.rb",
        "lib/user_spec.rb",
        "base/net_unittest.cc",
        "src/__tests__/a.ts",
        "src/a.spec.ts",
        "internal/testdata/x.go",
        "pkg/mocks/store.go",
        "src/it/ClientIT.java",
    )
    for path in tests:
        assert path_category(path) == "test", path
    generated = (
        "api/v1/types.pb.go",
        "proto/a_pb2_grpc.py",
        "apis/zz_generated.deepcopy.go",
        "lib/model.g.dart",
        "dist/index.js",
        "build/lib/pkg/mod.py",
    )
    for path in generated:
        assert path_category(path) == "generated", path
    for path in (
        "src/main/java/a/Latest.java",
        "brain/brain_unittest.py",
        "pkg/contest.go",
        "lib/protest.rb",
        "src/builder.ts",
        "pkg/distance.py",
        "src/Testing.java",
        "lib/mockingbird/a.py",
        "src/click/testing.py",  # the runners users test with: public API
    ):
        assert path_category(path) is None, path


def test_stubs_are_not_product_code() -> None:
    """Type stubs and declaration files describe code that lives elsewhere."""
    for path in ("attr/__init__.pyi", "types/index.d.ts", "lib/mod.d.mts"):
        assert path_category(path) == "stub"
    for path in ("attr/_make.py", "lib/index.ts", "src/pyi_tools.py"):
        assert path_category(path) != "stub"


rows = st.lists(
    st.tuples(st.lists(identifiers, min_size=1, max_size=3), st.sampled_from(("", "pkg."))).map(
        lambda t: (t[1] + ".".join(t[0]), t[0][-1])
    ),
    max_size=8,
).map(lambda qs: [(f"k{i}", name, qual) for i, (qual, name) in enumerate(qs)])


@given(st.lists(identifiers, min_size=1, max_size=2).map(".".join).map(lambda s: (s,)), rows)
def test_the_name_lookup_keeps_what_is_named(
    symbols: tuple[str, ...], table: list[tuple[str, str, str]]
) -> None:
    """Exactly the named rows, each once; a whole qualified name never after a mere suffix."""
    ordered = order_named(symbols, table)
    named = {k for k, name, qual in table if any(matches_symbol(s, name, qual) for s in symbols)}
    assert sorted(ordered) == sorted(named)
    quals = {k: qual for k, _, qual in table}
    whole = [
        any(matches_symbol(s, "", quals[k]) and quals[k].count(".") == s.count(".") for s in symbols)
        for k in ordered
    ]
    assert whole == sorted(whole, reverse=True)


@given(queries, pools, st.sampled_from(("pkg/core.py", "tests/test_core.py")), st.integers(0, 30))
def test_places_in_the_query_come_first(query: str, pool: list[Candidate], file: str, lex: int) -> None:
    """What ``adapters.py:412`` points at outranks all the query merely finds, tests included;
    several places keep their order, however the backends rank them."""
    others = [attrs.evolve(c, location_rank=0) for c in pool]
    first = Candidate("first", "send", "pkg.core.send", file, location_rank=1)
    second = Candidate("second", "send", "pkg.core.Session.send", "pkg/core.py", lex, 1, 1, location_rank=2)
    ranked = rank_candidates(query, [*others, second, first])
    assert [r.candidate.key for r in ranked[:2]] == ["first", "second"]
    assert ranked[0].named and not any(name.startswith("penalty") for name, _ in ranked[0].signals)


@given(
    st.sampled_from((*QUERY_TEXTS, "the deprecated way to send", "legacy retry handling")),
    candidates,
    candidates,
    st.sampled_from(("pkg/core.py", "tests/core.py")),
)
def test_deprecated_code_with_a_successor_ranks_below_it(
    query: str, candidate: Candidate, successor: Candidate, file: str
) -> None:
    """Law 9."""
    new = attrs.evolve(successor, key="new")
    current = attrs.evolve(candidate, key="old", file=file, replaced_by=())
    old = attrs.evolve(current, replaced_by=("new", "gone"))  # "gone": not a candidate, ignored
    before = {r.candidate.key: r for r in rank_candidates(query, [current, new])}
    after = {r.candidate.key: r for r in rank_candidates(query, [old, new])}
    assert set(after) == {"old", "new"}
    a, b = before["old"], after["old"]
    assert b.score <= a.score and after["new"].score >= before["new"].score
    named = any(name in ("definition", "location") for name, _ in a.signals) or any(
        matches_symbol(s, current.name, current.qualname) for s in named_symbols(query)
    )
    asks = bool({"deprecated", "legacy"} & set(query.split()))
    penalised = any(name.startswith("penalty:") for name, _ in a.signals)
    if named or asks or penalised:
        assert b.score == a.score
    else:
        assert ("penalty:deprecated", 0.5) in b.signals and (b.score < a.score or a.score == 0)
