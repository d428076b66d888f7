"""``greploom ask``: the context ``greploom query`` packs, answered by a chat model that cites it.

Registered on :data:`greploom.shell.cli.app`, which imports this module; the
exit codes, the error lines and the configuration rules are that module's.

Gather, decide, act:

1. gather: the very retrieval ``greploom query TEXT`` does
   (greploom.shell.querying.run_query, its default levels of detail), packed
   to the budget as its text; the place of every block sent is kept;
2. decide: the prompt (greploom.core.ask);
3. act: the chat model's answer streamed to stdout as it is written
   (greploom.shell.chat_http);
4. decide: the citations read back and checked against the places sent
   (greploom.core.citations); act: report them.

Where things go, and why:

- stdout holds the answer alone (text) or one JSON object (``--format
  json``), so either pipes cleanly; everything about the answer goes to
  stderr: ``--show-context`` (the messages sent, printed before the model is
  asked, so they stand above the answer on a terminal), the citations that
  point outside the context, and the note that the context did not hold the
  answer.
- "The context does not contain the answer" is an answer, not a failure:
  exit 0, marked (``not_in_context`` in JSON, a note on stderr in text).
- A query that matched nothing asks no model: the answer is that sentence.
- A chat model that cannot be reached, or fails mid-answer, is one error
  line and exit 5; text already printed stays, ended by a newline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import attrs
from cyclopts import Parameter

from greploom.core.ask import (
    NOT_IN_CONTEXT,
    ChatMessage,
    context_window,
    prompt_messages,
    says_not_in_context,
)
from greploom.core.citations import CheckedCitation, Span, check_citations, extract_citations, flagged
from greploom.core.errors import ChatError, UsageError
from greploom.shell.cli import Provider, app, command_config, err, out

if TYPE_CHECKING:
    from greploom.shell.answer import QueryAnswer
    from greploom.shell.chat_http import HttpChat
    from greploom.shell.config import GrepLoomConfig

ChatProvider = Literal["ollama", "openai"]


@attrs.frozen
class SentBlock:
    """One block of the context sent: its node's key and place, how much it shows, its text."""

    key: str
    file: str
    line: int
    end_line: int
    detail: str  # full, focused, summary or reference (greploom.core.render.Detail)
    text: str

    @property
    def span(self) -> Span:
        """The lines the block states it covers."""
        return Span(self.file, self.line, self.end_line)


@attrs.frozen
class SentContext:
    """The context as sent (the text ``greploom query`` prints) and its blocks."""

    text: str
    blocks: tuple[SentBlock, ...]


