"""What a query answers: the context as text and as the JSON envelope, each packed to the budget.

Each is packed for itself when first asked for (a JSON result carries more
than its text: packed with the text's costs the envelope ran to many times
the budget), so each states its own counts; a budget too small for either
is a usage error naming the smallest that answers, found by packing.

The text is the honesty header (:func:`header_line`) above the packed
blocks; the header states its own token count, settled on the emitted whole.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from greploom.core.budget import Packing, smallest_budget
from greploom.core.envelope import PackedEnvelope, packing_counts, settle_count
from greploom.core.errors import UsageError
from greploom.core.expand import ExpandedNode
from greploom.core.focus import FocusQuery
from greploom.core.render import SourceMode, assemble_context, block_key
from greploom.shell.ports import TokenCounter
from greploom.shell.search import SearchHit

__all__ = ["QueryAnswer", "TextAnswer", "header_line", "pack_text"]


@attrs.frozen
class TextAnswer:
    """The context as printed, the packing it shows and the numbers its header states."""

    text: str
    packing: Packing
    metadata: dict[str, Any]


class QueryAnswer:
    """What a query produced: the context as text and as the JSON envelope, each within the budget.

    Each is packed for itself when first asked for (the CLI prints one, the
    MCP server sends both). One the budget cannot hold raises
    :class:`UsageError` naming the smallest budget that can, found by packing.
    """

    def __init__(
        self,
        *,
        nodes: tuple[ExpandedNode, ...],
        hits: tuple[SearchHit, ...],
        budget: int,
        unknown_nodes: Sequence[str],
        places_not_found: Sequence[str],
        text_at: Callable[[int], TextAnswer | None],
        json_at: Callable[[int], PackedEnvelope | None],
    ) -> None:
        self.nodes = nodes
        self.hits = hits
        self.budget = budget
        self.unknown_nodes = tuple(unknown_nodes)
        self.places_not_found = tuple(places_not_found)
        self._text_at = functools.lru_cache(maxsize=None)(text_at)
        self._json_at = functools.lru_cache(maxsize=None)(json_at)

    def _too_small(self, what: str, answers: Callable[[int], bool]) -> UsageError:
        least = smallest_budget(answers, self.budget)
        can = f"the smallest that can is {least} tokens" if least else "no budget can"
        tokens = "token" if self.budget == 1 else "tokens"
        return UsageError(f"a budget of {self.budget} {tokens} cannot hold this answer{what}; {can}")

    @functools.cached_property
    def _text(self) -> TextAnswer:
        got = self._text_at(self.budget)
        if got is None:
            raise self._too_small("", lambda b: self._text_at(b) is not None)
        return got

    @functools.cached_property
    def _json(self) -> PackedEnvelope:
        got = self._json_at(self.budget)
        if got is None:
            raise self._too_small(" as JSON", lambda b: self._json_at(b) is not None)
        return got

    @property
    def text(self) -> str:
        """The context as ``greploom query`` prints it, header first."""
        return self._text.text

    @property
    def packing(self) -> Packing:
        """The packing the text shows."""
        return self._text.packing

    @property
    def envelope(self) -> dict[str, Any]:
        """The JSON envelope, as ``greploom query --format json`` prints it."""
        return self._json.envelope

    @property
    def json_packing(self) -> Packing:
        """The packing the envelope shows."""
        return self._json.packing

    @property
    def metadata(self) -> dict[str, Any]:
        """The envelope's metadata."""
        meta: dict[str, Any] = self.envelope["metadata"]
        return meta

    def both(self) -> tuple[str, dict[str, Any]]:
        """Text and envelope, for a caller sending both (MCP): the error names a budget for both."""
        if self._text_at(self.budget) is None or self._json_at(self.budget) is None:
            raise self._too_small(
                " as text and JSON",
                lambda b: self._text_at(b) is not None and self._json_at(b) is not None,
            )
        return self.text, self.envelope


