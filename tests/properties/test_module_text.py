"""A module's own text (greploom.core.module_text): its top-level statements, definitions elided.

Laws:

1. The text is an in-order subsequence of the file's lines, plus ``...`` markers.
2. Every non-blank line outside all definition spans is kept.
3. No line inside a definition (its first line included) is kept.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgData, CpgNode, NodeKind, SourceLocation
from greploom.core.module_text import module_outline, with_module_text

LINES = st.lists(
    st.sampled_from(("x = 1", "route('/a', view)", "", "# note", "__all__ = ['a']", "y")), max_size=30
)


@st.composite
def files(draw: st.DrawFn) -> tuple[list[str], list[tuple[int, int]]]:
    lines = draw(LINES.filter(bool))
    n = len(lines)
    spans = []
    for _ in range(draw(st.integers(0, 4))):
        first = draw(st.integers(1, n))
        last = draw(st.integers(first, n))
        spans.append((first, last))
    return [f"{i}: {line}" if line else "" for i, line in enumerate(lines, 1)], spans


def _inside(spans: list[tuple[int, int]]) -> set[int]:
    return {row for first, last in spans if last > first for row in range(first, last + 1)}


@given(files())
def test_the_text_is_an_in_order_subsequence(case: tuple[list[str], list[tuple[int, int]]]) -> None:
    """Law 1."""
    lines, spans = case
    kept = [line for line in module_outline("\n".join(lines), spans).split("\n") if line.strip() != "..."]
    it = iter(lines)
    assert all(any(line == other for other in it) for line in kept)


@given(files())
def test_top_level_lines_are_kept_definitions_are_not(
    case: tuple[list[str], list[tuple[int, int]]],
) -> None:
    """Laws 2 and 3."""
    lines, spans = case
    kept = set(module_outline("\n".join(lines), spans).split("\n"))
    inside = _inside(spans)
    for row, line in enumerate(lines, 1):
        if not line.strip():
            continue
        assert (line in kept) == (row not in inside), (row, line)


def test_modules_get_their_text_and_other_nodes_are_left_alone() -> None:
    """Only module nodes of given files without source change."""
    text = '"""Routes."""\nimport flask\n\ndef index():\n    return 1\n\nroutes = [index]\n'
    module = CpgNode("m", NodeKind.MODULE, "app", SourceLocation("app.py", 1, 0))
    index = CpgNode(
        "f", NodeKind.FUNCTION, "index", SourceLocation("app.py", 4, 0), SourceLocation("app.py", 5, 12), "m"
    )
    other = CpgNode("o", NodeKind.MODULE, "other", SourceLocation("other.py", 1, 0))
    data = with_module_text(CpgData(nodes=(module, index, other), edges=()), {"app.py": text})
    by_id = {n.id: n for n in data.nodes}
    assert (
        by_id["m"].attr("source_text")
        == '"""Routes."""\nimport flask\n\n...\n\nroutes = [index]'
    )
    assert by_id["f"] == index and by_id["o"] == other