@app.command
def ask(
    question: str,
    *,
    db: Path | None = None,
    budget: int | None = None,
    top_k: int | None = None,
    depth: int | None = None,
    provider: Provider | None = None,
    model: str | None = None,
    ollama_url: str | None = None,
    embedding_url: str | None = None,
    chat_provider: ChatProvider | None = None,
    chat_model: str | None = None,
    chat_url: str | None = None,
    show_context: Annotated[bool, Parameter(negative=())] = False,
    format: Literal["text", "json"] = "text",
) -> int:
    """Answer QUESTION with a chat model from the code ``greploom query`` finds, citing ``[file:line]``.

    The answer streams to stdout; the citations that point outside the context sent
    are listed on stderr after it. When the context does not hold the answer, the
    model says "The context does not contain the answer." (exit 0; ``not_in_context``
    in JSON). A chat model that cannot be reached, or fails mid-answer: one error
    line, exit 5.

    Parameters
    ----------
    question
        What you want to know about the code.
    db
        The index file [default: .greploom/index.db, or GREPLOOM_DB].
    budget
        Token budget of the context sent, header included (cl100k_base) [default: 8192].
    top_k
        Search hits to show, 1-100 [default: 10].
    depth
        Graph hops to expand from each hit, 0-4 [default: 1].
    provider
        Embedding provider; must match the index's; ``none`` searches lexically only.
    model
        Embedding model; must match the index's.
    ollama_url
        Ollama base URL of the embedder, when the index was embedded with ollama.
    embedding_url
        OpenAI-compatible base URL of the embedder, when the index was embedded with openai.
    chat_provider
        ``ollama`` (``/api/chat``) or ``openai`` (any OpenAI-compatible ``/v1/chat/completions``)
        [default: ollama, or GREPLOOM_CHAT_PROVIDER].
    chat_model
        The chat model [default: llama3.2 for ollama, gpt-4o-mini for openai, or GREPLOOM_CHAT_MODEL].
    chat_url
        The chat server's base URL [default: http://127.0.0.1:11434 for ollama,
        https://api.openai.com/v1 for openai, or GREPLOOM_CHAT_URL]. The API key of an
        OpenAI-compatible server comes from GREPLOOM_CHAT_API_KEY (sent to the server named
        here) or OPENAI_API_KEY (sent to https://api.openai.com only).
    show_context
        Print the messages sent to the model (system prompt, context, question) on stderr
        before the answer.
    format
        ``text`` (the answer as it streams) or ``json`` (one object once the answer is whole).
    """
    config = command_config(
        db_path=db,
        budget=budget,
        top_k=top_k,
        depth=depth,
        provider=provider,
        model=model,
        ollama_url=ollama_url,
        embedding_url=embedding_url,
        chat_provider=chat_provider,
        chat_model=chat_model,
        chat_url=chat_url,
    )
    if not question.strip():
        raise UsageError("ask needs a question: greploom ask 'where is the retry backoff computed'")
    from greploom.shell.chat_http import chat_for

    named = chat_for(config)  # the chat settings checked before the retrieval runs
    context = gather_context(config, question)
    messages = prompt_messages(question, context.text)
    chat = None
    if context.blocks:
        from greploom.shell.tokens import count_tokens

        prompt_tokens = sum(count_tokens(m.content) + 4 for m in messages)  # 4: a message's framing
        chat = named
        chat.num_ctx = context_window(prompt_tokens)
    if show_context:
        _show(messages, chat.name if chat else None)
    if chat is None:  # nothing matched: there is nothing to ask about
        answer = NOT_IN_CONTEXT
        if format == "text":
            out().write(answer + "\n")
    else:
        answer = stream_answer(chat, messages, echo=format == "text")
    checked = check_citations(extract_citations(answer), (b.span for b in context.blocks))
    not_in_context = says_not_in_context(answer)
    if format == "json":
        model_name = chat.name if chat else None
        shape = answer_json(answer, checked, context.blocks, not_in_context=not_in_context, model=model_name)
        out().write(json.dumps(shape, indent=2, ensure_ascii=False))
        out().write("\n")
    else:
        _report(checked, not_in_context=not_in_context, asked=chat is not None)
    return 0


def gather_context(config: GrepLoomConfig, question: str) -> SentContext:
    """The context ``greploom query QUESTION`` prints, and the place of each block in it."""
    from greploom.core.render import SourceMode
    from greploom.shell.guard import clip
    from greploom.shell.querying import run_query

    answer = run_query(config, question, (), include_source=SourceMode.HITS)
    text = answer.text  # packed first: a budget too small for any answer is one error line
    for place in answer.places_not_found:
        print(f"greploom: warning: no indexed file matches {clip(place)}; answered as words", file=err())
    return SentContext(text, sent_blocks(answer))


def sent_blocks(answer: QueryAnswer) -> tuple[SentBlock, ...]:
    """The blocks of a query's packed text, each with the place its text states.

    A block shown whole, focused or as a summary states ``Defined at
    file:line-end``; a one-line reference states only ``(file:line)``, so
    its span is that line: the model never saw the rest.
    """
    from greploom.core.render import Detail, block_key

    nodes = {block_key(n): n for n in answer.nodes}
    blocks = []
    for packed in answer.packing.blocks:
        node = nodes.get(packed.block.key)
        if node is None:  # pragma: no cover - every packed block is one of the answer's nodes
            continue
        detail = packed.label or packed.block.label
        span = Span.of(
            node.ref.file, node.ref.line, None if detail == Detail.REFERENCE.value else node.end_line
        )
        blocks.append(SentBlock(node.ref.key, span.file, span.line, span.end_line, detail, packed.text))
    return tuple(blocks)


