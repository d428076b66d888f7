"""The candidates a question is ranked over when tests or examples crowd a backend's list.

Laws:

1. A list is crowded only when the tests, examples and doc sections the question does not
   ask for are more than CROWDED of it; a question asking for tests never
   finds a list of tests crowded.
2. Deepening keeps every candidate of the shallow list, keeps the backend's
   order, adds only product code, and adds at most enough of it for the
   list to hold ``limit`` product candidates.
3. Code in a legacy tree crowds a list as tests do, and is not added when
   deepening, unless the question names the tree or asks about old code. A
   list that :func:`may_be_crowded` says cannot be crowded is not, whatever
   other files of the code base the legacy trees are read from.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.candidate_pool import CROWDED, crowded, deepen, may_be_crowded, non_product
from greploom.core.legacy import ASKS_FOR_OLD, legacy_trees

files = st.sampled_from(
    (
        "pkg/core.py",
        "pkg/util.py",
        "tests/test_core.py",
        "pkg/tests/test_util.py",
        "examples/demo.py",
        "lib/a.ts",
    )
)
asks = st.sampled_from((frozenset(), frozenset({"how", "parse"}), frozenset({"test", "parse"})))


@given(st.lists(files, max_size=20), asks)
def test_crowded_means_mostly_tests_not_asked_for(listed: list[str], words: frozenset[str]) -> None:
    share = sum(non_product(f, words) for f in listed) / len(listed) if listed else 0.0
    assert crowded(listed, words) == (share > CROWDED)
    if "test" in words:
        assert not crowded([f for f in listed if "test" in f], words)


@given(st.lists(files, min_size=1, max_size=30), st.integers(1, 10), asks)
def test_deepening_keeps_order_and_adds_only_product_code(
    deep_files: list[str], limit: int, words: frozenset[str]
) -> None:
    deep = [(f"k{i}", file) for i, file in enumerate(deep_files)]
    shallow = [key for key, _ in deep[:limit]]
    out = deepen(shallow, deep, limit, words)
    assert set(shallow) <= set(out)
    order = [key for key, _ in deep]
    assert out == sorted(out, key=order.index)  # the backend's order
    file_of = dict(deep)
    added = [key for key in out if key not in shallow]
    assert all(not non_product(file_of[key], words) for key in added)
    product = [key for key in out if not non_product(file_of[key], words)]
    assert len(product) <= max(limit, sum(not non_product(file_of[k], words) for k in shallow))


@given(st.lists(st.sampled_from(("doc", "config", "function", "class")), max_size=20), asks)
def test_doc_sections_crowd_like_tests(kinds: list[str], words: frozenset[str]) -> None:
    """Law 1 for doc and config sections: they crowd a list unless the question asks about docs."""
    listed = ["README.md" if k in ("doc", "config") else "pkg/core.py" for k in kinds]
    prose = sum(k in ("doc", "config") for k in kinds)
    assert crowded(listed, words, kinds) == (prose > CROWDED * len(kinds) if kinds else False)
    assert not crowded(listed, words | {"install"}, kinds)


code_files = st.sampled_from(
    (
        "pkg/core.py", "pkg/v1/core.py", "pkg/v1/sub/util.py", "pkg/deprecated/api.py", "pkg/v2/core.py",
        "pkg/v3/core.py", "pkg/deprecated/v2/api.py", "lib/legacy/v3/a.py", "lib/b.py",
    )
)  # fmt: skip
old_asks = st.sampled_from(
    (
        frozenset({"parse"}), frozenset({"v1", "parse"}), frozenset({"deprecated"}), frozenset({"legacy"}),
        frozenset({"v2", "parse"}), frozenset({"v3"}),
    )
)  # fmt: skip


@given(st.lists(code_files, max_size=16), old_asks)
def test_old_code_crowds_unless_asked_for(listed: list[str], words: frozenset[str]) -> None:
    """Law 3: old copies are not product code unless the question names their tree or asks about old code."""
    trees = legacy_trees(listed)
    for file in listed:
        in_tree = any(file.startswith(t + "/") for t in trees)
        named = any(file.startswith(t + "/") and t.rsplit("/", 1)[-1] in words for t in trees)
        expected = in_tree and not named and not (words & ASKS_FOR_OLD)
        assert non_product(file, words, trees=trees) == expected
    share = sum(non_product(f, words, trees=trees) for f in listed)
    assert crowded(listed, words, trees=trees) == (bool(listed) and share > CROWDED * len(listed))
    deep = [(f"k{i}", f) for i, f in enumerate(listed)]
    out = deepen([], deep, 5, words, trees=trees)
    assert all(not non_product(f, words, trees=trees) for k, f in deep if k in out)


@given(st.lists(code_files, max_size=12), st.lists(code_files, max_size=12), old_asks)
def test_a_list_that_cannot_be_crowded_is_not_whatever_the_trees(
    listed: list[str], others: list[str], words: frozenset[str]
) -> None:
    """Law 3's bound: the shell reads deeper to learn the trees only when this says it may matter."""
    if not may_be_crowded(listed, words):
        assert not crowded(listed, words, trees=legacy_trees([*listed, *others]))
