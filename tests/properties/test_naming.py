"""A question naming a module-level name by its words (greploom.core.naming.worded).

Laws:

1. A name is worded only when the question says at least WORDED_MIN of its
   words and at least WORDED_SHARE of them (words matched by their first
   four letters, as focus matches them).
2. Saying more of a name's words never ranks its module lower.
3. Each module comes once, at its best name; the order of the rows does not
   matter.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.naming import WORDED_MIN, WORDED_SHARE, name_stems, worded
from greploom.core.query import signal_words

WORDS = ("policy", "violation", "status", "cache", "lexer", "upload", "bytes", "max", "keys", "renamed")
names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True).map(
    lambda ws: "_".join(w.upper() for w in ws)
)
rows = st.lists(
    st.tuples(st.sampled_from(("module:a.py", "module:b.py", "module:c.py")), names, st.integers(1, 99)),
    max_size=8,
)
questions = st.lists(st.sampled_from((*WORDS, "the", "of", "what", "is")), max_size=8).map(" ".join)


@given(questions, rows)
def test_a_name_needs_enough_of_its_words(question: str, found: list[tuple[str, str, int]]) -> None:
    """Laws 1 and 3."""
    words = signal_words(question)
    said = {w[:4] for w in words if len(w) >= 3}
    out = worded(words, found)
    keys = [k for k, _ in out]
    assert len(keys) == len(set(keys))
    def enough(name: str) -> bool:
        parts = name_stems(name)
        return len(parts & said) >= WORDED_MIN and len(parts & said) >= WORDED_SHARE * len(parts)

    for key, line in out:
        assert any(k == key and at == line and enough(n) for k, n, at in found)
    for key, name, _line in found:
        if enough(name):
            assert key in keys
    assert out == worded(words, list(reversed(found)))


@given(st.lists(st.sampled_from(WORDS), min_size=3, max_size=4, unique=True))
def test_saying_more_words_never_ranks_lower(words: list[str]) -> None:
    """Law 2: the module whose name the question says more of comes first."""
    full = "_".join(w.upper() for w in words)
    partial = "_".join(w.upper() for w in words[:2]) + "_OTHERTHING_ELSEWHERE"
    question = frozenset(words)
    out = worded(question, [("module:b.py", partial, 1), ("module:a.py", full, 2)])
    assert next(k for k, _ in out) == "module:a.py"