def stream_answer(chat: HttpChat, messages: Sequence[ChatMessage], *, echo: bool) -> str:
    """The chat model's whole answer; with ``echo``, each piece written to stdout as it comes.

    A failure (or Ctrl-C) mid-answer ends the printed part with a newline
    before the error goes up, so the error line stands on a line of its own.
    """
    pieces: list[str] = []
    stream = out()
    try:
        for piece in chat.stream(messages):
            pieces.append(piece)
            if echo:
                stream.write(piece)
                stream.flush()
    except (ChatError, KeyboardInterrupt):
        if echo and pieces and not pieces[-1].endswith("\n"):
            stream.write("\n")
        raise
    answer = "".join(pieces)
    if echo and not answer.endswith("\n"):
        stream.write("\n")
    if chat.finish == "length":
        print(
            f"greploom: warning: {chat.name} stopped at its length limit: the answer may be cut short",
            file=err(),
        )
    return answer


def answer_json(
    answer: str,
    checked: Sequence[CheckedCitation],
    blocks: Sequence[SentBlock],
    *,
    not_in_context: bool,
    model: str | None,
) -> dict[str, Any]:
    """The ``--format json`` object of an answer.

    Its shape is a public contract (scripts and agents read it): fields may be
    added, never renamed or removed. ``citations`` holds each distinct citation
    once, in the order first written, with ``end_line`` always set (a one-line
    citation's is its ``line``), so a reader needs no null check; ``flagged``
    counts those with ``valid`` false, so a script tests one number; ``blocks``
    are the blocks sent, in the order sent, so a reader can show or re-check
    what the model saw without running the query again; ``model`` is
    ``provider:model`` (null when nothing matched and no model was asked).
    """
    return {
        "answer": answer,
        "citations": [
            {
                "file": c.citation.file,
                "line": c.citation.line,
                "end_line": c.citation.end_line,
                "valid": c.valid,
            }
            for c in checked
        ],
        "flagged": len(flagged(checked)),
        "blocks": [
            {
                "key": b.key,
                "file": b.file,
                "line": b.line,
                "end_line": b.end_line,
                "detail": b.detail,
                "text": b.text,
            }
            for b in blocks
        ],
        "not_in_context": not_in_context,
        "model": model,
    }


def _show(messages: Iterable[ChatMessage], model: str | None) -> None:
    """``--show-context``: the messages sent, on stderr, each under its role."""
    to = f"sent to {model}" if model else "(no model asked: nothing matched)"
    lines = [f"greploom: context {to}:"]
    for message in messages:
        lines += [f"--- {message.role} ---", message.content.rstrip("\n")]
    lines.append("--- end of context ---")
    print("\n".join(lines), file=err())


def _report(checked: Sequence[CheckedCitation], *, not_in_context: bool, asked: bool) -> None:
    """After a text answer, on stderr: the citations outside the context, or why there are none."""
    from greploom.shell.guard import clip

    outside = flagged(checked)
    if outside:
        shown = ", ".join(clip(str(c), 120) for c in outside[:20])
        more = f" and {len(outside) - 20} more" if len(outside) > 20 else ""
        said = f"citations outside the context sent ({len(outside)} of {len(checked)})"
        print(f"greploom: warning: {said}: {shown}{more}", file=err())
    if not_in_context:
        hint = "a larger --budget or --top-k, or other words" if asked else "other words, or re-index"
        print(f"greploom: note: the context sent does not hold the answer; try {hint}", file=err())
    elif not checked:
        print("greploom: warning: the answer cites no [file:line] of the context sent", file=err())
