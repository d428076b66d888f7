"""Embedders behind HTTP: Ollama (``/api/embed``) and OpenAI-compatible servers (``/v1/embeddings``).

Texts go out in batches, a few requests at a time. Connection errors,
timeouts and 5xx answers are retried with exponential backoff a bounded
number of times; anything else fails at once. Every answer is validated
(one vector per text, one width for all, finite numbers) before a single
vector is handed on, so a bad server can never half-write an index.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from greploom.core.errors import EmbedderError
from greploom.shell.ports import EmbedderIdentity

BATCH_SIZE = 64
CONCURRENCY = 4  # requests in flight at once
RETRIES = 3  # extra attempts after the first, for transient failures only
BACKOFF_S = 0.5  # first retry delay; doubles each time
TIMEOUT_S = 60.0

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
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url.rstrip("/")
        self.model = model
        query_prefix, document_prefix = prefixes_for(model)
        self._identity = EmbedderIdentity(self.provider, model, 0, query_prefix, document_prefix)
        self._client = httpx.Client(timeout=timeout, headers=headers or {}, transport=transport)
        self._sleep = sleep

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider, model and prefixes; the dimension once a vector was seen."""
        return self._identity

    def _endpoint(self) -> str:
        raise NotImplementedError

    def _payload(self, texts: Sequence[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _vectors(self, body: Any, count: int) -> Any:
        raise NotImplementedError

    def _post(self, texts: Sequence[str]) -> list[list[float]]:
        endpoint = f"{self.url}{self._endpoint()}"
        delay = BACKOFF_S
        for attempt in range(RETRIES + 1):
            last = attempt == RETRIES
            try:
                response = self._client.post(endpoint, json=self._payload(texts))
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                if last:
                    raise EmbedderError(
                        f"{self.provider} embedder at {self.url} is unreachable "
                        f"({type(exc).__name__}) after {RETRIES + 1} attempts"
                    ) from exc
            else:
                if response.status_code < 500 or last:
                    return self._parse(response, len(texts))
            self._sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns or raises

    def _parse(self, response: httpx.Response, count: int) -> list[list[float]]:
        if response.status_code >= 400:
            detail = response.text.strip().replace("\n", " ")[:200]
            raise EmbedderError(
                f"{self.provider} embedder answered HTTP {response.status_code} "
                f"for model {self.model!r}: {detail or response.reason_phrase}"
            )
        try:
            body = response.json()
        except ValueError as exc:
            raise EmbedderError(f"{self.provider} embedder answered with non-JSON text") from exc
        vectors = validate_vectors(self._vectors(body, count), count, self._identity.dimension)
        return vectors

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        batches = [texts[i : i + BATCH_SIZE] for i in range(0, len(texts), BATCH_SIZE)]
        if not batches:
            return []
        if self._identity.dimension == 0:
            first = self._post(batches[0])  # learn the width before going concurrent
            self._identity = EmbedderIdentity(
                self.provider,
                self.model,
                len(first[0]),
                self._identity.query_prefix,
                self._identity.document_prefix,
            )
            results = [first]
            rest = batches[1:]
        else:
            results, rest = [], batches
        with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
            results.extend(pool.map(self._post, rest))
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
