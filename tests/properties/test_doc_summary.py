"""The summary and embedded text of a doc or config section (greploom.core.doc_summary).

Laws:

1. The summary starts with the section's name and is at most
   ``SUMMARY_CHARS`` longer than it (plus the separator).
2. The embed text starts with the kind and the name, and is at most
   ``EMBED_CHARS`` long.
3. Neither holds a line of punctuation alone (an underline, a table rule).
4. Both are one function of the section: the same input gives the same output.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.doc_summary import EMBED_CHARS, SUMMARY_CHARS, doc_summary

LINES = st.lists(
    st.sampled_from(
        ("Install", "=======", "-------", "", "Run `pip install x`.", "| a | b |", "|---|---|", "w" * 90)
    ),
    max_size=60,
).map("\n".join)
NAMES = st.sampled_from(("README > Install", "pyproject > tool.ruff", "guide"))


@given(st.sampled_from(("doc", "config")), NAMES, LINES)
def test_summary_and_embed_text(kind: str, name: str, text: str) -> None:
    """Laws 1-4."""
    summary, embed = doc_summary(kind, name, name.rsplit(" > ", 1)[-1], text)
    assert summary.startswith(name)
    assert len(summary) <= len(name) + 2 + SUMMARY_CHARS
    assert embed.startswith(f"{kind} {name}")
    assert len(embed) <= EMBED_CHARS
    for line in (*summary.splitlines(), *embed.splitlines()):
        assert not re.fullmatch(r"\s*[-=|]{3,}\s*", line)
    assert doc_summary(kind, name, name.rsplit(" > ", 1)[-1], text) == (summary, embed)
