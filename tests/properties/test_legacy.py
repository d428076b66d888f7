"""Current code over legacy copies: legacy trees from the code base's paths, namesakes demoted.

Laws:

1. A version directory is legacy beside a newer one in the same parent
   (``v3/`` beside ``v4/``, ``v1beta1/`` beside ``v1/``), never the other way
   round; a first version (``v1/``) is legacy beside its parent's
   unversioned code; directories named for it (``deprecated/``,
   ``legacy/``...) are legacy wherever they are; other directories never.
   A file in a legacy tree is suspect by its path alone, whatever other
   files the trees are read from.
2. A definition outside every legacy tree is never demoted, unless the
   query names a legacy tree holding a candidate of the same name.
3. A definition in a legacy tree is demoted exactly when a current namesake
   exists (same name, another file in no legacy tree, product code) and the
   query does not name its tree.
4. The result does not depend on the order of the files, candidates or
   namesakes.
4b. The old copies are exactly the definitions in a legacy tree the query
   does not name, current namesake or not; in the ranking one without a
   namesake ranks below the same candidate in current code, demoted less
   than a copy beside its namesake, and not at all when the question asks
   about old code.
5. In the ranking: demotion never removes a candidate; a legacy copy never
   outranks its current namesake with the same backend ranks; a query that
   names the legacy tree (``v1``, ``deprecated``) puts the copy in it first;
   a compat path is demoted once, not twice; a place the query points at
   is never demoted.
6. The shell looks up namesakes only for candidates in legacy-looking
   paths whose current code is not already a candidate, at most ``limit``
   names a query.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.legacy import (
    Definition,
    demoted,
    legacy_trees,
    old_copies,
    suspect,
    trees_of,
    version_of,
)
from greploom.core.query import read_query
from greploom.core.ranking import (
    LEGACY_PENALTY,
    OLD_TREE_PENALTY,
    Candidate,
    legacy_suspects,
    rank_candidates,
)

DIRECTORIES = (
    "pkg",
    "pkg/sub",
    "pkg/v1",
    "pkg/v2",
    "pkg/deprecated",
    "lib/v3",
    "lib/v4",
    "lib/v4/core",
    "api/v1beta1",
    "api/v1",
    "pkg/legacy",
    "tests",
)
paths = st.tuples(st.sampled_from(DIRECTORIES), st.sampled_from(("a.py", "b.ts", "mod.go"))).map("/".join)
names = st.sampled_from(("validate_arguments", "parse", "Model", "send"))
definitions = st.lists(
    st.builds(Definition, key=st.uuids().map(str), name=names, file=paths),
    max_size=10,
    unique_by=lambda d: d.key,
)
namesakes = st.lists(st.tuples(names, paths), max_size=6)
words = st.sampled_from(
    (frozenset(), frozenset({"validate", "arguments"}), frozenset({"v1"}), frozenset({"deprecated"}))
)


def _product(file: str) -> bool:
    return not file.startswith("tests/")


@given(st.integers(0, 9), st.integers(0, 9), st.sampled_from(("", "alpha", "beta", "rc")), st.integers(0, 3))
def test_versions_order_as_released(a: int, b: int, stage: str, n: int) -> None:
    """v3 < v4; a pre-release comes before its release: v1beta1 < v1beta2 < v1."""
    va, vb = version_of(f"v{a}"), version_of(f"v{b}")
    assert va is not None and vb is not None
    assert (va < vb) == (a < b)
    if stage:
        pre, later = version_of(f"v{a}{stage}{n}"), version_of(f"v{a}{stage}{n + 1}")
        assert pre is not None and later is not None and pre < later < va
    for plain in ("vendor", "version", "v", "vx1", "dev"):
        assert version_of(plain) is None


@given(st.lists(paths, min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_older_beside_newer_is_legacy(files: list[str], rnd: object) -> None:
    """An older version beside a newer one is legacy; the newest never is; named trees always are."""
    trees = legacy_trees(files)
    shuffled = list(files)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert legacy_trees(shuffled) == trees
    dirs = {f.rsplit("/", 1)[0] for f in files}
    if "lib/v4" in dirs or "lib/v4/core" in dirs:
        assert "lib/v4" not in trees
        if "lib/v3" in dirs:
            assert "lib/v3" in trees
    if "api/v1beta1" in dirs and "api/v1" in dirs:
        assert "api/v1beta1" in trees and "api/v1" not in trees
    if "pkg/v1" in dirs and "pkg/v2" in dirs:
        assert "pkg/v1" in trees and "pkg/v2" not in trees
    for named in ("pkg/deprecated", "pkg/legacy"):
        assert (named in trees) == (named in dirs)
    assert not trees & {"pkg", "pkg/sub", "tests", "lib", "api", "lib/v4/core"}
    for f in files:  # the shell's cheap check from the path alone misses no legacy tree
        if trees_of(f, trees):
            assert suspect(f)
    assert not suspect("pkg/sub/a.py") and not suspect("lib/version/a.py")


@given(st.lists(paths, max_size=8), st.lists(paths, max_size=8))
def test_a_file_in_a_legacy_tree_is_suspect_whatever_files_read(mine: list[str], others: list[str]) -> None:
    """Law 1's bound: whatever other files the trees are read from, a file lying in a legacy
    tree is suspect by its path alone."""
    trees = legacy_trees([*mine, *others])
    for f in mine:
        if trees_of(f, trees):
            assert suspect(f)


def test_a_first_version_beside_its_parent_s_code() -> None:
    """pydantic's v1/ beside the rest of pydantic/ is legacy; Kubernetes' apps/v1/ alone is not."""
    assert legacy_trees(["pydantic/v1/main.py", "pydantic/main.py"]) == {"pydantic/v1"}
    assert legacy_trees(["apps/v1/types.go", "apps/v1beta1/types.go"]) == {"apps/v1beta1"}
    assert legacy_trees(["api/v2/handlers.go", "api/doc.go"]) == frozenset()  # a Go module's v2 is newer
    assert trees_of("a/deprecated/v1/x.py", frozenset({"a/deprecated", "a/deprecated/v1"})) == (
        "a/deprecated",
        "a/deprecated/v1",
    )


@given(definitions, namesakes, words)
def test_only_legacy_copies_with_a_current_namesake_are_demoted(
    defs: list[Definition], others: list[tuple[str, str]], said: frozenset[str]
) -> None:
    """Current code is never demoted unless the query names a tree holding its namesake; a legacy copy
    is demoted exactly when a current namesake exists and its tree is not asked for."""
    out = demoted(defs, others, said, _product)
    trees = legacy_trees([*(d.file for d in defs), *(f for _, f in others)])
    for d in defs:
        asked_namesake = any(
            e.name == d.name and any(t.rsplit("/", 1)[-1] in said for t in trees_of(e.file, trees))
            for e in defs
        )
        mine = trees_of(d.file, trees)
        if asked_namesake:
            continue  # the query picks the tree: checked by the ranking's law below
        if not mine:
            assert d.key not in out
            continue
        current = any(
            f != d.file and not trees_of(f, trees) and _product(f)
            for f in [*(e.file for e in defs if e.name == d.name), *(f for n, f in others if n == d.name)]
        )
        assert (d.key in out) == current


@given(definitions, namesakes, words, st.randoms(use_true_random=False))
def test_demotion_does_not_depend_on_order(
    defs: list[Definition], others: list[tuple[str, str]], said: frozenset[str], rnd: object
) -> None:
    a, b = list(defs), list(others)
    rnd.shuffle(a)  # type: ignore[attr-defined]
    rnd.shuffle(b)  # type: ignore[attr-defined]
    assert demoted(a, b, said, _product) == demoted(defs, others, said, _product)


@given(definitions, namesakes, words)
def test_old_copies_are_what_lies_in_a_tree_not_asked_for(
    defs: list[Definition], others: list[tuple[str, str]], said: frozenset[str]
) -> None:
    """Namesake or not: in a legacy tree whose name the query does not say."""
    out = old_copies(defs, others, said)
    trees = legacy_trees([*(d.file for d in defs), *(f for _, f in others)])
    for d in defs:
        mine = trees_of(d.file, trees)
        assert (d.key in out) == (bool(mine) and not any(t.rsplit("/", 1)[-1] in said for t in mine))


ranks = st.integers(1, 10)
legacy_dirs = st.sampled_from(("pkg/v1", "pkg/deprecated", "lib/v3"))
queries = st.sampled_from(
    ("validate_arguments", "validate the arguments of a call", "how does validation work")
)


def _pair(legacy_dir: str, lex: int, vec: int) -> tuple[Candidate, Candidate]:
    current_dir = "lib/v4" if legacy_dir.startswith("lib") else "pkg"
    old = Candidate(
        "old", "validate_arguments", "x.validate_arguments", f"{legacy_dir}/decorator.py", lex, vec
    )
    new = Candidate(
        "new", "validate_arguments", "y.validate_arguments", f"{current_dir}/decorator.py", lex, vec
    )
    return old, new


@given(queries, legacy_dirs, ranks, ranks)
def test_the_current_definition_comes_before_its_legacy_copy(
    query: str, legacy_dir: str, lex: int, vec: int
) -> None:
    """Same name, same ranks: the current one first; the copy is kept, demoted once."""
    old, new = _pair(legacy_dir, lex, vec)
    ranked = rank_candidates(query, [old, new])
    assert [r.candidate.key for r in ranked] == ["new", "old"]
    assert [n for n, _ in ranked[1].signals if n.startswith("penalty")] == ["penalty:legacy"]


@given(legacy_dirs, ranks, ranks, st.integers(0, 3))
def test_a_query_naming_the_legacy_tree_finds_it_first(
    legacy_dir: str, lex: int, vec: int, worse: int
) -> None:
    """``v1 validate_arguments``, ``the deprecated validate_arguments``: the copy asked for first."""
    old, new = _pair(legacy_dir, lex + worse, vec + worse)
    tree = legacy_dir.rsplit("/", 1)[-1]
    for query in (f"{tree} validate_arguments", f"where is the {tree} validate_arguments defined"):
        assert tree in read_query(query).words
        ranked = rank_candidates(query, [attrs.evolve(new, lexical_rank=lex, vector_rank=vec), old])
        assert ranked[0].candidate.key == "old", query


@given(queries, ranks, ranks)
def test_a_namesake_only_in_the_lookup_still_demotes(query: str, lex: int, vec: int) -> None:
    """The current definition need not be a candidate: the stored lookup's namesakes count;
    a test double of the same name is no current API."""
    old, _ = _pair("pkg/v1", lex, vec)
    assert legacy_suspects([old]) == ("validate_arguments",)
    alone = rank_candidates(query, [old])
    assert not any(n == "penalty:legacy" for n, _ in alone[0].signals)
    test_double = rank_candidates(query, [old], namesakes=[("validate_arguments", "tests/test_v.py")])
    assert test_double[0].score == alone[0].score
    looked_up = rank_candidates(query, [old], namesakes=[("validate_arguments", "pkg/decorator.py")])
    assert looked_up[0].score < alone[0].score


@given(queries, ranks, ranks)
def test_old_code_without_a_namesake_is_demoted_less(query: str, lex: int, vec: int) -> None:
    """pydantic's v1 helpers have no current namesake: below the same candidate in current code,
    demoted less than a copy beside its namesake; a question about old code wants them as found."""
    helper = Candidate("old", "check_kwargs", "v1.check_kwargs", "pkg/v1/decorator.py", lex, vec)
    current = Candidate("cur", "other", "m.other", "pkg/main.py", lex + 20, vec + 20)
    plain = Candidate("same", "check_kwargs", "m.check_kwargs", "pkg/check.py", lex, vec)
    ranked = {r.candidate.key: r for r in rank_candidates(query, [helper, current])}
    moved = attrs.evolve(plain, key="old")
    as_current = {r.candidate.key: r for r in rank_candidates(query, [moved, current])}
    assert ranked["old"].score == as_current["old"].score * OLD_TREE_PENALTY
    assert ("penalty:legacy", OLD_TREE_PENALTY) in ranked["old"].signals
    assert OLD_TREE_PENALTY > LEGACY_PENALTY
    for asking in ("how did the old v1 decorator check kwargs", "deprecated keyword checks"):
        asked = {r.candidate.key: r for r in rank_candidates(asking, [helper, current])}
        assert not any(n.startswith("penalty") for n, _ in asked["old"].signals), asking


@given(queries, ranks, ranks)
def test_compat_code_is_demoted_once(query: str, lex: int, vec: int) -> None:
    """legacy/ and compat/ paths are the compat category's already: one penalty, not two;
    a place the query points at is never demoted."""
    old, new = _pair("pkg/legacy", lex, vec)
    ranked = rank_candidates(query, [old, new])
    assert [n for n, _ in ranked[1].signals if n.startswith("penalty")] == ["penalty:compat"]
    placed = rank_candidates(query, [attrs.evolve(old, location_rank=1), new])
    assert not any(n.startswith("penalty") for n, _ in placed[0].signals)


@given(
    st.lists(
        st.builds(
            Candidate,
            key=st.uuids().map(str),
            name=names,
            qualname=st.just("m.x"),
            file=paths,
            lexical_rank=st.integers(0, 10),
            vector_rank=st.integers(0, 10),
        ),
        max_size=12,
        unique_by=lambda c: c.key,
    ),
    st.integers(1, 4),
)
def test_the_lookup_asks_only_for_what_the_candidates_leave_open(pool: list[Candidate], limit: int) -> None:
    """The shell looks up the namesakes of candidates in legacy-looking paths, at most ``limit`` names,
    and none whose current code is already a candidate."""
    asked = legacy_suspects(pool, limit)
    assert len(asked) == len(set(asked)) <= limit
    settled = {c.name for c in pool if not suspect(c.file) and not c.file.startswith("tests/")}
    open_names = {c.name for c in pool if suspect(c.file)} - settled
    assert set(asked) <= open_names
    assert len(asked) == min(limit, len(open_names))
