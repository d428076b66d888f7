"""A query in a session: its candidates smoothed toward the session's memory, what it sent whole
not sent again, and the memory updated with what it answered (greploom.core.followup).

Three steps around the ordinary query (greploom.shell.querying):

- after the search, :func:`follow_up` mixes the candidates' scores with the
  memory by the gate (a pivot is left alone; a question that points back
  leans on the memory, whose definitions may join the candidates);
- before packing, :func:`shown_earlier` turns each block the session has
  already received whole (and whose file did not change since) into a
  one-line reference saying so, so the budget goes to code not yet sent;
- after packing, :func:`record` remembers the hits and the blocks the text
  showed whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from greploom.core.errors import UsageError
from greploom.core.expand import ExpandedNode, Relationship
from greploom.core.followup import Memory, gate, normalized, points_back, remember, smooth
from greploom.core.query import Query
from greploom.core.render import Detail
from greploom.shell.answer import QueryAnswer
from greploom.shell.search import SearchHit
from greploom.shell.sessions import save
from greploom.shell.store import IndexStore

SHOWN_EARLIER = "shown earlier in this session (whole): ask for it by key to see it again"
LEAF_NEIGHBOURS = frozenset((Relationship.IMPORT, Relationship.PARAMETER))


def follow_up(
    store: IndexStore, candidates: Sequence[SearchHit], query: Query, memory: Memory
) -> tuple[list[SearchHit], float]:
    """The candidates smoothed toward the memory, and the gate that did it (0: left alone)."""
    scored = [(h.key, h.score) for h in candidates]
    g = gate(normalized(scored), memory, back=points_back(query))
    if g <= 0.0:
        return list(candidates), 0.0
    mixed = smooth(scored, memory, g)
    known = store.describe(k for k, _ in mixed)  # a remembered definition may be gone since
    by_key = {h.key: h for h in candidates}
    out = []
    for key, score in mixed:
        if key in known:
            was = by_key.get(key)
            out.append(SearchHit(key, score, was.lexical_rank if was else 0, was.vector_rank if was else 0))
    return out, g


def shown_earlier(nodes: Sequence[ExpandedNode], memory: Memory) -> tuple[tuple[ExpandedNode, ...], int]:
    """The nodes, each the session received whole (and unchanged since) shortened to a reference."""
    out = []
    shortened = 0
    for node in nodes:
        if node.ref.key in memory.shown and not node.stale:
            out.append(attrs.evolve(node, source=None, summary=SHOWN_EARLIER, earlier=True))
            shortened += 1
        else:
            out.append(node)
    return tuple(out), shortened


def record(db_path: Path, name: str, memory: Memory, answer: QueryAnswer) -> None:
    """Remember what the answer held: its hits' scores, and the blocks its text showed whole."""
    try:
        whole = {b.block.key for b in answer.packing.blocks if b.label == Detail.FULL.value and not b.cut}
    except UsageError:
        whole = set()  # a budget too small to answer: the caller says so; nothing was shown
    # The definitions shown around the hits (imports and parameters are names, not code).
    neighbours = [
        (n.ref.key, n.via, n.relevance)
        for n in answer.nodes
        if n.via is not None and n.relationship not in LEAF_NEIGHBOURS
    ]
    save(db_path, name, remember(memory, [(h.key, h.score) for h in answer.hits], whole, neighbours))


def session_metadata(
    name: str, memory: Memory, g: float, shortened: int, *, fresh: bool
) -> dict[str, object]:
    """What the answer's metadata says of its session."""
    if fresh:
        state = "fresh"
    elif not memory.turns:
        state = "new"
    else:
        state = "shaped" if g > 0 else "not used"
    return {
        "name": name,
        "turn": memory.turns + 1,
        "memory": state,
        "gate": round(g, 2),
        "shown_earlier": shortened,
    }
