"""The bundled models: minilm-l6-code-v2 (all-MiniLM-L6-v2 tuned for code, ONNX) and cl100k_base, offline."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from greploom.core.errors import EmbedderError, GreploomError
from greploom.shell import assets
from greploom.shell.embed_local import LocalEmbedder
from greploom.shell.tokens import cl100k, count_tokens


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_known_vectors(embedder: LocalEmbedder) -> None:
    """Fixed strings give the vectors this model is known to give (first dims pinned)."""
    hello = embedder.embed_query("hello world")
    assert len(hello) == 384
    assert hello[:4] == pytest.approx([-0.0250, 0.0349, 0.0152, 0.0287], abs=2e-4)
    code = embedder.embed_query("def apply_discount(price: float, percent: float)")
    assert code[:4] == pytest.approx([-0.0525, 0.0380, -0.0566, -0.0390], abs=2e-4)
    assert math.isclose(math.sqrt(_cos(hello, hello)), 1.0, rel_tol=1e-5)


def test_similar_texts_are_close(embedder: LocalEmbedder) -> None:
    """A question is nearer the code that answers it than unrelated code."""
    query = embedder.embed_query("where is the retry backoff computed")
    right, wrong = embedder.embed_documents(
        [
            "Compute the retry backoff delay for an attempt number.",
            "Add value-added tax to an amount.",
        ]
    )
    assert _cos(query, right) > _cos(query, wrong) + 0.2


def test_batching_keeps_order_and_values(embedder: LocalEmbedder) -> None:
    """Length-sorted batches come back in input order, equal to one-by-one embedding."""
    texts = ["a much longer text " * 20, "short", "medium sized text here"]
    together = embedder.embed_documents(texts)
    for text, vec in zip(texts, together, strict=True):
        assert vec == pytest.approx(embedder.embed_query(text), abs=1e-5)
    assert embedder.embed_documents([]) == []


def test_model_dir_override_must_hold_the_files(tmp_path: Path) -> None:
    """GREPLOOM_LOCAL_MODEL_DIR without model.onnx is a clear error."""
    with pytest.raises(EmbedderError, match=r"has no model\.onnx"):
        LocalEmbedder(tmp_path).embed_query("x")


def test_model_dir_override_runs_another_copy(tmp_path: Path) -> None:
    """A directory with model.onnx and tokenizer.json is used, and its width learned."""
    shutil.copy(assets.DATA_DIR / assets.MODEL_FILE, tmp_path / "model.onnx")
    shutil.copy(assets.DATA_DIR / assets.TOKENIZER_FILE, tmp_path / "tokenizer.json")
    custom = LocalEmbedder(tmp_path)
    assert custom.embed_query("hello world")[:2] == pytest.approx([-0.0250, 0.0349], abs=2e-4)
    assert custom.identity.dimension == 384 and custom.identity.model.startswith("custom:")


def test_corrupt_bundled_file_is_refused(tmp_path: Path) -> None:
    """A file whose sha256 does not match is never used."""
    bad = tmp_path / "x.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(GreploomError, match="corrupt"):
        assets.verified(bad, assets.SHA256[assets.MODEL_FILE])


def test_token_counts_match_cl100k() -> None:
    """Counting uses cl100k_base exactly: known ids for known strings, offline."""
    assert cl100k().encode_ordinary("hello world") == [15339, 1917]
    assert count_tokens("def apply_discount(price):") == 5
    assert count_tokens("<|endoftext|>") > 1  # special-token text is counted as text
    assert count_tokens("") == 0
