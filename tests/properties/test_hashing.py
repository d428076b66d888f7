"""Content hashes.

Laws:

1. The hash is deterministic.
2. It changes when the embedded text, the source text or the tier changes.
3. It does not depend on CPG ids or line numbers (metamorphic: renumber and
   shift a whole CPG, every node keeps its hash).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgGraph
from greploom.core.hashing import content_hash
from greploom.core.keys import node_identities
from greploom.core.summary import Tier, summarize_node
from tests.properties.strategies import FILES, Program, build_cpg, programs

texts = st.text(max_size=40)
sources = st.one_of(st.none(), st.text(max_size=40))
tiers = st.sampled_from(Tier)


@given(texts, sources, tiers)
def test_deterministic(text: str, source: str | None, tier: Tier) -> None:
    """The same node must hash the same in every run, or nothing is ever unchanged."""
    assert content_hash(text, source, tier) == content_hash(text, source, tier)


@given(texts, texts, sources, tiers)
def test_embedded_text_matters(a: str, b: str, source: str | None, tier: Tier) -> None:
    """A changed summary must be re-embedded."""
    assert (content_hash(a, source, tier) == content_hash(b, source, tier)) == (a == b)


@given(texts, sources, sources, tiers)
def test_source_matters(text: str, s1: str | None, s2: str | None, tier: Tier) -> None:
    """A body edit changes the hash even when the summary does not (None differs from '')."""
    assert (content_hash(text, s1, tier) == content_hash(text, s2, tier)) == (s1 == s2)


@given(texts, sources)
def test_tier_matters(text: str, source: str | None) -> None:
    """Switching tiers re-embeds, since the summaries differ in kind."""
    assert content_hash(text, source, Tier.FAST) != content_hash(text, source, Tier.ENHANCED)


def _hashes(program: Program, offset: int, shifts: dict[str, int], tier: Tier) -> dict[str, str]:
    graph = CpgGraph(build_cpg(program, offset, shifts))
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    out = {}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None
        summary = summarize_node(graph, node, qualnames, tier)
        out[ident.key] = content_hash(summary.embed_text, None, tier)
    return out


@given(
    programs,
    st.integers(1, 999),
    st.dictionaries(st.sampled_from(FILES), st.integers(1, 30)),
    tiers,
)
def test_independent_of_ids_and_lines(
    program: Program, offset: int, shifts: dict[str, int], tier: Tier
) -> None:
    """Renumbered, shifted code is unchanged code: nothing may be re-embedded."""
    assert _hashes(program, 0, {}, tier) == _hashes(program, offset, shifts, tier)
