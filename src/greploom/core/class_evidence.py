"""Class-level evidence: a class that leads its matching members is where the answer lives.

A question in words ("a signed cookie session that expires after a maximum
age") often matches a class and several of its methods a little each:
``SessionMiddleware`` matched, and so did its ``__init__``, ``__call__`` and
``send_wrapper``, while ``Response.set_cookie`` of another file matched once,
better than any of them alone, and came first. Here a class gains a share of
its member candidates' evidence, as a file does for questions about how the
code is built (greploom.core.file_evidence), but only where the class itself
is the best match of its group:

    lift = CLASS_LIFT x file_score(the scores of its member candidates)
           for a class with at least CLASS_MEMBERS member candidates (definitions of
           its file inside it: qualified name below the class's), none scoring higher;
           0 otherwise

Why only then: where a member matches better than its class, the member is
the answer ("where are redirects followed for a session" wants
``SessionRedirectMixin.resolve_redirects``, not the mixin), and it already
stands for its class. Measured on the quality harness (signals, mean NDCG@10
over 11 code bases, 0.813 before): lifting every class with a member candidate
0.809 (questions 0.784 -> 0.771, the class passing the method asked for);
only a class that leads its members 0.813; with at least two member
candidates 0.815, nothing lower by more than 0.02 on one query; see REPORT.md.

Laws (tests/properties/test_class_evidence.py): lifts are never negative and
go only to classes; a class gains only when at least CLASS_MEMBERS of its
members are candidates and none scores above it; raising a member's score
while the class still leads, or adding a weaker member, never lowers its
lift; the result does not depend on the order the candidates are given in.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from greploom.core.file_evidence import file_score

CLASS_LIFT = 0.2  # share of the members' evidence (file_score of their scores) added to the class
CLASS_MEMBERS = 2  # member candidates a class needs: one method matching is the method's own match
CLASS_KIND = "class"


@attrs.frozen
class Scored:
    """One candidate: its key, qualified name, file, kind and score from the per-candidate signals."""

    key: str
    qualname: str
    file: str
    kind: str
    score: float


def members_of(owner: Scored, pool: Iterable[Scored]) -> tuple[Scored, ...]:
    """The candidates defined inside ``owner``: its file's, qualified below its qualified name."""
    below = owner.qualname + "."
    return tuple(c for c in pool if c.file == owner.file and c.qualname.startswith(below))


def class_lifts(
    pool: Iterable[Scored], *, lift: float = CLASS_LIFT, least: int = CLASS_MEMBERS
) -> dict[str, float]:
    """What each candidate gains from its members' evidence (0.0 for all but leading classes), by key."""
    everyone = sorted(pool, key=lambda c: c.key)
    out = dict.fromkeys((c.key for c in everyone), 0.0)
    for owner in everyone:
        if owner.kind != CLASS_KIND:
            continue
        inside = members_of(owner, everyone)
        if len(inside) >= least and all(m.score <= owner.score for m in inside):
            out[owner.key] = lift * file_score(m.score for m in inside)
    return out
