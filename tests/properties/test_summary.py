"""Summaries.

Laws:

1. A function with parameters never prints as ``name()``; its parameters
   appear in positional order.
2. The fast summary is one line, and it is the first line of the enhanced one.
3. The embedded text names the file and holds no line number: shifting code
   leaves it unchanged (metamorphic).
4. A module's embedded text says the words of the names its file binds at
   its top level (dunders aside, the first MODULE_NAME_WORDS), never their
   lines; what is shown does not change.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgData, CpgGraph, CpgNode, NodeKind, SourceLocation
from greploom.core.keys import node_identities
from greploom.core.notes import identifier_words
from greploom.core.summary import MODULE_NAME_WORDS, Tier, parameters, summarize_node
from greploom.core.top_names import TOP_NAMES_ATTR
from tests.properties.strategies import FILES, Program, build_cpg, programs


def _summaries(program: Program, shifts: dict[str, int], tier: Tier) -> dict[str, tuple[str, str]]:
    graph = CpgGraph(build_cpg(program, 0, shifts))
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    out = {}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None
        s = summarize_node(graph, node, qualnames, tier)
        out[ident.key] = (s.text, s.embed_text)
    return out


@given(programs)
def test_parameters_are_shown_in_order(program: Program) -> None:
    """A signature without its parameters misleads the agent reading it."""
    graph = CpgGraph(build_cpg(program))
    idents = node_identities(graph)
    qualnames = {i.node_id: i.qualname for i in idents}
    for ident in idents:
        node = graph.node(ident.node_id)
        assert node is not None
        if node.kind is not NodeKind.FUNCTION:
            continue
        first = summarize_node(graph, node, qualnames, Tier.FAST).text
        params = parameters(graph, node)
        if params:
            assert f"{node.name}()" not in first
            inside = first[first.index("(") + 1 : first.rindex(")")]
            assert [part.split(":")[0] for part in inside.split(", ")] == [p.name for p in params]


@given(programs)
def test_fast_is_the_first_line_of_enhanced(program: Program) -> None:
    """The tiers agree; enhanced only adds."""
    fast = _summaries(program, {}, Tier.FAST)
    enhanced = _summaries(program, {}, Tier.ENHANCED)
    for key, (text, _) in fast.items():
        assert "\n" not in text
        assert enhanced[key][0].split("\n", 1)[0] == text


@given(programs, st.dictionaries(st.sampled_from(FILES), st.integers(1, 40)), st.sampled_from(Tier))
def test_embedded_text_ignores_lines(program: Program, shifts: dict[str, int], tier: Tier) -> None:
    """Moving code down a file must not cost an embedding."""
    before = _summaries(program, {}, tier)
    after = _summaries(program, shifts, tier)
    assert {k: v[1] for k, v in before.items()} == {k: v[1] for k, v in after.items()}
    for key, (_, embed) in before.items():
        file = key.split(":")[1]
        assert file in embed


TOP_NAMES = st.lists(
    st.sampled_from(
        ("ALL_METHODS", "MAX_EMAIL_LENGTH", "COLORS_BY_NAME", "__all__", "router", "V2_RENAMED_KEYS")
    ),
    max_size=40,
)


@given(TOP_NAMES, st.integers(7001, 9000))
def test_a_module_embeds_the_words_of_its_top_level_names(names: list[str], line: int) -> None:
    """``MAX_EMAIL_LENGTH = 2048`` makes its module the nearest vector of "the longest email"."""
    module = CpgNode("m", NodeKind.MODULE, "networks", SourceLocation("pkg/networks.py", 1, 0))
    bound = attrs.evolve(
        module, attrs=((TOP_NAMES_ATTR, tuple(f"{n}:{line + i}" for i, n in enumerate(names))),)
    )
    plain, named = (
        summarize_node(CpgGraph(CpgData(nodes=(node,), edges=())), node, {"m": "pkg.networks"}, Tier.ENHANCED)
        for node in (module, bound)
    )
    assert named.text == plain.text
    said = list(dict.fromkeys(n for n in names if not n.startswith("__")))[:MODULE_NAME_WORDS]
    lines = [row for row in named.embed_text.split("\n") if row.startswith("names: ")]
    if not said:
        assert named.embed_text == plain.embed_text
        return
    assert lines == ["names: " + "; ".join(" ".join(identifier_words(n)) for n in said)]
    assert not any(str(line + i) in lines[0] for i in range(len(names)))
