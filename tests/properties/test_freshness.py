"""Freshness: whether a block's file changed since the index read it.

Laws:

1. A file that is gone, or whose size differs from the recorded one, has
   changed, whatever its time says.
2. The recorded size and time together mean unchanged: the content is not read.
3. The same size with another time is unsure, and the content's hash decides:
   the recorded hash means unchanged, any other (or none: unreadable) changed.
4. Marking flags exactly the nodes whose file changed, keeps their order, and
   changes nothing else of any node.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.expand import ExpandedNode, NodeRef, Relationship, StructuralContext
from greploom.core.freshness import FileStamp, Verdict, judge, mark_stale, settle

hashes = st.text(alphabet="0123456789abcdef", min_size=4, max_size=8)
stamps = st.builds(FileStamp, st.integers(0, 10**6), st.integers(0, 10**12), hashes)
files = st.sampled_from(("a.py", "b.py", "pkg/c.ts", "d.go"))


@given(stamps, st.one_of(st.none(), st.integers(0, 10**6)), st.integers(0, 10**12))
def test_a_gone_or_resized_file_changed(recorded: FileStamp, size: int | None, mtime: int) -> None:
    if size is None or size != recorded.size:
        assert judge(recorded, size, mtime) is Verdict.STALE


@given(stamps)
def test_the_recorded_size_and_time_mean_unchanged(recorded: FileStamp) -> None:
    assert judge(recorded, recorded.size, recorded.mtime_ns) is Verdict.FRESH


@given(stamps, st.integers(0, 10**12), st.one_of(st.none(), hashes))
def test_same_size_another_time_is_decided_by_content(
    recorded: FileStamp, mtime: int, digest: str | None
) -> None:
    if mtime != recorded.mtime_ns:
        assert judge(recorded, recorded.size, mtime) is Verdict.UNSURE
    assert settle(recorded, recorded.sha256) is False
    assert settle(recorded, digest) is (digest != recorded.sha256)


def _node(key: str, file: str) -> ExpandedNode:
    return ExpandedNode(
        NodeRef(key, key, "function", file, 1),
        1.0,
        Relationship.HIT,
        0,
        None,
        key,
        "",
        None,
        None,
        "",
        StructuralContext(),
    )


@given(st.lists(files, max_size=8), st.frozensets(files))
def test_marking_flags_exactly_the_changed_files_nodes(
    node_files: list[str], changed: frozenset[str]
) -> None:
    nodes = [_node(f"k{i}", f) for i, f in enumerate(node_files)]
    marked = mark_stale(nodes, changed)
    assert [n.ref.key for n in marked] == [n.ref.key for n in nodes]
    for before, after in zip(nodes, marked, strict=True):
        assert after.stale is (before.ref.file in changed)
        assert attrs.evolve(after, stale=False) == before
