"""Call evidence: the definition that calls several of the matching ones is the whole they are parts of.

A question that describes a whole ("prepares the entire request with the
given parameters", "writes the help into the formatter", "finalizes the
request") matches each of its parts a little better than the whole: the
words are spread over ``prepare_method``, ``prepare_headers`` and
``prepare_url``, each saying one of them, while ``PreparedRequest.prepare``,
which calls them all in order, says none of them itself. The call graph
knows which definition puts the parts together. Here a candidate gains a
share of the evidence of the candidates it calls:

    lift = CALL_LIFT x file_score(the scores of its callee candidates)
           for a candidate calling at least CALL_PARTS other candidates; 0 otherwise

The callees are the calls between candidates the index stores at either end
(the caller's ``structure.callees`` or the callee's ``structure.callers``,
both capped), counted once each, itself never. Like class and file evidence,
the lift is applied as a factor of the candidate's own score, so a candidate
scoring 0 (no backend found it) gains nothing. A candidate the ranking demoted (a test, an
old copy, a deprecated definition) gains nothing: what a test calls is the
product's evidence, not the test's.

Why three parts: one function calling two helpers that both match a
question's words is common and says nothing about which is asked for; the
orchestrator of three matched parts is rarer and, where it exists, usually
the answer. Measured on the quality harness (signals, mean NDCG@10 over 11
code bases, 0.8155 before): at least two callees, lift 0.2: 0.8148 (callers
passing the part asked for, ``_get_proxy_map`` over the environment lookup it
calls); at least three, lift 0.1 / 0.15 / **0.2** / 0.3 / 0.5: 0.8180 / 0.8187 /
**0.8206** / 0.8185 / 0.8158 (0.3: the callers of three weak parts passing
attrs' and click's answers); at least four, lift 0.2 / 0.3: 0.8188 / 0.8185.
With three and 0.2 no query lost more than 0.01; six gained: ``prepare`` 0.30 ->
1.00, ``resolve_redirects`` and ``termui.edit`` 0.63 -> 1.00, ``format_help``
0.32 -> 0.50.

Laws (tests/properties/test_call_evidence.py): lifts are never negative; a
candidate gains only when it calls at least CALL_PARTS other candidates and
is not demoted; a callee scoring higher, or one more callee, never lowers a
lift; calls to definitions that are not candidates change nothing; the lifts
do not depend on the order the candidates or their callees are given in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from greploom.core.class_evidence import Scored
from greploom.core.file_evidence import file_score

CALL_LIFT = 0.2  # share of the callees' evidence (file_score of their scores) added to the caller
CALL_PARTS = 3  # callee candidates a caller needs: two helpers matching is common, three a whole


def callee_candidates(key: str, calls: Mapping[str, Sequence[str]], scores: Mapping[str, float]) -> list[str]:
    """The candidates ``key`` calls (once each, itself never), in key order."""
    return sorted({c for c in calls.get(key, ()) if c != key and c in scores})


def call_lifts(
    pool: Iterable[Scored],
    calls: Mapping[str, Sequence[str]],
    *,
    demoted: Collection[str] = (),
    lift: float = CALL_LIFT,
    least: int = CALL_PARTS,
) -> dict[str, float]:
    """What each candidate gains from the candidates it calls (0.0 for most), by key.

    ``calls``: the stored callee keys of (some of) the candidates; ``demoted``: the keys of
    candidates the ranking penalized, which gain nothing.
    """
    scores = {c.key: c.score for c in pool}
    out = dict.fromkeys(sorted(scores), 0.0)
    for key in out:
        if key in demoted:
            continue
        parts = callee_candidates(key, calls, scores)
        if len(parts) >= least:
            out[key] = lift * file_score(scores[p] for p in parts)
    return out
