"""A search candidate as the ranking sees it, and the same candidate re-scored.

The shell builds :class:`Candidate` values from both backends and the name
lookups (greploom.shell.search); the ranking stages (greploom.core.ranking,
greploom.core.old_code) turn them into :class:`Ranked` ones.
"""

from __future__ import annotations

import attrs

UNPLACED = 1 << 30  # sorts after every location rank, and stands for no rank at all


@attrs.frozen
class Candidate:
    """A search candidate with its 1-based rank in each backend (0: absent)."""

    key: str
    name: str
    qualname: str
    file: str
    lexical_rank: int = 0
    vector_rank: int = 0
    symbol_rank: int = 0  # in the lookup of the symbols the query names (named_symbols)
    location_rank: int = 0  # among the definitions the query's places point at (core.locations)
    kind: str = ""  # as stored: function, class, interface, type, ...
    # A module that binds a name the query names at its top level (``g = LocalProxy(...)``):
    # for a symbol query it is that name's definition (greploom.shell.module_names).
    binds: bool = False
    # The candidates that replace it, by the deprecation note its code carries
    # (greploom.core.deprecation.successor_names), as the shell looked them up.
    replaced_by: tuple[str, ...] = ()
    # A module binding a top-level name whose words a question says (greploom.core.naming.worded),
    # its rank among those.
    worded_rank: int = 0
    # Each backend's score for it, normalized for this query (greploom.core.score_fusion.ScoreScale;
    # 0.0: that backend did not find it). None: not given, and the ranks are fused (RRF).
    lexical_score: float | None = None
    vector_score: float | None = None


PENALTY = "penalty:"  # the prefix of the signals that demote a candidate ("penalty:test")


@attrs.frozen
class Ranked:
    """A re-scored candidate and the factors that made its score."""

    candidate: Candidate
    score: float
    signals: tuple[tuple[str, float], ...]

    @property
    def named(self) -> bool:
        """Whether the query names this definition outright or points at it (by a place)."""
        return any(name in ("definition", "location") for name, _ in self.signals)

    @property
    def demoted(self) -> bool:
        """Whether a penalty demoted it (a test, an old copy, a deprecated definition...)."""
        return any(name.startswith(PENALTY) for name, _ in self.signals)
