"""Related definitions: the ones nearest to a given definition in meaning and in the graph, fused.

Two sources rank the other definitions of the index:

- **by meaning**: the shell searches the given definition's own stored vector
  against the others' (nearest first), or, in an index without vectors, its
  summary as words; this module takes that ranked list of keys as it is;
- **by the graph**: the definitions tied to it (:func:`graph_relatives`), each
  tie weighted by how much it says of what the given one does::

      callee 1.0, caller 1.0, sibling in the same class 0.7,
      parent class 0.6, member 0.6, data source 0.5, sibling in the same file 0.4

  A definition tied several ways sums the weights of its distinct ties (a
  callee in the same file is nearer than one in another), except that being
  in the same file says nothing more of a sibling in the same class, of the
  parent class or of a member: those ties already hold it. Equal weights go
  to the nearer definition (in the same file, then fewer lines away), then
  to the smaller key, so the ranking depends on the ties alone, never on the
  order they were listed in.

The two rankings are fused by reciprocal rank (:func:`greploom.core.fusion.rrf_fuse`,
equal weights) and cut to the limit (:func:`related`).

Laws (tests/properties/test_related.py): the given definition is never in its
own answer; every key answered comes from one of the two sources, and says
which; the answer is deterministic and does not depend on the order of the
ties, nor on repeats in the meaning list; a definition found by both sources
ranks above one found by only one, other things equal; more weight in the
graph never ranks lower there.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence

import attrs

from greploom.core.expand import NodeContext, NodeRef
from greploom.core.fusion import rrf_fuse


class Tie(str, enum.Enum):
    """How a definition is tied to the given one in the graph."""

    CALLEE = "callee"  # the given one calls it
    CALLER = "caller"  # it calls the given one
    CLASS_SIBLING = "class_sibling"  # a method or nested class of the same class
    PARENT_CLASS = "parent_class"  # the class the given method is defined in
    MEMBER = "member"  # defined in the given class or module
    DATA_SOURCE = "data_source"  # its data flows into the given one
    FILE_SIBLING = "file_sibling"  # defined in the same file


TIE_WEIGHT = {
    Tie.CALLEE: 1.0,
    Tie.CALLER: 1.0,
    Tie.CLASS_SIBLING: 0.7,
    Tie.PARENT_CLASS: 0.6,
    Tie.MEMBER: 0.6,
    Tie.DATA_SOURCE: 0.5,
    Tie.FILE_SIBLING: 0.4,
}
# Ties that already place a definition in the given one's file: with one of them,
# being a sibling in the same file adds nothing.
_IN_THE_FILE = frozenset({Tie.CLASS_SIBLING, Tie.PARENT_CLASS, Tie.MEMBER})
_ORDER = {tie: i for i, tie in enumerate(Tie)}


@attrs.frozen
class Neighbourhood:
    """The given definition (``origin``) and every definition tied to it, with the tie."""

    origin: NodeRef
    ties: tuple[tuple[Tie, NodeRef], ...] = ()

    @classmethod
    def around(
        cls,
        ctx: NodeContext,
        class_members: Iterable[NodeRef] = (),
        file_definitions: Iterable[NodeRef] = (),
    ) -> Neighbourhood:
        """The neighbourhood of a stored definition: its own graph (callers, callees, parent
        class, data sources, members), the members of its parent class (``class_members``,
        its siblings) and the definitions of its file (``file_definitions``)."""
        structure = ctx.structure
        ties: list[tuple[Tie, NodeRef]] = []
        ties.extend((Tie.CALLEE, ref) for ref in structure.callees)
        ties.extend((Tie.CALLER, ref) for ref in structure.callers)
        if structure.parent_class is not None:
            ties.append((Tie.PARENT_CLASS, structure.parent_class))
            ties.extend((Tie.CLASS_SIBLING, ref) for ref in class_members)
        ties.extend((Tie.MEMBER, ref) for ref in structure.members)
        ties.extend((Tie.DATA_SOURCE, ref) for ref in structure.data_sources)
        ties.extend((Tie.FILE_SIBLING, ref) for ref in file_definitions)
        return cls(ctx.ref, tuple(ties))


@attrs.frozen
class GraphRelative:
    """A definition tied to the given one: its key, the summed weight of its ties, and the ties."""

    key: str
    weight: float
    ties: tuple[Tie, ...]  # distinct, in the order of :class:`Tie`


@attrs.frozen
class Related:
    """One related definition: its fused score and its 1-based rank in each source (0: absent)."""

    key: str
    score: float
    meaning_rank: int
    graph_rank: int
    ties: tuple[Tie, ...]  # how the graph ties it (empty: found by meaning only)


def _weight(ties: frozenset[Tie]) -> float:
    counted = ties - {Tie.FILE_SIBLING} if ties & _IN_THE_FILE else ties
    return math.fsum(sorted(TIE_WEIGHT[t] for t in counted))


def graph_relatives(hood: Neighbourhood) -> tuple[GraphRelative, ...]:
    """The definitions tied to the origin, heaviest first (then nearest, then by key).

    The origin itself is left out (recursion, or a list holding it, adds
    nothing); a definition listed under several refs is placed by its nearest.
    """
    origin = hood.origin
    ties: dict[str, set[Tie]] = {}
    distance: dict[str, tuple[int, int]] = {}
    for tie, ref in hood.ties:
        if ref.key == origin.key:
            continue
        ties.setdefault(ref.key, set()).add(tie)
        far = (0, abs(ref.line - origin.line)) if ref.file == origin.file else (1, 0)
        distance[ref.key] = min(far, distance.get(ref.key, far))
    relatives = [
        GraphRelative(key, _weight(frozenset(found)), tuple(sorted(found, key=_ORDER.__getitem__)))
        for key, found in ties.items()
    ]
    relatives.sort(key=lambda r: (-r.weight, distance[r.key], r.key))
    return tuple(relatives)


def related(hood: Neighbourhood, by_meaning: Sequence[str], limit: int) -> tuple[Related, ...]:
    """The at most ``limit`` definitions nearest the origin, by meaning and by the graph, fused.

    ``by_meaning``: keys nearest in meaning first, as the shell found them;
    the origin and repeats in it are dropped (a repeat counts at its best
    rank). Fused by reciprocal rank with equal weights: the order is by
    score, then best single rank, then key.
    """
    if limit < 0:
        raise ValueError("limit must be >= 0")
    origin = hood.origin.key
    meaning = [key for key in dict.fromkeys(by_meaning) if key != origin]
    graph = graph_relatives(hood)
    ties = {r.key: r.ties for r in graph}
    fused = rrf_fuse([meaning, [r.key for r in graph]])
    return tuple(
        Related(item.key, item.score, item.ranks[0], item.ranks[1], ties.get(item.key, ()))
        for item in fused[:limit]
    )
