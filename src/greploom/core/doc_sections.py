"""Documents and config files cut into named sections: the unit an answer shows of them.

A doc or config file is not code: the shell reads it with its own parser
(Markdown, reStructuredText, YAML, TOML, JSON, INI, Dockerfile:
greploom.shell.doc_parse), which says where its headings (or top-level
entries) are and how deep each is. This module turns them into sections:

- a section runs from its heading to the line before the next heading of
  any level, trailing blank lines dropped: it holds its own text, not its
  subsections' (each is a section of its own), so a hit on "Offline" does
  not spend the budget on the whole "Install" chapter;
- it is named by its heading path, the titles of the headings it sits
  under then its own, after the document's name (the file's stem), joined
  by `` > ``: ``README > Install > Offline``; a heading's parent is the
  nearest heading before it of a lower level;
- text before the first heading is a section named by the document alone;
- a heading with nothing under it before the next one is no section (its
  title still names its children);
- a section longer than ``MAX_SECTION_LINES`` is cut at blank lines
  (greploom.core.sections' rule) into parts named ``... (2)``, ``(3)``;
- a file of at most ``whole_lines`` lines is one section (a small config
  file answers as a whole better than as five three-line pieces).

Keys move with the text they name, never with line numbers
(greploom.core.keys' rule): ``{kind}:{file}:{name}``, a repeated name
(two "Example" sections under "Usage") getting ``#2``, ``#3`` in order.

Laws (tests/properties/test_doc_sections.py): sections are in order and
never overlap; every line holding text is in a section, except lines that
are headings alone; no section is longer than ``MAX_SECTION_LINES``; a
section's name begins with its document's name and ends with its own
heading's title; keys are unique; a file of at most ``whole_lines`` lines
with text is exactly one section.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from greploom.core.sections import sections as paragraph_cuts

MAX_SECTION_LINES = 80
SEPARATOR = " > "
# Characters str.splitlines breaks at besides line feeds: inside a line, for the cut at blank lines.
_OTHER_BREAKS = str.maketrans(dict.fromkeys("\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))


@attrs.frozen
class Heading:
    """Where a parser found a heading (or a config file's top-level entry).

    ``line``: the first line the heading occupies (1-based); ``lines``: how
    many it occupies (2 for a Markdown setext heading or an underlined
    reStructuredText title, 3 with an overline); ``level``: 1 is the top.
    """

    line: int
    title: str
    level: int = 1
    lines: int = 1


@attrs.frozen
class DocSection:
    """Lines ``first`` to ``last`` (1-based, inclusive) of a document, named by its heading path."""

    first: int
    last: int
    path: tuple[str, ...]  # the document's name, then the headings' titles

    @property
    def name(self) -> str:
        """The heading path as shown: ``README > Install > Offline``."""
        return SEPARATOR.join(self.path)


def text_lines(text: str) -> list[str]:
    """A text's lines as its parsers number them: split at line feeds only (``splitlines``
    also splits at form feeds and Unicode separators, which would shift every line after)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _blank(line: str) -> bool:
    return not line.strip()


def _trim(lines: Sequence[str], first: int, last: int) -> int:
    """The last line of ``first..last`` that holds text (first - 1 when none does)."""
    while last >= first and _blank(lines[last - 1]):
        last -= 1
    return last


def _has_text(lines: Sequence[str], first: int, last: int) -> bool:
    return any(not _blank(lines[i - 1]) for i in range(first, last + 1))


def _cut(section: DocSection, lines: Sequence[str], max_lines: int) -> list[DocSection]:
    """A section longer than ``max_lines``, cut at blank lines into numbered parts."""
    if section.last - section.first + 1 <= max_lines:
        return [section]
    body = "\n".join(lines[section.first - 1 : section.last]).translate(_OTHER_BREAKS)
    pieces = paragraph_cuts(body, max_lines)
    out: list[DocSection] = []
    for i, piece in enumerate(pieces, 1):
        path = section.path if i == 1 else (*section.path[:-1], f"{section.path[-1]} ({i})")
        out.append(DocSection(section.first + piece.first - 1, section.first + piece.last - 1, path))
    return out


def doc_sections(
    text: str,
    headings: Sequence[Heading],
    document: str,
    *,
    whole_lines: int = 0,
    max_lines: int = MAX_SECTION_LINES,
) -> tuple[DocSection, ...]:
    """The sections of a document whose parser found ``headings`` (in any order).

    Headings outside the text, or starting inside another heading's lines,
    are ignored; titles are flattened to one line.
    """
    lines = text_lines(text)
    count = len(lines)
    if not _has_text(lines, 1, count):
        return ()
    if count <= whole_lines:
        return tuple(_cut(DocSection(1, _trim(lines, 1, count), (document,)), lines, max_lines))
    usable: list[Heading] = []
    end = 0
    for h in sorted(headings, key=lambda h: (h.line, h.level)):
        if h.line < 1 or h.line > count or h.line <= end:
            continue
        usable.append(h)
        end = min(count, h.line + max(1, h.lines) - 1)
    out: list[DocSection] = []
    first_heading = usable[0].line if usable else count + 1
    last = _trim(lines, 1, first_heading - 1)
    if last >= 1:
        out.extend(_cut(DocSection(1, last, (document,)), lines, max_lines))
    stack: list[tuple[int, str]] = []  # (level, title) of the headings above
    for i, h in enumerate(usable):
        title = " ".join(h.title.split()) or "(untitled)"
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        path = (document, *(t for _, t in stack), title)
        stack.append((h.level, title))
        body_first = h.line + max(1, h.lines)
        stop = usable[i + 1].line - 1 if i + 1 < len(usable) else count
        if not _has_text(lines, body_first, stop):
            continue  # a heading alone: its title names its children
        out.extend(_cut(DocSection(h.line, _trim(lines, h.line, stop), path), lines, max_lines))
    return tuple(out)


def section_keys(kind: str, file: str, sections: Sequence[DocSection]) -> tuple[str, ...]:
    """Each section's stable key, in order: ``{kind}:{file}:{name}``, repeats numbered ``#2``..."""
    seen: dict[str, int] = {}
    keys: list[str] = []
    for s in sections:
        n = seen.get(s.name, 0) + 1
        seen[s.name] = n
        keys.append(f"{kind}:{file}:{s.name}" + (f"#{n}" if n > 1 else ""))
    return tuple(keys)
