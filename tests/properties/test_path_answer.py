"""Call paths as an answer, packed to a budget (greploom.core.path_answer).

Laws (with a stand-in token counter that is not additive across joins):

1. The text never exceeds the budget and states its own token count; None
   only when the budget cannot hold the first chain beside the header, each
   step as its header line (with no chains: the header and its note).
2. The envelope fits the budget in every form it is sent in, and states its
   own count in the dearest form; its ``chains`` list every chain whole.
3. The text shows the first chains, each whole (its header, then each of
   its steps, in order); the steps of the chains left out count as dropped.
4. Every step is at least named (its header line) when the budget holds the
   header line of every block.
5. A step shown with its code carries the mark on its calling line, and
   only there.
6. A step an earlier chain showed whole (same definition, same call) is its
   header alone.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.budget import ContextBlock, Rendering
from greploom.core.envelope import FORMS, envelope_tokens
from greploom.core.expand import NodeContext, NodeRef
from greploom.core.path_answer import (
    MARK,
    chain_header,
    chain_of,
    chains_json,
    pack_path_envelope,
    pack_path_text,
    path_blocks,
    path_header,
    path_steps,
    step_header,
)
from greploom.core.path_pack import pack_whole_chains
from greploom.core.paths import CallChain, CallPaths

NAMES = ("request", "handle", "save", "write", "audit", "send")
FILLER = ("x = 1", "y = compute(x)", "if y:", "    return y", "log(y)")


def count(text: str) -> int:
    """One token per word-ish run and per line break, and one more per join of two lines of code."""
    return len(re.findall(r"\w+|[^\w\s]", text)) + text.count("\n") + text.count(")\n")


@st.composite
def answers(draw: st.DrawFn) -> tuple[CallPaths, dict[str, NodeContext]]:
    """Chains from one definition to another through a few others, whose code may call the next
    step, mention it, or not name it at all."""
    start, end = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
    middles = st.lists(st.sampled_from([n for n in NAMES if n not in (start, end)]), max_size=3, unique=True)
    chains = sorted(
        {(start, *middle, end) for middle in draw(st.lists(middles, max_size=3))}, key=lambda c: (len(c), c)
    )
    contexts: dict[str, NodeContext] = {}
    for i, name in enumerate(NAMES):
        body = draw(st.lists(st.sampled_from((*FILLER, *(f"{n}(x)" for n in NAMES))), max_size=30))
        source = "\n".join([f"def {name}(x):", *("    " + line for line in body)])
        ref = NodeRef(f"function:m{i}.py:{name}", name, "function", f"m{i}.py", draw(st.integers(1, 50)))
        contexts[ref.key] = NodeContext(
            ref=ref, qualname=f"m{i}.{name}", summary=f"def {name}(x)", source=source
        )
    by_name = {c.ref.name: k for k, c in contexts.items()}
    paths = CallPaths(
        source=by_name[start],
        target=by_name[end],
        chains=tuple(CallChain(tuple(by_name[n] for n in c)) for c in chains),
        reverse=False,
        max_calls=6,
        max_chains=3,
    )
    return paths, contexts


META = {"from_name": "a", "to_name": "b", "summary": "a reaches b", "index_age": "1s", "note": "none found"}


@given(answers(), st.integers(20, 3000), st.booleans())
def test_text_fits_counts_itself_and_keeps_order(
    answer: tuple[CallPaths, dict[str, NodeContext]], budget: int, code: bool
) -> None:
    """Laws 1, 3 and 5."""
    paths, contexts = answer
    steps = path_steps(paths, contexts)
    blocks = path_blocks(paths, steps, budget, count, code=code)
    got = pack_path_text(META, blocks, frozenset(), budget, count)
    if got is None:  # refused only when not even the first chain fits, each step as its header line
        n = len(blocks)
        widest = dict(META, budget=budget, tokens_used=budget, truncated=True, dropped=n, stale=n)
        reserve = count(path_header(dict(widest, shortened=n, references=n)) + "\n\n")
        first = [(b.fallbacks[-1] if b.fallbacks else b).text for b in blocks if chain_of(b.key) == 1]
        need = sum(count(("\n\n" if i else "") + text) for i, text in enumerate(first))
        joins = 2 * len(first)  # the counter charges a join of two blocks a little more than its parts
        assert reserve + (need or count(META["note"])) + joins + count("\n") > budget  # and the last newline
        return
    text, packing, meta = got
    assert count(text) == meta["tokens_used"] <= budget
    assert f"| {meta['tokens_used']}/{budget} tokens |" in text.split("\n", 1)[0]
    kept = [p.block.key for p in packing.blocks]
    # The first chains, each whole (its header, then every step), in order; the rest counted as dropped.
    shown = meta["chains_shown"]
    assert kept == [b.key for b in blocks if chain_of(b.key) <= shown]
    assert meta["dropped"] == sum(" step " in b.key for b in blocks if chain_of(b.key) > shown)
    by_id = {s.id: s for s in steps}
    for p in packing.blocks:
        step = by_id.get(p.block.key)
        if step is None:
            continue
        marks = [line for line in p.text.split("\n") if MARK in line]
        if (
            p.label in ("full", "focused", "summary")
            and step.calls is not None
            and step.call_line is not None
        ):
            assert len(marks) == 1 and f"{MARK} {step.calls.ref.name}" in marks[0]
        if step.calls is None:
            assert not marks


@given(answers(), st.integers(50, 4000), st.booleans())
def test_envelope_fits_every_form_and_counts_itself(
    answer: tuple[CallPaths, dict[str, NodeContext]], budget: int, code: bool
) -> None:
    """Law 2."""
    paths, contexts = answer
    steps = path_steps(paths, contexts)
    blocks = path_blocks(paths, steps, budget, count, code=code, text=False)
    chains = chains_json(paths, steps)
    got = pack_path_envelope(dict(META), chains, steps, blocks, budget, count=count)
    if got is None:
        return
    envelope = got.envelope
    for _, form in FORMS:
        assert count(form(envelope)) <= budget
    assert envelope["metadata"]["tokens_used"] == envelope_tokens(envelope, count)
    assert [c["keys"] for c in envelope["chains"]] == [list(c.keys) for c in paths.chains]
    assert all(
        len(c["call_lines"]) == len(c["keys"]) and c["call_lines"][-1] is None for c in envelope["chains"]
    )


@given(answers())
def test_every_step_is_named_and_repeats_are_references(
    answer: tuple[CallPaths, dict[str, NodeContext]],
) -> None:
    """Laws 4 and 6: with room for every header line, every step has at least its header."""
    paths, contexts = answer
    steps = path_steps(paths, contexts)
    headers = [step_header(s) for s in steps]
    chain_lines = [chain_header(paths, steps, c) for c in range(1, len(paths.chains) + 1)]
    roomy = 2 * sum(count(h) + 4 for h in (*headers, *chain_lines)) + 200  # the answer's header too
    blocks = path_blocks(paths, steps, roomy, count)
    got = pack_path_text(META, blocks, frozenset(), roomy, count)
    assert got is not None
    text = got[0]
    for step, head in zip(steps, headers, strict=True):
        assert head in text
        if step.seen_in is not None:
            assert f"{head}\n\n" in text + "\n"


def test_a_join_dearer_than_its_parts_leaves_no_chain_out() -> None:
    """Law 3: when the joined blocks cost more than their parts, the last chain is packed shorter,
    not left out (a boundary between two ``!`` costs one token more here)."""

    def joins(text: str) -> int:
        return len(text) + text.count("!\n\n!")

    def step(chain: int) -> ContextBlock:
        short = Rendering("reference", f"!step {chain}!")
        code = "!" + "x" * 40 + "!"
        return ContextBlock(f"chain {chain} step 1", code, 1.0, "full", (short,), reserved=True)

    blocks = [ContextBlock("chain 1", "!c1!", reserved=True), step(1)]
    blocks += [ContextBlock("chain 2", "!c2!", reserved=True), step(2)]
    parts = sum(joins(("\n\n" if i else "") + b.text) for i, b in enumerate(blocks))
    packed = pack_whole_chains(blocks, parts, joins, 0)  # every block whole by its parts, not joined
    assert packed is not None
    packing, left_out = packed
    assert left_out == 0 and [p.block.key for p in packing.blocks] == [b.key for b in blocks]
    assert packing.blocks[-1].label == "reference" and joins(packing.text) <= parts
