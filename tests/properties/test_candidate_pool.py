"""The candidates a question is ranked over when tests or examples crowd a backend's list.

Laws:

1. A list is crowded only when the tests, examples and doc sections the question does not
   ask for are more than CROWDED of it; a question asking for tests never
   finds a list of tests crowded.
2. Deepening keeps every candidate of the shallow list, keeps the backend's
   order, adds only product code, and adds at most enough of it for the
   list to hold ``limit`` product candidates.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.candidate_pool import CROWDED, crowded, deepen, non_product

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