def header_line(meta: Mapping[str, Any]) -> str:
    """The honesty header above a context: mode, embedder, tokens, cuts, index age."""
    if meta["search_mode"] == "nodes":
        what = f"{len(meta['node_ids'])} requested nodes"
    elif meta["search_mode"] == "code context":
        names = f"{meta.get('names', 0)} names used, {meta.get('names_resolved', 0)} defined in the index"
        what = f"context for code ({names})"
    elif meta["search_mode"] == "related":  # query --like, find_related (greploom.shell.related)
        what = f"related to {meta['like']} ({meta['by_meaning']} by meaning, {meta['by_graph']} by the graph)"
        if meta.get("lexical"):
            what += f" | lexical-only: its summary searched as words ({meta['lexical']})"
    else:
        what = f"{meta['search_mode']} search"
    if meta.get("collections"):  # an answer over several (greploom.shell.federated)
        what += " over collections " + ", ".join(c["name"] for c in meta["collections"])
    unknown = f" | unknown: {', '.join(meta['unknown_nodes'])}" if meta.get("unknown_nodes") else ""
    if meta.get("places_not_found"):
        unknown += f" | place not found: {', '.join(meta['places_not_found'])}"
    if "kept" in meta:
        unknown = (
            f" | adaptive: kept {meta['kept']} of {meta['candidates']} candidates "
            f"(effective {meta['effective']}, {meta['mass_left_out']:.0%} of weight left out)" + unknown
        )
    # Blocks too long for the budget left are shown shorter (a hit as its summary or
    # its one-line reference, a neighbour without source): say how many.
    shortened = ""
    if meta.get("shortened"):
        shortened = f" | shortened: {meta['shortened']} ({meta['references']} to references)"
    if meta.get("vectors"):  # a first run's vectors are still coming, or stopped coming
        building = meta.get("build") == "building"
        how = "index still building" if building else "the build stopped: run greploom index"
        unknown = f" | vectors: {meta['vectors']} ({how})" + unknown
    if session := meta.get("session"):  # greploom.shell.session_answer
        said = {"shaped": f"follow-up, memory {session['gate']}", "not used": "memory not used"}
        how = said.get(session["memory"], session["memory"])
        if session.get("shown_earlier"):
            how += f", {session['shown_earlier']} shown earlier"
        unknown = f" | session: {session['name']} ({how})" + unknown
    # Blocks whose file changed since the index read it (marked `stale` in their headers).
    if meta.get("stale"):
        unknown = f" | stale: {meta['stale']} (files changed since indexed)" + unknown
    return (
        f"# greploom: {what} | {meta['results']} results from {meta['hits']} hits | "
        f"{meta['tokens_used']}/{meta['budget']} tokens | truncated: "
        f"{'yes' if meta['truncated'] else 'no'} | dropped: {meta['dropped']}{shortened} | "
        f"embedder: {meta['embedder'] or 'none'} | index age: {meta['index_age']}{unknown}"
    )


def pack_text(
    base: Mapping[str, Any],
    nodes: tuple[ExpandedNode, ...],
    budget: int,
    count: TokenCounter,
    *,
    include_source: bool | SourceMode,
    cut_hits: bool,
    focus_on: FocusQuery | None = None,
) -> TextAnswer | None:
    """The context in ``budget`` tokens as printed (header and final newline included), or None.

    None when the budget cannot answer: not one block fits beside the
    header (or, with nothing matched, the header and its note do not).
    Room is reserved for the header at its widest; the header states its
    own token count, so that number is settled on the emitted whole, and
    the reserve widened in the rare case the whole ran over.
    """
    meta = dict(base, budget=budget)
    widest = len(nodes)
    worst = dict(meta, results=widest, tokens_used=budget, truncated=True, dropped=widest)
    worst.update(shortened=widest, references=widest, stale=widest)
    reserve = count(header_line(worst) + "\n\n")
    stale = frozenset(block_key(n) for n in nodes if n.stale)
    while reserve < budget:
        packing = assemble_context(
            nodes, budget, count, include_source, reserve, cut_hits=cut_hits, focus_on=focus_on
        )
        if nodes and not packing.blocks:
            return None
        meta.update(packing_counts(packing, stale), tokens_used=packing.tokens_used)
        text, used = _settle(meta, packing, count)
        if used <= budget:
            return TextAnswer(text, packing, meta)
        if not packing.blocks:
            return None
        reserve += used - budget
    return None


def _settle(meta: dict[str, Any], packing: Packing, count: TokenCounter) -> tuple[str, int]:
    """The composed text with ``tokens_used`` stating its own count, and the count it states."""
    used = settle_count(meta, lambda: count(_compose(meta, packing)))
    return _compose(meta, packing), used


def _compose(meta: Mapping[str, Any], packing: Packing) -> str:
    """Header, then the packed blocks (or the note saying why there are none)."""
    body = packing.text or str(meta.get("note", ""))
    return header_line(meta) + "\n\n" + body + "\n"
