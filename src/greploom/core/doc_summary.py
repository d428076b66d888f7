"""The summary and the embedded text of a doc or config section.

A code definition is summarised by its signature and docstring
(greploom.core.summary); a section of prose or config by its heading path
and its first words:

    summary    = "{name}: {first sentences of its text}"   (at most SUMMARY_CHARS)
    embed text = "{kind} {name}\\n{its text}"               (at most EMBED_CHARS)

The text drops markup that carries no words: heading markers (``#``) and
the lines of punctuation that underline reStructuredText titles or rule a
table. The embedded text is cut where the local model stops reading anyway
(256 word pieces are about 1,000 characters of prose); the search columns
hold the whole section (greploom.shell.schema).

Laws (tests/properties/test_doc_summary.py): the summary starts with the
section's name and is never longer than SUMMARY_CHARS plus the name; the
embed text starts with the kind and the name; both are one function of the
section (same input, same output), and neither holds a line of punctuation
alone.
"""

from __future__ import annotations

import re

SUMMARY_CHARS = 200
EMBED_CHARS = 1_500

_RULE = re.compile(r"^\s*[-=~^\"'`#*+_:.|<>]{3,}\s*$")  # an underline, a table rule, a thematic break
_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s+")


def plain_lines(text: str) -> list[str]:
    """The section's lines that carry words, heading markers dropped."""
    out = []
    for line in text.splitlines():
        if not line.strip() or _RULE.match(line):
            continue
        out.append(_HEADING_MARK.sub("", line).rstrip())
    return out


def _first_words(lines: list[str], skip: str) -> str:
    words: list[str] = []
    size = 0
    for line in lines:
        flat = " ".join(line.split())
        if not words and flat.strip("#*[]: ") == skip.strip("#*[]: "):
            continue  # the heading line repeats the name's last part
        words.append(flat)
        size += len(flat) + 1
        if size >= SUMMARY_CHARS:
            break
    text = " ".join(words)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 3].rstrip() + "..."


def doc_summary(kind: str, name: str, title: str, text: str) -> tuple[str, str]:
    """(summary, embed text) of a section named ``name`` whose own heading reads ``title``."""
    lines = plain_lines(text)
    first = _first_words(lines, title)
    summary = f"{name}: {first}" if first else name
    body = "\n".join(lines)
    embed = f"{kind} {name}\n{body}"
    return summary, embed[:EMBED_CHARS]
