"""Embedders behind HTTP: Ollama (``/api/embed``) and OpenAI-compatible servers (``/v1/embeddings``).

Texts go out in batches, a few requests at a time. Connection errors,
timeouts and 5xx answers are retried with exponential backoff a bounded
number of times, 429 after the server's ``Retry-After``; anything else fails
at once. Every answer is validated (one vector per text, one width for all,
at most ``MAX_DIMENSION`` wide, finite numbers, at most ``MAX_RESPONSE_BYTES``)
before a single vector is handed on, so a bad server can never half-write an
index.

One call (``embed_documents`` or ``embed_query``, all its batches, retries and
waits) ends by its deadline whatever the server does: a server that hangs,
or drips its answer a byte at a time, is abandoned when the deadline passes
(the query then falls back to lexical search in seconds, not minutes).
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import httpx

from greploom.core.errors import EmbedderError
from greploom.shell.guard import shown_url
from greploom.shell.ports import EmbedderIdentity

BATCH_SIZE = 64
CONCURRENCY = 4  # requests in flight at once
RETRIES = 3  # extra attempts after the first, for transient failures only
BACKOFF_S = 0.5  # first retry delay; doubles each time
TIMEOUT_S = 60.0  # one request's connect/read/write timeout (each also ends by the call's deadline)
MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # 64 texts x 8,192 floats as JSON fit about 4 times over
MAX_DIMENSION = 8192  # sqlite-vec's widest vector column
MAX_RETRY_AFTER_S = 30.0  # a longer Retry-After is not waited for

# Models that were trained with task prefixes and rank worse without them.
PREFIXES: dict[str, tuple[str, str]] = {
    "nomic-embed-text": ("search_query: ", "search_document: "),
    "nomic-embed-code": ("search_query: ", "search_document: "),
    "mxbai-embed-large": ("Represent this sentence for searching relevant passages: ", ""),
    "snowflake-arctic-embed": ("Represent this sentence for searching relevant passages: ", ""),
    "e5": ("query: ", "passage: "),
    "bge": ("Represent this sentence for searching relevant passages: ", ""),
}


def prefixes_for(model: str) -> tuple[str, str]:
    """(query prefix, document prefix) for a model name; tags such as ``:latest`` are ignored."""
    base = model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for name, pair in PREFIXES.items():
        if base == name or base.startswith(name + "-") or base.startswith(name + "_"):
            return pair
    return ("", "")


def validate_vectors(raw: Any, expected_count: int, dimension: int) -> list[list[float]]:
    """Check an answer's vectors: count, one shared width, finite numbers."""
    if not isinstance(raw, list) or len(raw) != expected_count:
        got = len(raw) if isinstance(raw, list) else type(raw).__name__
        raise EmbedderError(f"embedder returned {got} vectors for {expected_count} texts")
    width = dimension
    vectors: list[list[float]] = []
    for vec in raw:
        if not isinstance(vec, list) or not vec:
            raise EmbedderError("embedder returned a vector that is not a list of numbers")
        if width and len(vec) != width:
            raise EmbedderError(f"embedder returned a {len(vec)}-dim vector, expected {width}")
        if len(vec) > MAX_DIMENSION:
            raise EmbedderError(
                f"embedder returned {len(vec)}-dim vectors; greploom stores at most {MAX_DIMENSION} "
                "dimensions (choose a smaller model or its `dimensions` setting)"
            )
        width = len(vec)
        floats = []
        for x in vec:
            if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                raise EmbedderError("embedder returned a vector with a non-finite number")
            floats.append(float(x))
        vectors.append(floats)
    return vectors


