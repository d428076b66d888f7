"""A real HTTP server on 127.0.0.1 speaking the Ollama and OpenAI embedding protocols.

Vectors are deterministic functions of the text (a hashed bag of words,
normalised), so search over them behaves like a crude but real embedding.
Faults are injected per test: 5xx for the first N requests, a fixed status,
a delay, shuffled OpenAI ``index`` order, wrong counts or widths, NaN,
non-JSON bodies.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs


def fake_vector(text: str, dim: int) -> list[float]:
    """A unit vector from the words of ``text``: shared words give similar vectors."""
    vec = [0.0] * dim
    for word in re.findall(r"[a-z]+", text.lower()):
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


def model_vector(text: str, dim: int, model: str = "") -> list[float]:
    """``fake_vector`` in the space of ``model``: its coordinates permuted by the model's name."""
    vec = fake_vector(text, dim)
    if not model:
        return vec
    order = list(range(dim))
    random.Random(model).shuffle(order)
    return [vec[i] for i in order]


@attrs.define
class Faults:
    """What the server does wrong, and what it saw."""

    dim: int = 16
    fail_first: int = 0  # answer 500 to this many requests first
    status: int | None = None  # always answer this status
    delay_s: float = 0.0
    shuffle: bool = False
    wrong_count: bool = False
    wrong_dim: bool = False
    nan: bool = False
    non_json: bool = False
    fail_after: int | None = None  # answer 500 once this many requests have succeeded
    per_model: bool = False  # each model name gets its own vector space (a fixed permutation)
    dim_for: dict[str, int] = attrs.Factory(dict)  # model name -> width, overriding `dim`
    drip_s: float = 0.0  # send the body one byte at a time, this long apart
    too_many_first: int = 0  # answer 429 with Retry-After: 0 to this many requests first
    kill_pid: int | None = None  # SIGKILL this process ...
    kill_at: int = 0  # ... once this many requests have been answered
    requests: int = 0
    inputs: list[list[str]] = attrs.Factory(list)
    auth: list[str | None] = attrs.Factory(list)


class _Handler(BaseHTTPRequestHandler):
    faults: Faults
    lock: threading.Lock

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        f = self.faults
        length = int(self.headers.get("Content-Length", "0"))
        payload = json.loads(self.rfile.read(length) or b"{}")
        with self.lock:
            f.requests += 1
            n = f.requests
            f.auth.append(self.headers.get("Authorization"))
        if f.delay_s:
            time.sleep(f.delay_s)
        if f.status is not None:
            return self._send(f.status, b'{"error": "injected"}')
        if n <= f.fail_first or (f.fail_after is not None and n > f.fail_after):
            return self._send(500, b'{"error": "injected 500"}')
        if n <= f.too_many_first:
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            return None
        if f.non_json:
            return self._send(200, b"<html>not json</html>", "text/html")
        texts = payload.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts)
        with self.lock:
            f.inputs.append(texts)
        model = str(payload.get("model"))
        dim = f.dim_for.get(model, f.dim)
        vectors: list[list[Any]] = [model_vector(t, dim, model if f.per_model else "") for t in texts]
        if f.wrong_count:
            vectors = vectors[:-1]
        if f.wrong_dim and vectors:
            vectors[-1] = vectors[-1] + [0.0]
        if f.nan and vectors:
            vectors[0][0] = float("nan")
        if self.path == "/api/embed":
            body = {"model": payload.get("model"), "embeddings": vectors}
        elif self.path == "/v1/embeddings":
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            if f.shuffle:
                random.Random(n).shuffle(data)
            body = {"object": "list", "data": data, "model": payload.get("model")}
        else:
            return self._send(404, b'{"error": "not found"}')
        encoded = json.dumps(body).encode()
        if f.drip_s:
            return self._drip(encoded, f.drip_s)
        self._send(200, encoded)
        if f.kill_pid is not None and n == f.kill_at:
            self.wfile.flush()
            os.kill(f.kill_pid, signal.SIGKILL)
        return None

    def _drip(self, body: bytes, pause: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(pause)
        except OSError:
            pass  # the client gave up, as it should


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (a timeout test) is expected, not an error worth a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextmanager
def embedding_server(faults: Faults | None = None) -> Iterator[tuple[str, Faults]]:
    """Run the server on a free loopback port for the duration of a ``with`` block."""
    f = faults or Faults()
    handler = type("Handler", (_Handler,), {"faults": f, "lock": threading.Lock()})
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", f
    finally:
        server.shutdown()
        server.server_close()
