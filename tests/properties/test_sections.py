"""Files no parser reads, in sections (greploom.core.sections).

Laws:

1. Sections are in order, never overlap, never start on a blank line, and
   cover every non-blank line of the file.
2. None is longer than the bound.
3. A file no longer than the bound has no sections: its module shows it whole.
4. A section's title is its first line (whitespace folded, cut).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.sections import SECTION_LINES, TITLE_CHARS, sections

LINES = st.lists(
    st.sampled_from(("", "  ", "def run", "  puts x", "end", "class A  B", "x" * 100)), max_size=300
)


@given(LINES, st.integers(3, SECTION_LINES))
def test_sections_cover_the_file_in_order(lines: list[str], bound: int) -> None:
    """Laws 1, 2 and 4."""
    text = "\n".join(lines)
    found = sections(text, bound)
    covered: set[int] = set()
    previous = 0
    for s in found:
        assert previous < s.first <= s.last <= len(lines)
        assert s.last - s.first + 1 <= bound
        assert lines[s.first - 1].strip()
        assert s.title == " ".join(lines[s.first - 1].split())[:TITLE_CHARS]
        covered.update(range(s.first, s.last + 1))
        previous = s.last
    if found:
        assert all(row in covered for row, line in enumerate(lines, 1) if line.strip())


@given(LINES, st.integers(3, SECTION_LINES))
def test_a_short_file_has_no_sections(lines: list[str], bound: int) -> None:
    """Law 3."""
    text = "\n".join(lines[:bound])
    assert sections(text, bound) == ()
