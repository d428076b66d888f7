"""A module's top-level names as its CPG node carries them ("name:line" items).

Laws:

1. Reading what was written gives the pairs back, in order.
2. Any other value reads as no names, and a malformed item is skipped, never
   an error.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.top_names import encode_top_names, parse_top_names

NAMES = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,12}", fullmatch=True)


@given(st.lists(st.tuples(NAMES, st.integers(1, 10**6)), max_size=20))
def test_what_is_written_reads_back(pairs: list[tuple[str, int]]) -> None:
    assert parse_top_names(encode_top_names(pairs)) == tuple(pairs)


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.text()).map(tuple)))
def test_anything_else_reads_without_error(value: object) -> None:
    for name, line in parse_top_names(value):
        assert name and line >= 0
    assert parse_top_names(("no line", ":3", "x:")) == ()
