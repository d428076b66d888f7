"""Asking a chat model about the context: the prompt it gets, and reading its "I cannot tell".

``greploom ask`` sends the context ``greploom query`` packs (markdown blocks
with ``file:line`` headers) to a chat model, with a system prompt that binds
it to that context: answer only from it, cite a place for every claim
(greploom.core.citations reads the citations back and checks them), and say
one fixed sentence, :data:`NOT_IN_CONTEXT`, when the context does not hold
the answer. A fixed sentence is what lets code tell "not in the context"
from an answer: the CLI marks it (``not_in_context`` in JSON) instead of
passing a refusal off as an answer.

The question comes after the context in the user message: small models
follow the instruction nearest the end best, and the context is the long
part.

Laws (tests/properties/test_ask.py):

1. The messages are a system message stating the rules and the fixed
   sentence, then one user message holding the context verbatim and the
   question.
2. An answer that is the fixed sentence, in any case, wrapped in any white
   space, punctuation or markdown emphasis, or that starts with it and says
   little more, reads as "not in the context"; so does one holding it
   anywhere and citing nothing; text without it never does, nor does an
   answer that cites the context and mentions the sentence among its
   claims.
3. The context window asked for holds the prompt (with slack for another
   tokenizer) and room for the answer, is a whole number of
   :data:`WINDOW_STEP` tokens, and never shrinks as the prompt grows.
"""

from __future__ import annotations

import math
import re

import attrs

from greploom.core.citations import extract_citations

# The sentence the model is told to answer with when the context lacks the answer.
NOT_IN_CONTEXT = "The context does not contain the answer."

SYSTEM_PROMPT = (
    "You answer questions about a code base. The user message holds the context: blocks of code "
    "and summaries, each headed by its file and line, such as `(src/app.py:12)` and "
    "`Defined at src/app.py:12-30`, then the question.\n"
    "Rules:\n"
    "1. Answer only from the context. Do not use outside knowledge of this code base and do not guess.\n"
    "2. Cite every claim with the place in the context it comes from, in square brackets: [file:line] "
    "or [file:line-line], with the file path and line numbers exactly as the context writes them, "
    "for example [src/app.py:12-30].\n"
    "3. If the context does not contain the answer, reply with exactly this sentence and nothing "
    f"else: {NOT_IN_CONTEXT}\n"
    "4. Be brief and precise."
)

# The context window asked of a model that is told one (Ollama's num_ctx; its default
# window, 2,048 or 4,096 tokens by version, silently drops the start of a longer prompt,
# which is where the system prompt is).
ANSWER_ROOM = 2048  # tokens kept for the answer itself
TOKENIZER_SLACK = 1.25  # the prompt is counted with cl100k; other tokenizers spend up to a quarter more
WINDOW_STEP = 1024  # windows are whole multiples of this (KV caches are allocated in such steps)

_WORDS = re.compile(r"[a-z]+")
_SENTENCE_WORDS = tuple(_WORDS.findall(NOT_IN_CONTEXT.lower()))
# "Little more" than the sentence: at most this many words after it (a short reason,
# "I can only see the cart model"); more is an answer of its own.
LITTLE_MORE_WORDS = len(_SENTENCE_WORDS)


@attrs.frozen
class ChatMessage:
    """One message of a chat: ``system``, ``user`` or ``assistant``, and its text."""

    role: str
    content: str


def prompt_messages(question: str, context: str) -> tuple[ChatMessage, ...]:
    """The messages that ask ``question`` of ``context``: the rules, then the context and the question."""
    user = f"Context:\n\n{context.rstrip()}\n\nQuestion: {question.strip()}"
    return (ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", user))


def says_not_in_context(answer: str) -> bool:
    """Whether the answer is :data:`NOT_IN_CONTEXT` (in any case, spacing, punctuation or emphasis).

    It is when the answer's words start with the sentence's and at most
    :data:`LITTLE_MORE_WORDS` follow, or when they hold the sentence anywhere and
    the answer cites nothing. An answer that cites the context and mentions the
    sentence among its claims ("It retries [a.py:3]. The context does not
    contain the answer to why.") is an answer.
    """
    words = tuple(_WORDS.findall(answer.lower()))
    n = len(_SENTENCE_WORDS)
    if words[:n] == _SENTENCE_WORDS and len(words) - n <= LITTLE_MORE_WORDS:
        return True
    holds = any(words[i : i + n] == _SENTENCE_WORDS for i in range(len(words) - n + 1))
    return holds and not extract_citations(answer)


def context_window(prompt_tokens: int) -> int:
    """The context window to ask for a prompt of ``prompt_tokens`` (cl100k) tokens."""
    need = math.ceil(max(prompt_tokens, 0) * TOKENIZER_SLACK) + ANSWER_ROOM
    return max(1, math.ceil(need / WINDOW_STEP)) * WINDOW_STEP
