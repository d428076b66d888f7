"""A real HTTP server on 127.0.0.1 speaking Ollama's and OpenAI's streaming chat protocols.

``POST /api/chat`` answers NDJSON lines (``{"message": {"content"}, "done"}``),
``POST /v1/chat/completions`` server-sent events (``data: {"choices": [{"delta"}]}``
then ``data: [DONE]``), each piece written and flushed on its own, so the
client reads a real stream. The answer is scripted per test: a string, or a
function of the messages received (by default it cites the first block of
the context sent, read from the request, as a model following the rules
would). Faults: an HTTP status, a malformed line mid-stream, a stream cut
off before its terminator, a delay before answering. Variants servers send:
lines ended by CR alone or CR LF, an SSE ``event: error`` mid-answer, and an
Ollama last line whose ``message`` is null.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

Messages = list[dict[str, Any]]
_DEFINED = re.compile(r"Defined at (\S+?):(\d+)(?:-(\d+))?$", re.MULTILINE)


def context_of(messages: Messages) -> str:
    """The user message the client sent (the context and the question)."""
    return next(str(m["content"]) for m in messages if m.get("role") == "user")


def first_place(messages: Messages) -> str:
    """The first ``file:line-end`` a block of the context states (``Defined at ...``)."""
    match = _DEFINED.search(context_of(messages))
    assert match is not None, "no block with a place in the context"
    file, line, end = match.groups()
    return f"{file}:{line}-{end}" if end else f"{file}:{line}"


def cite_first_block(messages: Messages) -> str:
    """An answer a rule-following model writes: one claim, citing the first block sent."""
    return f"The retry backoff is computed by `backoff_delay` [{first_place(messages)}]."


@attrs.define
class Script:
    """What the server answers, what it does wrong, and what it saw."""

    reply: str | Callable[[Messages], str] = cite_first_block
    piece_chars: int = 7  # the answer is streamed in pieces of this many characters
    status: int | None = None  # answer this HTTP status (with an error body) instead
    error_body: bytes = b'{"error": "injected failure"}'
    malformed: bool = False  # send a line that is not the protocol's after the first piece
    partial: bool = False  # close the connection halfway, before done / [DONE]
    no_done: bool = False  # OpenAI: end with a finish_reason but no [DONE]
    delay_s: float = 0.0  # wait this long before answering
    line_end: str = "\n"  # what ends each line of the stream: "\r" or "\r\n" as some servers write
    error_event: str | None = None  # OpenAI: after the first piece, `event: error` with this data, then stop
    null_done_message: bool = False  # Ollama: the done line's message is null
    requests: list[dict[str, Any]] = attrs.Factory(list)
    paths: list[str] = attrs.Factory(list)
    auth: list[str | None] = attrs.Factory(list)

    def pieces(self, messages: Messages) -> list[str]:
        """The scripted answer cut into the pieces the stream carries."""
        text = self.reply(messages) if callable(self.reply) else self.reply
        n = self.piece_chars
        return [text[i : i + n] for i in range(0, len(text), n)]


class _Handler(BaseHTTPRequestHandler):
    script: Script
    lock: threading.Lock

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        s = self.script
        length = int(self.headers.get("Content-Length", "0"))
        payload = json.loads(self.rfile.read(length) or b"{}")
        with self.lock:
            s.requests.append(payload)
            s.paths.append(self.path)
            s.auth.append(self.headers.get("Authorization"))
        if s.delay_s:
            time.sleep(s.delay_s)
        if s.status is not None:
            self.send_response(s.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(s.error_body)))
            self.end_headers()
            self.wfile.write(s.error_body)
            return
        if self.path == "/api/chat":
            self._stream("application/x-ndjson", self._ollama(s, payload))
        elif self.path == "/v1/chat/completions":
            self._stream("text/event-stream", self._openai(s, payload))
        else:
            self.send_response(404)
            self.end_headers()

    def _stream(self, ctype: str, lines: Iterator[str]) -> None:
        """HTTP/1.0 without a length: the body is the lines, ended by closing the connection."""
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.end_headers()
        try:
            for line in lines:
                self.wfile.write(line.replace("\n", self.script.line_end).encode())
                self.wfile.flush()
        except OSError:
            pass  # the client gave up, as it may

    @staticmethod
    def _cut(s: Script, pieces: list[str]) -> list[str]:
        return pieces[: max(1, len(pieces) // 2)] if s.partial else pieces

    def _ollama(self, s: Script, payload: dict[str, Any]) -> Iterator[str]:
        model = payload.get("model")
        pieces = s.pieces(payload["messages"])
        for i, piece in enumerate(self._cut(s, pieces)):
            message = {"role": "assistant", "content": piece}
            yield json.dumps({"model": model, "message": message, "done": False}) + "\n"
            if s.malformed and i == 0:
                yield "this is not json\n"
        if s.partial:
            return
        last = None if s.null_done_message else {"role": "assistant", "content": ""}
        yield json.dumps({"model": model, "message": last, "done": True, "done_reason": "stop"}) + "\n"

    def _openai(self, s: Script, payload: dict[str, Any]) -> Iterator[str]:
        def event(delta: dict[str, Any], finish: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}
            return f"data: {json.dumps(chunk)}\n\n"

        yield ": a comment line, which clients skip\n\n"
        yield event({"role": "assistant", "content": ""})
        pieces = s.pieces(payload["messages"])
        for i, piece in enumerate(self._cut(s, pieces)):
            yield event({"content": piece})
            if s.malformed and i == 0:
                yield "data: {not json\n\n"
            if s.error_event is not None:
                yield f"event: error\ndata: {s.error_event}\n\n"
                return
        if s.partial:
            return
        yield event({}, "stop")
        if not s.no_done:
            yield "data: [DONE]\n\n"


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (a timeout test) is expected, not an error worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextmanager
def chat_server(script: Script | None = None) -> Iterator[tuple[str, Script]]:
    """Run the server on a free loopback port for the duration of a ``with`` block."""
    s = script or Script()
    handler = type("Handler", (_Handler,), {"script": s, "lock": threading.Lock()})
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", s
    finally:
        server.shutdown()
        server.server_close()
