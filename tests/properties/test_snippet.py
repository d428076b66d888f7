"""Context for code: which names a piece of code uses, and which definitions they refer to.

Laws:

1. A name that appears only in a string literal or a line comment is no term.
2. A name the snippet defines, assigns or takes as a parameter is no term,
   unless it is also written after a qualifier (``self.adapter.send`` inside
   ``def send``: that ``send`` is another definition's).
3. Every ranked definition bears the name of a term, and no excluded one
   (the snippet's own definition) is ever ranked.
4. The ranking does not depend on the order the candidates come in.
5. Rarer is never worse: of two definitions used alike, the one whose name
   fewer definitions bear scores at least as high.
6. A definition the snippet's enclosing definition calls outranks a namesake
   it does not call, other things equal.
7. The best few keep the ranking's order, hold at most MAX_PER_NAME
   namesakes, and are no more than asked for.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.snippet import (
    _KEYWORDS,
    MAX_PER_NAME,
    Definition,
    Ranked,
    Snippet,
    Term,
    rank_definitions,
    read_snippet,
    top,
)

names = st.from_regex(r"[a-z][a-z0-9_]{2,8}", fullmatch=True).filter(lambda n: n not in _KEYWORDS)
files = st.sampled_from(("a.py", "pkg/b.py", "pkg/c.py", "lib/d.ts"))
kinds = st.sampled_from(("function", "class", "module", "method"))


def _definitions(term_names: list[str]) -> st.SearchStrategy[list[Definition]]:
    one = st.builds(
        lambda i, name, file, kind: Definition(f"k{i}:{name}", name, f"m.{name}", file, kind),
        st.integers(0, 30),
        st.sampled_from([*term_names, "other_name"]),
        files,
        kinds,
    )
    return st.lists(one, max_size=25)


@given(names, names, names, names)
def test_literals_and_comments_hold_no_terms(called: str, arg: str, in_string: str, in_comment: str) -> None:
    code = f"{called}({arg}, \"{in_string} here\")  # {in_comment} said\nx = '{in_string}'\n"
    terms = {t.name for t in read_snippet(code).terms}
    assert {called, arg} <= terms
    for hidden in (in_string, in_comment):
        if hidden not in (called, arg):
            assert hidden not in terms


@given(names, names, names, names)
def test_own_names_are_no_terms(defined: str, parameter: str, local: str, used: str) -> None:
    code = (
        f"def {defined}(self, {parameter}, *rest):\n    {local} = {used}({parameter})\n    return {local}\n"
    )
    snippet = read_snippet(code)
    terms = {t.name for t in snippet.terms}
    own = {defined, parameter, local}
    assert used in terms or used in own
    assert not terms & own
    qualified = read_snippet(code + f"    self.helper.{defined}({local})\n")
    assert defined in {t.name for t in qualified.terms}  # another definition's, by its qualifier


@given(
    st.lists(names, min_size=1, max_size=5, unique=True).flatmap(
        lambda ns: st.tuples(st.just(ns), _definitions(ns), st.sets(st.integers(0, 30)))
    )
)
def test_ranked_definitions_bear_a_term_and_are_not_excluded(
    case: tuple[list[str], list[Definition], set[int]],
) -> None:
    term_names, candidates, excluded_ids = case
    snippet = Snippet(tuple(Term(n, 1, True) for n in term_names), frozenset())
    excluded = frozenset(c.key for c in candidates if int(c.key[1:].split(":")[0]) in excluded_ids)
    ranked = rank_definitions(snippet, candidates, 100, excluded=excluded)
    assert all(r.name in term_names for r in ranked)
    assert not {r.key for r in ranked} & excluded
    kept = {c.key for c in candidates if c.name in term_names and c.key not in excluded}
    assert {r.key for r in ranked} == kept


@given(
    st.lists(names, min_size=1, max_size=4, unique=True).flatmap(
        lambda ns: st.tuples(st.just(ns), _definitions(ns))
    ),
    st.randoms(use_true_random=False),
    st.one_of(st.none(), files),
)
def test_the_order_of_candidates_does_not_matter(
    case: tuple[list[str], list[Definition]], rnd: object, origin: str | None
) -> None:
    term_names, candidates = case
    snippet = Snippet(tuple(Term(n, 2, False) for n in term_names), frozenset())
    shuffled = list(candidates)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert rank_definitions(snippet, candidates, 50, origin_file=origin) == rank_definitions(
        snippet, shuffled, 50, origin_file=origin
    )


@given(names, names, st.integers(1, 10), files, st.tuples(st.integers(1, 3), st.booleans()))
def test_rarer_is_never_worse(rare: str, common: str, more: int, file: str, use: tuple[int, bool]) -> None:
    count, called = use
    if rare == common:
        return
    snippet = Snippet((Term(rare, count, called), Term(common, count, called)), frozenset())
    candidates = [Definition(f"r:{rare}", rare, f"m.{rare}", file, "function")]
    candidates += [
        Definition(f"c{i}:{common}", common, f"m.{common}", file, "function") for i in range(1 + more)
    ]
    ranked = {r.key: r.score for r in rank_definitions(snippet, candidates, 200)}
    assert all(ranked[f"r:{rare}"] >= ranked[f"c{i}:{common}"] for i in range(1 + more))


@given(names, files, files, st.one_of(st.none(), files))
def test_a_callee_of_the_enclosing_definition_comes_first(
    name: str, one: str, two: str, origin: str | None
) -> None:
    snippet = Snippet((Term(name, 1, True),), frozenset())
    called = Definition("z:called", name, f"x.{name}", one, "function")
    namesake = Definition("a:namesake", name, f"y.{name}", one, "function")
    ranked = rank_definitions(
        snippet, [namesake, called], 10, origin_file=origin, callees=frozenset({"z:called"})
    )
    assert [r.key for r in ranked] == ["z:called", "a:namesake"]
    del two


@given(
    st.lists(
        st.builds(Ranked, st.text(min_size=1, max_size=4), st.floats(0, 10), st.sampled_from("abc")),
        unique_by=lambda r: r.key,
    ),
    st.integers(0, 12),
)
def test_the_best_few_keep_order_and_spread_over_names(ranked: list[Ranked], limit: int) -> None:
    best = top(ranked, limit)
    assert len(best) <= limit
    positions = [ranked.index(r) for r in best]
    assert positions == sorted(positions)
    for name in "abc":
        assert sum(r.name == name for r in best) <= MAX_PER_NAME
