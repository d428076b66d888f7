"""Call paths as an answer: every step's code with its calling line marked, packed to a budget.

The chains :func:`greploom.core.paths.shortest_chains` found become blocks,
chain by chain, and the blocks are packed to the budget as text and as the
JSON envelope. Two modules hold it, one concept each:

- greploom.core.path_render: the steps of the chains (each with its calling
  line and what earlier chains showed), the mark on the calling line
  (``# <- calls NAME``), and each step's block at its levels of detail
  (whole, focused around the calling line, summary, header line);
- greploom.core.path_pack: the answer's header, and the packing to text and
  to the JSON envelope (``{"metadata", "chains", "results"}``), each chain
  shown whole or not at all.

This module names the answer's public API in one place: the use case
(greploom.shell.tracing) and the laws take it from here.

Laws (tests/properties/test_path_answer.py): the text and the envelope
never exceed the budget and state their own token counts; the steps keep
the chains' order; every chain shown is shown whole, its header first,
and the chains shown are the first ones; a step shown with code carries
the mark on its calling line, and only there.
"""

from __future__ import annotations

from greploom.core.path_pack import (
    chain_of,
    chains_json,
    pack_path_envelope,
    pack_path_text,
    pack_whole_chains,
    path_header,
    path_summary,
    step_json,
)
from greploom.core.path_render import (
    MARK,
    SHARES,
    SLASH_COMMENTS,
    Step,
    chain_header,
    mark_for,
    marked_source,
    path_blocks,
    path_steps,
    render_step,
    step_block,
    step_header,
    step_share,
)

__all__ = [
    "MARK",
    "SHARES",
    "SLASH_COMMENTS",
    "Step",
    "chain_header",
    "chain_of",
    "chains_json",
    "mark_for",
    "marked_source",
    "pack_path_envelope",
    "pack_path_text",
    "pack_whole_chains",
    "path_blocks",
    "path_header",
    "path_steps",
    "path_summary",
    "render_step",
    "step_block",
    "step_header",
    "step_json",
    "step_share",
]