class HttpEmbedder:
    """Shared machinery: batching, concurrency, retries, validation."""

    provider = "http"

    def __init__(
        self,
        url: str,
        model: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = TIMEOUT_S,
        deadline_s: float | None = None,
        dimension: int = 0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``deadline_s`` bounds one embedding call (None: only the per-request timeouts);
        ``dimension`` is the width answers must have (0: learnt from the first one)."""
        self.url = url.rstrip("/")
        self.shown_url = shown_url(self.url)  # for messages: no user, password or query string
        self.model = model
        query_prefix, document_prefix = prefixes_for(model)
        self._identity = EmbedderIdentity(self.provider, model, dimension, query_prefix, document_prefix)
        self._headers = headers or {}
        self._timeout = timeout
        self._transport = transport
        self._client = self._new_client()
        self._sleep = sleep
        self.deadline_s = deadline_s

    def _new_client(self) -> httpx.Client:
        return httpx.Client(timeout=self._timeout, headers=self._headers, transport=self._transport)

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider, model and prefixes; the dimension once a vector was seen (or as told)."""
        return self._identity

    def _endpoint(self) -> str:
        raise NotImplementedError

    def _payload(self, texts: Sequence[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _vectors(self, body: Any, count: int) -> Any:
        raise NotImplementedError

    def _late(self) -> EmbedderError:
        return EmbedderError(
            f"{self.provider} embedder at {self.shown_url} did not answer within {self.deadline_s:g}s"
        )

    def _post(self, texts: Sequence[str], deadline: float | None) -> list[list[float]]:
        endpoint = f"{self.url}{self._endpoint()}"
        delay = BACKOFF_S
        for attempt in range(RETRIES + 1):
            last = attempt == RETRIES
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise self._late()
            timeout = self._timeout if left is None else min(self._timeout, left)
            try:
                status, reason, body, retry_after = self._request(endpoint, texts, timeout, deadline)
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                if deadline is not None and time.monotonic() >= deadline:
                    raise self._late() from exc
                if last:
                    raise EmbedderError(
                        f"{self.provider} embedder at {self.shown_url} is unreachable "
                        f"({type(exc).__name__}) after {RETRIES + 1} attempts"
                    ) from exc
            else:
                if status == 429 and not last and retry_after is not None:
                    delay = max(delay, retry_after)
                elif (status < 500 and status != 429) or last:
                    return self._parse(status, reason, body, len(texts))
            if deadline is not None and time.monotonic() + delay >= deadline:
                raise self._late()
            self._sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns or raises

    def _request(
        self, endpoint: str, texts: Sequence[str], timeout: float, deadline: float | None
    ) -> tuple[int, str, bytes, float | None]:
        """One POST: status, reason, body (capped, read by the deadline), Retry-After seconds."""
        with self._client.stream("POST", endpoint, json=self._payload(texts), timeout=timeout) as response:
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise EmbedderError(
                        f"{self.provider} embedder answered with more than "
                        f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB for {len(texts)} texts"
                    )
                if deadline is not None and time.monotonic() > deadline:
                    raise self._late()
                chunks.append(chunk)
            return response.status_code, response.reason_phrase, b"".join(chunks), _retry_after(response)

    def _parse(self, status: int, reason: str, body: bytes, count: int) -> list[list[float]]:
        if status >= 400:
            detail = body.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
            raise EmbedderError(
                f"{self.provider} embedder answered HTTP {status} "
                f"for model {self.model!r}: {detail or reason}"
            )
        try:
            decoded = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise EmbedderError(f"{self.provider} embedder answered with non-JSON text") from exc
        return validate_vectors(self._vectors(decoded, count), count, self._identity.dimension)

    def _run(self, batches: Sequence[Sequence[str]], deadline: float | None) -> list[list[list[float]]]:
        """Post batches a few at a time; past the deadline, abandon the requests still open.

        The workers are daemon threads, so neither the deadline nor Ctrl-C waits
        for a server that does not answer: a request left behind ends by its own
        timeout, and the process may exit before that.
        """
        results: list[list[list[float]] | None] = [None] * len(batches)
        errors: list[BaseException] = []
        todo = list(enumerate(batches))
        lock = threading.Lock()

        def work() -> None:
            while True:
                with lock:
                    if not todo or errors:
                        return
                    index, batch = todo.pop(0)
                try:
                    results[index] = self._post(batch, deadline)
                except BaseException as exc:  # handed to the caller's thread
                    with lock:
                        errors.append(exc)
                    return

        workers = [threading.Thread(target=work, daemon=True) for _ in range(min(CONCURRENCY, len(batches)))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if errors:
                break
        if errors:
            raise errors[0]
        if any(worker.is_alive() for worker in workers):
            # A hung or dripping server: close the connections under the requests
            # still open, and use a fresh client from here on.
            stale, self._client = self._client, self._new_client()
            with contextlib.suppress(Exception):
                stale.close()
            raise self._late()
        return [r for r in results if r is not None]

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        batches = [texts[i : i + BATCH_SIZE] for i in range(0, len(texts), BATCH_SIZE)]
        if not batches:
            return []
        deadline = None if self.deadline_s is None else time.monotonic() + self.deadline_s
        if self._identity.dimension == 0:
            first = self._run(batches[:1], deadline)[0]  # learn the width before going concurrent
            self._identity = attrs.evolve(self._identity, dimension=len(first[0]))
            results = [first]
            rest = batches[1:]
        else:
            results, rest = [], batches
        if rest:
            results.extend(self._run(rest, deadline))
        return [vec for batch in results for vec in batch]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for texts to index, the model's document prefix applied."""
        prefix = self._identity.document_prefix
        return self._embed([prefix + t for t in texts])

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query, the model's query prefix applied."""
        return self._embed([self._identity.query_prefix + text])[0]

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()


class OllamaEmbedder(HttpEmbedder):
    """Ollama's ``POST /api/embed`` with ``{"model", "input"}``, answering ``embeddings``."""

    provider = "ollama"

    def _endpoint(self) -> str:
        return "/api/embed"

    def _payload(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"model": self.model, "input": list(texts)}

    def _vectors(self, body: Any, count: int) -> Any:
        if not isinstance(body, dict) or "embeddings" not in body:
            raise EmbedderError("ollama embedder answered without an 'embeddings' field")
        return body["embeddings"]


class OpenAIEmbedder(HttpEmbedder):
    """OpenAI-compatible ``POST /v1/embeddings``; results are put in ``index`` order."""

    provider = "openai"

    def _endpoint(self) -> str:
        return "/v1/embeddings" if not self.url.endswith("/v1") else "/embeddings"

    def _payload(self, texts: Sequence[str]) -> dict[str, Any]:
        return {"model": self.model, "input": list(texts)}

    def _vectors(self, body: Any, count: int) -> Any:
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbedderError("openai embedder answered without a 'data' list")
        slots: list[Any] = [None] * count
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise EmbedderError("openai embedder answered with a malformed 'data' item")
            index = item.get("index", position)
            if not isinstance(index, int) or not 0 <= index < count or slots[index] is not None:
                raise EmbedderError(f"openai embedder answered with a bad index {index!r}")
            slots[index] = item.get("embedding")
        if len(data) != count:
            return data  # validate_vectors reports the count mismatch
        return slots


def _retry_after(response: httpx.Response) -> float | None:
    """A 429's ``Retry-After`` in seconds (a number; dates are not honoured), capped."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S) if math.isfinite(seconds) else None
