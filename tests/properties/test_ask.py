"""Laws of the prompt and of reading "not in the context" (greploom.core.ask).

1. The messages are a system message stating the rules and the fixed
   sentence, then one user message holding the context verbatim and, last,
   the question.
2. An answer citing nothing and holding the fixed sentence anywhere, in any
   case, with any white space between its words and any emphasis around
   it, reads as "not in the context"; so does one that starts with it and
   says little more, citation or not; text that cannot spell it (no letter
   x) never does, nor does an answer that makes cited claims and mentions
   the sentence among them.
3. The context window holds the prompt with slack for another tokenizer
   and room for the answer, is a whole number of steps, and never shrinks
   as the prompt grows.
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.ask import (
    ANSWER_ROOM,
    NOT_IN_CONTEXT,
    TOKENIZER_SLACK,
    WINDOW_STEP,
    context_window,
    prompt_messages,
    says_not_in_context,
)

blank = st.text(st.sampled_from(" \t\n"), min_size=1, max_size=3)
no_bracket = st.text(st.characters(exclude_characters="["), max_size=30)  # so it cites nothing
citation = st.tuples(
    st.sampled_from(["shop/net.py", "src/app.py", "lib/x.js"]), st.integers(1, 999), st.integers(0, 40)
).map(lambda t: f"[{t[0]}:{t[1]}-{t[1] + t[2]}]")
claim = st.from_regex(r"[A-Za-z]{1,10}( [A-Za-z]{1,10}){0,8}", fullmatch=True)


def written_as(upper: list[bool], gaps: list[str], emphasis: str) -> str:
    """The fixed sentence in another case and spacing, in emphasis."""
    cased = "".join(ch.upper() if up else ch.lower() for ch, up in zip(NOT_IN_CONTEXT, upper, strict=True))
    words = cased.split(" ")
    spaced = words[0] + "".join(gap + word for gap, word in zip(gaps, words[1:], strict=True))
    return f"{emphasis}{spaced}{emphasis}"


sentences = st.builds(
    written_as,
    st.lists(st.booleans(), min_size=len(NOT_IN_CONTEXT), max_size=len(NOT_IN_CONTEXT)),
    st.lists(blank, min_size=6, max_size=6),
    st.sampled_from(["", "**", "_", "*"]),
)


@given(st.text(), st.text())
def test_messages_hold_the_rules_the_context_and_the_question(question: str, context: str) -> None:
    """The model must get the rules first and all of the context, or its citations mean nothing."""
    system, user = prompt_messages(question, context)
    assert (system.role, user.role) == ("system", "user")
    assert NOT_IN_CONTEXT in system.content and "[file:line]" in system.content
    assert context.rstrip() in user.content
    assert user.content.endswith(f"Question: {question.strip()}")


@given(no_bracket, no_bracket, sentences)
def test_the_fixed_sentence_is_recognised_however_written(before: str, after: str, sentence: str) -> None:
    """Models change case, spacing and emphasis; a refusal must not pass for an answer."""
    assert says_not_in_context(f"{before}\n{sentence}\n{after}")


@given(
    st.sampled_from(["", "> ", "\n"]),
    sentences,
    st.from_regex(r"([A-Za-z]{1,8} ){0,4}", fullmatch=True),
    st.sampled_from(["", " [shop/cart.py:3]", " [a.py:1-2]"]),
)
def test_the_sentence_and_little_more_is_not_in_the_context(
    lead: str, sentence: str, reason: str, cited: str
) -> None:
    """ "The context does not contain the answer. It only shows the cart [a.py:3]." is still a refusal."""
    assert says_not_in_context(f"{lead}{sentence}. {reason}{cited}.")


@given(claim, citation, sentences, no_bracket)
def test_the_sentence_among_cited_claims_is_an_answer(
    said: str, cited: str, sentence: str, after: str
) -> None:
    """An answer that cites the context for a claim, then says one part is not there, is an answer."""
    assert not says_not_in_context(f"{said} {cited}. {sentence} {after}")
    assert not says_not_in_context(f"{said} {cited}.\n\n{NOT_IN_CONTEXT[:-1]} to the second question.")


@given(st.text(st.characters(exclude_characters="xX")))
def test_text_that_cannot_spell_it_is_an_answer(answer: str) -> None:
    """An answer is never mistaken for a refusal (the sentence needs the x of "context")."""
    assert not says_not_in_context(answer)
    assert not says_not_in_context("The context does not hold the answer. " + answer)


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_the_window_holds_the_prompt_and_the_answer(a: int, b: int) -> None:
    """Ollama drops what does not fit its window: the prompt's start, where the rules are."""
    window = context_window(a)
    assert window >= math.ceil(a * TOKENIZER_SLACK) + ANSWER_ROOM
    assert window % WINDOW_STEP == 0
    low, high = sorted((a, b))
    assert context_window(low) <= context_window(high)
