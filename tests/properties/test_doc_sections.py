"""Docs and config files cut into named sections (greploom.core.doc_sections).

Laws:

1. Sections are in order and never overlap.
2. Every line holding text is in a section, except lines that belong to a
   heading with nothing under it before the next heading.
3. No section is longer than the bound.
4. A section's name begins with the document's name; a section starting at
   a heading ends with that heading's title (or a numbered part of it).
5. Keys are unique and begin with ``{kind}:{file}:``.
6. A file of at most ``whole_lines`` lines that holds text is one section,
   named by the document alone.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.doc_sections import SEPARATOR, Heading, doc_sections, section_keys

# Form feeds and Unicode line separators are inside lines, as the parsers read them.
WORDS = st.sampled_from(
    ("", "", "  ", "Install the wheel.", "run `x`", "- item", "Usage", "x" * 60, "a\fb\u2028c")
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[Heading]]:
    """A text and headings at some of its lines (levels 1-4, titles that may repeat)."""
    lines = draw(st.lists(WORDS, max_size=200))
    headings: list[Heading] = []
    if lines:
        rows = draw(st.lists(st.integers(1, len(lines)), unique=True, max_size=20))
        for row in rows:
            title = draw(st.sampled_from(("Install", "Usage", "Example", "A  long\ttitle")))
            level = draw(st.integers(1, 4))
            span = draw(st.integers(1, 3))
            headings.append(Heading(row, title, level, span))
            lines[row - 1] = "# " + title
    return "\n".join(lines), headings


def _lines(text: str) -> list[str]:
    return text.split("\n") if text else []


def _heading_lines(headings: list[Heading], count: int) -> set[int]:
    """Lines that are heading text (the first heading wins where two would overlap)."""
    taken: set[int] = set()
    end = 0
    for h in sorted(headings, key=lambda h: (h.line, h.level)):
        if h.line <= end:
            continue
        end = min(count, h.line + h.lines - 1)
        taken.update(range(h.line, end + 1))
    return taken


@given(documents(), st.integers(3, 80))
def test_sections_are_in_order_bounded_and_named(doc: tuple[str, list[Heading]], bound: int) -> None:
    """Laws 1, 3 and 4."""
    text, headings = doc
    found = doc_sections(text, headings, "README", max_lines=bound)
    previous = 0
    starts = {h.line: " ".join(h.title.split()) for h in headings}
    for s in found:
        assert previous < s.first <= s.last
        assert s.last - s.first + 1 <= bound
        assert s.path[0] == "README" or s.path == (f"README ({s.path[0][8:-1]})",)  # a numbered part
        assert s.name.startswith("README")
        if s.first in starts and len(s.path) > 1:
            assert s.path[-1] == starts[s.first] or s.path[-1].startswith(starts[s.first] + " (")
        previous = s.last


@given(documents())
def test_every_line_of_text_is_in_a_section(doc: tuple[str, list[Heading]]) -> None:
    """Law 2: only a heading with nothing under it is left out."""
    text, headings = doc
    lines = _lines(text)
    found = doc_sections(text, headings, "README")
    covered = {i for s in found for i in range(s.first, s.last + 1)}
    heads = _heading_lines(headings, len(lines))
    for row, line in enumerate(lines, 1):
        if line.strip() and row not in covered:
            assert row in heads, f"line {row} {line!r} is in no section"


@given(documents())
def test_keys_are_unique(doc: tuple[str, list[Heading]]) -> None:
    """Law 5."""
    text, headings = doc
    found = doc_sections(text, headings, "guide")
    keys = section_keys("doc", "docs/guide.md", found)
    assert len(set(keys)) == len(keys) == len(found)
    assert all(k.startswith("doc:docs/guide.md:guide") for k in keys)
    assert all(SEPARATOR.join(s.path) in k for s, k in zip(found, keys, strict=True))


@given(documents(), st.integers(1, 60))
def test_a_small_file_is_one_section(doc: tuple[str, list[Heading]], whole: int) -> None:
    """Law 6."""
    text, headings = doc
    lines = _lines(text)
    found = doc_sections(text, headings, "compose", whole_lines=whole)
    if any(line.strip() for line in lines) and len(lines) <= whole:
        assert len(found) == 1
        assert found[0].path == ("compose",)
        assert found[0].first == 1
