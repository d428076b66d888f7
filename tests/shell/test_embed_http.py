"""The Ollama and OpenAI adapters against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import math

import pytest

from greploom.core.errors import EmbedderError
from greploom.shell import embed_http
from greploom.shell.embed_http import OllamaEmbedder, OpenAIEmbedder, prefixes_for
from tests.embed_server import Faults, embedding_server, fake_vector

TEXTS = [f"text number {i} about carts" for i in range(150)]


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries back off for milliseconds, not seconds, in tests."""
    monkeypatch.setattr(embed_http, "BACKOFF_S", 0.01)


def test_ollama_protocol() -> None:
    """Batches go to /api/embed with model and input; vectors come back in order."""
    with embedding_server() as (url, faults):
        emb = OllamaEmbedder(url, "all-minilm")
        vectors = emb.embed_documents(TEXTS)
        assert vectors == [pytest.approx(fake_vector(t, 16)) for t in TEXTS]
        assert emb.identity.dimension == 16
        assert sum(len(batch) for batch in faults.inputs) == len(TEXTS)
        assert max(len(batch) for batch in faults.inputs) <= embed_http.BATCH_SIZE


def test_openai_protocol_orders_by_index() -> None:
    """Shuffled `data` items are put back in `index` order, with the API key sent."""
    with embedding_server(Faults(shuffle=True)) as (url, faults):
        emb = OpenAIEmbedder(url, "text-embedding-3-small", headers={"Authorization": "Bearer k"})
        vectors = emb.embed_documents(TEXTS)
        assert vectors == [pytest.approx(fake_vector(t, 16)) for t in TEXTS]
        assert set(faults.auth) == {"Bearer k"}


def test_nomic_prefixes_are_applied() -> None:
    """nomic-embed-text needs task prefixes on documents and queries."""
    assert prefixes_for("nomic-embed-text:latest") == ("search_query: ", "search_document: ")
    with embedding_server() as (url, faults):
        emb = OllamaEmbedder(url, "nomic-embed-text")
        emb.embed_documents(["def f()"])
        emb.embed_query("where")
        assert faults.inputs == [["search_document: def f()"], ["search_query: where"]]


def test_transient_5xx_is_retried() -> None:
    """Two 500s then success: the caller never notices."""
    with embedding_server(Faults(fail_first=2)) as (url, faults):
        assert len(OllamaEmbedder(url, "m").embed_documents(["a", "b"])) == 2
        assert faults.requests == 3


def test_persistent_5xx_fails_clearly() -> None:
    """A server that keeps failing gives one clear error after bounded retries."""
    with embedding_server(Faults(status=503)) as (url, faults):
        with pytest.raises(EmbedderError, match="HTTP 503"):
            OllamaEmbedder(url, "m").embed_documents(["a"])
        assert faults.requests == embed_http.RETRIES + 1


def test_4xx_is_not_retried() -> None:
    """A wrong model name is not transient: fail at once."""
    with embedding_server(Faults(status=404)) as (url, faults):
        with pytest.raises(EmbedderError, match="HTTP 404"):
            OllamaEmbedder(url, "missing-model").embed_documents(["a"])
        assert faults.requests == 1


def test_unreachable_server() -> None:
    """Nothing listening: a connection error after retries, named as unreachable."""
    with embedding_server() as (url, _):
        dead = url
    with pytest.raises(EmbedderError, match="unreachable"):
        OllamaEmbedder(dead, "m").embed_documents(["a"])


def test_slow_server_times_out() -> None:
    """A server slower than the timeout is retried, then reported."""
    with embedding_server(Faults(delay_s=0.5)) as (url, faults):
        with pytest.raises(EmbedderError, match="unreachable"):
            OllamaEmbedder(url, "m", timeout=0.1).embed_documents(["a"])
        assert faults.requests == embed_http.RETRIES + 1


@pytest.mark.parametrize(
    ("faults", "message"),
    [
        (Faults(non_json=True), "non-JSON"),
        (Faults(wrong_count=True), "returned 1 vectors for 2 texts"),
        (Faults(wrong_dim=True), "17-dim vector, expected 16"),
        (Faults(nan=True), "non-finite"),
    ],
)
def test_bad_answers_are_rejected(faults: Faults, message: str) -> None:
    """Every answer is validated before any vector is used."""
    for cls in (OllamaEmbedder, OpenAIEmbedder):
        with embedding_server(faults) as (url, _), pytest.raises(EmbedderError, match=message):
            cls(url, "m").embed_documents(["a b", "c d"])


def test_vectors_are_finite_floats() -> None:
    """What comes back is plain floats, ready for sqlite-vec."""
    with embedding_server() as (url, _):
        vec = OpenAIEmbedder(url, "m").embed_query("cart total")
        assert all(isinstance(x, float) and math.isfinite(x) for x in vec)


def test_openai_api_key_goes_to_openai_only() -> None:
    """OPENAI_API_KEY is never sent to the server --embedding-url names; GREPLOOM_EMBEDDING_API_KEY is."""
    from greploom.shell.config import GrepLoomConfig
    from greploom.shell.embedders import make_embedder

    with embedding_server() as (url, faults):
        for env in (
            {"OPENAI_API_KEY": "sk-openai", "GREPLOOM_EMBEDDING_URL": url},
            {"OPENAI_API_KEY": "sk-openai", "GREPLOOM_EMBEDDING_API_KEY": "sk-chosen"},
        ):
            config = GrepLoomConfig.from_env(env).with_overrides(embedding_url=url)
            embedder = make_embedder(config, "openai", "m")
            assert embedder is not None
            embedder.embed_query("cart total")
        recorded = make_embedder(GrepLoomConfig.from_env({"OPENAI_API_KEY": "sk-openai"}), "openai", "m", url)
        assert recorded is not None
        recorded.embed_query("cart total")  # the URL the index recorded: no OPENAI_API_KEY either
    assert faults.auth == [None, "Bearer sk-chosen", None]
    config = GrepLoomConfig.from_env({"OPENAI_API_KEY": "sk-openai"})
    assert config.embedding_key("https://api.openai.com/v1") == "sk-openai"
    assert config.embedding_key("http://api.openai.com/v1") is None  # never in the clear
    assert config.embedding_key("https://api.openai.com.example.net/v1") is None


def test_credentials_in_an_embedder_url_are_never_printed() -> None:
    """A URL's user, password and query string stay out of the embedder's messages."""
    with embedding_server() as (url, _):
        dead = url
    secret = dead.replace("http://", "http://user:hunter2@") + "?api-key=s3cret"
    for make in (
        lambda: OllamaEmbedder(secret, "m"),
        lambda: OllamaEmbedder(secret, "m", deadline_s=0.0),
    ):
        with pytest.raises(EmbedderError) as caught:
            make().embed_documents(["a"])
        message = str(caught.value)
        assert f"at {dead} " in message and "hunter2" not in message and "user" not in message
        assert "s3cret" not in message
