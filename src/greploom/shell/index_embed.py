"""The embedding phase of an index run: vectors for the rows that need them, batch by batch.

Each batch of ``EMBED_BATCH`` texts is committed to ``pending`` as it
finishes, so a killed run loses at most one batch and the next run goes on
from there; vectors of another embedder are never reused. A first run is
searchable before its vectors are (:func:`searchable_first`): its rows are
stored first, and each batch's vectors join them as it is committed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import attrs

from greploom.core.errors import EmbedderError
from greploom.core.freshness import FileStamp
from greploom.core.plan import ReindexPlan
from greploom.shell.ports import Embedder, EmbedderIdentity, Progress
from greploom.shell.schema import BUILDING, NodeRow
from greploom.shell.store import IndexStore

EMBED_BATCH = 256  # texts per committed batch: bounds the work a killed run loses


def searchable_first(
    store: IndexStore,
    meta: Mapping[str, str],
    plan: ReindexPlan,
    rows: Mapping[str, NodeRow],
    embedder: Embedder,
    *,
    meta_for: Callable[..., dict[str, str]],
    stamps: Mapping[str, FileStamp] | None,
) -> bool:
    """For an index no run has completed: store the rows now, lexically searchable; True then.

    Queries answer from words, names and the graph while the vectors are
    computed, and each finished batch's vectors become searchable as it is
    committed (:meth:`IndexStore.fill_vectors`); ``BUILDING`` in the meta says
    so until the run's switch. A complete index is never touched before its
    switch: its queries keep the old answers until the new ones are whole.
    """
    if (meta.get("indexed_at") and not meta.get(BUILDING)) or not plan.embed:
        return False
    early = meta_for(identity=embedder.identity) | {BUILDING: "1"}
    store.switch(plan, rows, None, 0, early, files=stamps, keep_pending=True)
    return True

def embed_run(
    store: IndexStore,
    embedder: Embedder,
    *,
    plan: ReindexPlan,
    rows: Mapping[str, NodeRow],
    embed_texts: Mapping[str, str],
    progress: Progress | None,
    deadline: float,
    recorded: EmbedderIdentity | None,
    keep_width: bool,
    fill: bool,
) -> tuple[dict[str, list[float]], EmbedderIdentity]:
    """The vectors of the plan's rows by content hash, and the embedder's identity with its width.

    ``recorded``: the index's embedder; with ``keep_width`` (not a full run)
    the vectors must keep its width. The embedder is closed after.
    """
    try:
        vectors, width = embed_rows(
            store,
            embedder=embedder,
            keys=plan.embed,
            rows=rows,
            embed_texts=embed_texts,
            progress=progress,
            deadline=deadline,
            fill=fill,
        )
        identity = embedder.identity
        if not identity.dimension:
            # Nothing was sent: the width is the pending vectors' or the index's,
            # never the 0 of an embedder that has not answered yet.
            known = recorded.dimension if recorded and recorded.space() == identity.space() else 0
            identity = attrs.evolve(identity, dimension=width or known)
        if keep_width and recorded is not None and recorded.dimension not in (0, identity.dimension):
            raise EmbedderError(
                f"the embedder now returns {identity.dimension}-dim vectors, the index holds "
                f"{recorded.dimension}-dim ones; pass --force to re-embed everything"
            )
    finally:
        embedder.close()
    return vectors, identity

def embed_rows(
    store: IndexStore,
    *,
    embedder: Embedder,
    keys: tuple[str, ...],
    rows: Mapping[str, NodeRow],
    embed_texts: Mapping[str, str],
    progress: Progress | None,
    deadline: float,
    fill: bool = False,
) -> tuple[dict[str, list[float]], int]:
    """Vectors by content hash for every key to embed, and their width (0: none embedded).

    Vectors an unfinished run of this same embedder left in ``pending`` are
    reused; another embedder's never are (``IndexStore.pending_vectors``).
    """
    by_hash: dict[str, str] = {}
    for key in keys:
        by_hash.setdefault(rows[key].content_hash, embed_texts[key])
    space = embedder.identity.space()
    width = embedder.identity.dimension
    vectors = store.pending_vectors(by_hash, space, width)
    todo = [h for h in by_hash if h not in vectors]
    done = len(by_hash) - len(todo)
    if fill:  # searchable first: what an earlier run left is searchable at once
        store.fill_vectors(vectors)
    if progress:
        progress("embedding", done, len(by_hash))
    for start in range(0, len(todo), EMBED_BATCH):
        batch = todo[start : start + EMBED_BATCH]
        kept = (
            f"embedded {done} of {len(by_hash)} nodes; the index answers meanwhile from words, names, "
            "the graph and the vectors done, and the next run goes on from there"
            if fill
            else f"embedded {done} of {len(by_hash)} nodes, the previous index is unchanged "
            "and the finished batches are kept for the next run"
        )
        if time.monotonic() > deadline:
            raise EmbedderError(
                f"the index run reached its time limit (GREPLOOM_INDEX_TIMEOUT); {kept}: run it again "
                "to go on"
            )
        try:
            got = embedder.embed_documents([by_hash[h] for h in batch])
        except EmbedderError as exc:
            raise EmbedderError(f"{exc}; {kept}") from exc
        if not width:
            width = len(got[0])
            # Pending vectors of another width are not this embedder's after all.
            stale = [h for h, v in vectors.items() if len(v) != width]
            if stale:
                raise EmbedderError(
                    f"the embedder answers {width}-dim vectors where an earlier run of the same name "
                    "stored others; pass --force to re-embed everything"
                )
        fresh = dict(zip(batch, got, strict=True))
        store.add_pending(fresh, space)
        if fill:
            store.fill_vectors(fresh)
        vectors.update(fresh)
        done += len(batch)
        if progress:
            progress("embedding", done, len(by_hash))
    if not width and vectors:
        width = len(next(iter(vectors.values())))
    return vectors, width
