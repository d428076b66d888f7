"""Chat models behind HTTP, streamed: Ollama (``/api/chat``) and OpenAI-compatible servers.

``greploom ask`` prints the answer as it is written, so both adapters stream
and yield the text a piece at a time:

- Ollama ``POST /api/chat`` with ``"stream": true`` answers NDJSON, one JSON
  object a line, ``{"message": {"content": "..."}, "done": false}``, the last
  one ``"done": true``. The request asks for a context window sized to the
  prompt (``options.num_ctx``; greploom.core.ask.context_window): Ollama's
  default window silently drops the start of a longer prompt. Temperature 0:
  the same question on the same context gets the same answer.
- OpenAI-compatible ``POST /v1/chat/completions`` (OpenAI, vLLM, llama.cpp,
  LM Studio, ...) with ``"stream": true`` answers server-sent events,
  ``data: {"choices": [{"delta": {"content": "..."}}]}``, ending with
  ``data: [DONE]``; lines end in CR LF, LF or CR alone (the SSE spec allows
  all three), and an ``event: error`` is the server's failure, its message
  quoted. No sampling settings are sent: servers differ in which
  they accept (some OpenAI models refuse any temperature but 1), and a
  refusal would cost the answer. A stream that stops after a choice's
  ``finish_reason`` but before ``[DONE]`` is taken as complete, as some
  servers omit it.

Every failure is one :class:`ChatError` line (exit code 5): the server
unreachable, an HTTP error status (its ``error`` text quoted), a stream line
that is not the protocol's, a stream that ends before its terminator (the
answer is partial; what was printed stays printed), an empty answer, a
server that stops sending for :data:`READ_TIMEOUT_S`, or an answer that runs
past :data:`DEADLINE_S`. Nothing is retried: part of an answer may already
be on the user's screen, and a retry would print it twice.

The API key goes to OpenAI-compatible servers only (an Ollama gets none):
``GREPLOOM_CHAT_API_KEY`` to the server configured, ``OPENAI_API_KEY`` to
OpenAI's own API only (greploom.shell.config). It is never part of a message:
a server that echoes it back has it blanked. Nor are the credentials a URL
may hold: messages show the URL without its user, password and query string
(greploom.shell.guard.shown_url).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx

from greploom.core.ask import ChatMessage
from greploom.core.errors import ChatError, UsageError
from greploom.shell.config import DEFAULT_OLLAMA_URL, GrepLoomConfig, is_openai_url
from greploom.shell.guard import clip, shown_url

# Defaults when no --chat-model / GREPLOOM_CHAT_MODEL names one. llama3.2 (3B) is the
# small model Ollama's own docs start with: about 2 GB, fast on a laptop CPU, good at
# following the cite-every-claim rules, and its 128k-token window holds a whole
# default budget. gpt-4o-mini is OpenAI's small, cheap chat model. A code model
# (qwen2.5-coder, ...) is one flag away.
DEFAULT_MODELS = {"ollama": "llama3.2", "openai": "gpt-4o-mini"}
# Ollama's own address (127.0.0.1 rather than localhost: localhost may resolve to
# ::1 first, where Ollama does not listen), the same default as the embedder's.
DEFAULT_URLS = {"ollama": DEFAULT_OLLAMA_URL, "openai": "https://api.openai.com/v1"}
CONNECT_TIMEOUT_S = 10.0  # a server that does not accept a connection in this long is down
# Longest silence mid-answer. Generous: a model loading cold, or a CPU reading an
# 8k-token prompt before its first token, can take minutes.
READ_TIMEOUT_S = 300.0
DEADLINE_S = 1800.0  # one whole answer, first byte to last
MAX_LINE_BYTES = 1024 * 1024  # one stream line; a piece of text is a few bytes
MAX_ANSWER_CHARS = 1024 * 1024  # a runaway model is stopped, not buffered forever
_DETAIL_BYTES = 4096  # of an error body, quoted in the message
_DETAIL_CHARS = 200  # of the server's error text, quoted in the message
_LINE_END = re.compile(rb"\r\n|\r|\n")  # the SSE spec's line ends (and NDJSON's)


class HttpChat:
    """Shared machinery: the request, status and line handling, timeouts, the terminator check."""

    provider = "http"

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key: str | None = None,
        num_ctx: int | None = None,
        read_timeout: float = READ_TIMEOUT_S,
        deadline_s: float = DEADLINE_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.num_ctx = num_ctx
        self.finish: str | None = None  # why the model stopped, when the server says (stop, length)
        self._ended = False  # the stream's terminator was read
        self._api_key = api_key
        self._deadline_s = deadline_s
        self._timeout = httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT_S)
        self._transport = transport

    @property
    def name(self) -> str:
        """``provider:model``, as the JSON output and messages name the model."""
        return f"{self.provider}:{self.model}"

    def _endpoint(self) -> str:
        raise NotImplementedError

    def _payload(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return {}

    def _pieces(self, lines: Iterator[str]) -> Iterator[str]:
        """The text pieces of a stream's lines; sets ``_ended`` and returns at the terminator."""
        raise NotImplementedError

    def _error(self, what: str) -> ChatError:
        shown = shown_url(self.url)
        text = f"{self.provider} chat model {self.model!r} at {shown} {what}".replace(self.url, shown)
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return ChatError(text)

    def stream(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        """The answer to ``messages``, a piece at a time as the server writes it.

        Raises :class:`ChatError` (mid-stream too, after pieces were yielded)
        when the answer cannot be had whole.
        """
        deadline = time.monotonic() + self._deadline_s
        self.finish, self._ended = None, False
        written = 0
        client = httpx.Client(timeout=self._timeout, headers=self._headers(), transport=self._transport)
        try:
            with client.stream("POST", self.url + self._endpoint(), json=self._payload(messages)) as response:
                if response.status_code >= 400:
                    raise self._status_error(response)
                for piece in self._pieces(self._lines(response, deadline)):
                    written += len(piece.strip())
                    if written > MAX_ANSWER_CHARS:
                        raise self._error(f"wrote more than {MAX_ANSWER_CHARS:,} characters; stopped")
                    yield piece
        except httpx.ConnectTimeout as exc:
            raise self._error(f"is unreachable (no connection within {CONNECT_TIMEOUT_S:g}s)") from exc
        except httpx.ConnectError as exc:
            raise self._error(f"is unreachable ({_reason(exc)}); {self._hint()}") from exc
        except httpx.TimeoutException as exc:
            raise self._error(f"stopped answering (nothing for {self._timeout.read:g}s)") from exc
        except httpx.TransportError as exc:  # the connection broke
            if written == 0:
                raise self._error(f"closed the connection before answering ({_reason(exc)})") from exc
            raise self._error(f"broke off the answer ({_reason(exc)}): it is partial") from exc
        finally:
            client.close()
        if not self._ended:
            raise self._error(f"ended the stream before {self.terminator_text()}: the answer is partial")
        if written == 0:
            raise self._error("answered nothing")

    def terminator_text(self) -> str:
        """How the protocol's end of stream reads, for messages."""
        raise NotImplementedError

    def _hint(self) -> str:
        return "start it, or pass --chat-url / GREPLOOM_CHAT_URL"

    def _status_error(self, response: httpx.Response) -> ChatError:
        body = b""
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) >= _DETAIL_BYTES:
                break
        detail = body[:_DETAIL_BYTES].decode("utf-8", "replace")
        decoded = _json_object(detail)
        if decoded is not None and "error" in decoded:  # {"error": {"message": null}} says nothing
            detail = _error_text(decoded["error"]) or ""
        detail = _one_line(detail) or response.reason_phrase or "no error text"
        hint = ""
        if response.status_code in (401, 403):
            hint = (
                " (set GREPLOOM_CHAT_API_KEY or OPENAI_API_KEY)"
                if is_openai_url(self.url)
                else " (set GREPLOOM_CHAT_API_KEY; OPENAI_API_KEY goes to api.openai.com only)"
            )
        elif response.status_code == 404 and self.provider == "ollama":
            hint = f" (`ollama pull {self.model}`, or name another with --chat-model)"
        return self._error(f"answered HTTP {response.status_code}: {detail}{hint}")

    def _lines(self, response: httpx.Response, deadline: float) -> Iterator[str]:
        """The stream's lines as text, each at most :data:`MAX_LINE_BYTES`, by the deadline.

        A line ends at CR LF, LF or a lone CR; a CR that ends a chunk waits for
        the next one, which may start with its LF.
        """
        pending = b""
        for chunk in response.iter_bytes():
            if time.monotonic() > deadline:
                raise self._error(f"did not finish its answer within {self._deadline_s:g}s")
            pending += chunk
            held = pending.endswith(b"\r")
            *lines, pending = _LINE_END.split(pending[:-1] if held else pending)
            if held:
                pending += b"\r"
            for line in lines:
                yield self._decode(line)
            if len(pending) > MAX_LINE_BYTES:
                raise self._error(f"sent a stream line longer than {MAX_LINE_BYTES:,} bytes")
        if pending:
            yield self._decode(pending.rstrip(b"\r"))

    def _decode(self, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self._malformed(line.decode("utf-8", "replace")) from exc

    def _malformed(self, line: str) -> ChatError:
        shown = line if len(line) <= 80 else line[:77] + "..."
        return self._error(f"sent a malformed stream line: {shown!r}")


class OllamaChat(HttpChat):
    """Ollama's ``POST /api/chat``, streamed as NDJSON."""

    provider = "ollama"

    def _endpoint(self) -> str:
        return "/api/chat"

    def terminator_text(self) -> str:
        return '"done": true'

    def _hint(self) -> str:
        return "start it (`ollama serve`), or pass --chat-url / GREPLOOM_CHAT_URL"

    def _payload(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        options: dict[str, Any] = {"temperature": 0}
        if self.num_ctx:
            options["num_ctx"] = self.num_ctx
        return {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "options": options,
        }

    def _pieces(self, lines: Iterator[str]) -> Iterator[str]:
        for line in lines:
            if not line.strip():
                continue
            event = _json_object(line)
            if event is None:
                raise self._malformed(line)
            if event.get("error"):
                raise self._error(f"answered: {_error_text(event['error']) or 'an error without a message'}")
            message = event.get("message", {})
            if message is None and event.get("done") is True:  # some servers end with no message
                message = {}
            content = message.get("content", "") if isinstance(message, dict) else None
            if not isinstance(content, str):
                raise self._malformed(line)
            if content:
                yield content
            if event.get("done") is True:
                reason = event.get("done_reason")
                self.finish = reason if isinstance(reason, str) else "stop"
                self._ended = True
                return


class OpenAIChat(HttpChat):
    """OpenAI-compatible ``POST /v1/chat/completions``, streamed as server-sent events."""

    provider = "openai"

    def _endpoint(self) -> str:
        return "/chat/completions" if self.url.endswith("/v1") else "/v1/chat/completions"

    def terminator_text(self) -> str:
        return "`data: [DONE]`"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _payload(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
        }

    def _pieces(self, lines: Iterator[str]) -> Iterator[str]:
        for kind, data in _sse_events(lines):
            if kind == "error":  # the server's failure, as an event of its own
                event = _json_object(data)
                said = _error_text(event) if event is not None else _one_line(data)
                raise self._error(f"answered: {said or 'an error event without a message'}")
            if data.strip() == "[DONE]":
                self._ended = True
                return
            yield from self._delta(data)
        # Some servers end with a choice's finish_reason and no [DONE]: the answer is whole.
        self._ended = self.finish is not None

    def _delta(self, data: str) -> Iterator[str]:
        event = _json_object(data)
        if event is None:
            raise self._malformed(f"data: {data}")
        if event.get("error"):
            raise self._error(f"answered: {_error_text(event['error']) or 'an error without a message'}")
        choices = event.get("choices")
        if not isinstance(choices, list):
            raise self._malformed(f"data: {data}")
        for choice in choices[:1]:  # one answer asked for; n > 1 is never requested
            delta = choice.get("delta", {}) if isinstance(choice, dict) else None
            content = delta.get("content") if isinstance(delta, dict) else ""
            if content is not None and not isinstance(content, str):
                raise self._malformed(f"data: {data}")
            if content:
                yield content
            reason = choice.get("finish_reason") if isinstance(choice, dict) else None
            if isinstance(reason, str):
                self.finish = reason


def _sse_events(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """Each server-sent event's type (``message`` unless an ``event:`` line names another) and data
    (its ``data:`` lines joined), dispatched at a blank line.

    Comments (``:``) and the other fields (``id``, ``retry``) are skipped; an
    event the stream ends in without its blank line still counts.
    """
    kind = ""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield kind or "message", "\n".join(data)
            kind, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            kind = value
    if data:
        yield kind or "message", "\n".join(data)


def _error_text(error: Any, depth: int = 0) -> str | None:
    """A server's error, as the text it states: the string, or an object's ``message`` (or
    ``error``, ``detail``) within a few levels; None when it states none (``{"message": null}``)."""
    if isinstance(error, str):
        return _one_line(error) or None
    if isinstance(error, dict) and depth < 3:
        for key in ("message", "error", "detail"):
            if text := _error_text(error.get(key), depth + 1):
                return text
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:_DETAIL_CHARS]


def _json_object(text: str) -> dict[str, Any] | None:
    """``text`` as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:120] if text else type(exc).__name__


def chat_for(
    config: GrepLoomConfig, *, num_ctx: int | None = None, transport: httpx.BaseTransport | None = None
) -> HttpChat:
    """The chat model ``config`` names: its provider, model (or the default) and URL (or the default).

    Connects to nothing; a URL that is not an http(s) URL is a :class:`UsageError`.
    """
    provider = config.chat_provider
    model = config.chat_model or DEFAULT_MODELS[provider]
    url = config.chat_url or DEFAULT_URLS[provider]
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(
            f"chat URL {clip(shown_url(url))!r} is not an http:// or https:// URL "
            "(--chat-url, GREPLOOM_CHAT_URL)"
        )
    if provider == "ollama":
        return OllamaChat(url, model, num_ctx=num_ctx, transport=transport)
    return OpenAIChat(url, model, api_key=config.chat_key(url), num_ctx=num_ctx, transport=transport)
