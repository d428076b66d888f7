"""The bundled models: minilm-l6-code-v2 (all-MiniLM-L6-v2 tuned for code, ONNX) and cl100k_base, offline."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st
from tiktoken.load import load_tiktoken_bpe

from greploom.core.errors import EmbedderError, GreploomError
from greploom.shell import assets
from greploom.shell.embed_local import LocalEmbedder
from greploom.shell.tokens import cl100k, count_tokens, mergeable_ranks, prepared_form, prepared_ranks

ROOT = Path(__file__).resolve().parents[2]


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


def test_preloaded_model_gives_the_same_vectors(embedder: LocalEmbedder) -> None:
    """A model loaded in the background (as a query does) embeds exactly as one loaded on demand."""
    early = LocalEmbedder()
    try:
        early.preload()
        early.preload()  # a no-op once started
        assert early.embed_query("where is the retry backoff computed") == embedder.embed_query(
            "where is the retry backoff computed"
        )
    finally:
        early.close()


def test_a_failed_preload_is_reported_by_the_embed(tmp_path: Path) -> None:
    """A model that cannot load fails quietly in the background, then clearly where it is needed."""
    broken = LocalEmbedder(tmp_path)
    broken.preload()
    with pytest.raises(EmbedderError, match=r"has no model\.onnx"):
        broken.embed_query("x")
    broken.close()


def test_bundled_bytes_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The token table's bytes are refused when missing or when their sha256 does not match."""
    monkeypatch.setattr(assets, "DATA_DIR", tmp_path)
    with pytest.raises(GreploomError, match="missing"):
        assets.asset_bytes(assets.CL100K_FILE)
    (tmp_path / assets.CL100K_FILE).write_bytes(b"aGVsbG8= 0\n")
    with pytest.raises(GreploomError, match="corrupt"):
        assets.asset_bytes(assets.CL100K_FILE)


def test_token_table_is_what_tiktoken_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prepared table, and the fast reading of the ranks file, hold tiktoken's loader's ranks."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the file itself, write no cache
    path = assets.DATA_DIR / assets.CL100K_FILE
    expected = load_tiktoken_bpe(str(path), expected_hash=assets.SHA256[assets.CL100K_FILE])
    assert len(expected) == 100_256
    for ranks in (
        mergeable_ranks(assets.asset_bytes(assets.CL100K_FILE)),
        prepared_ranks(assets.asset_bytes(assets.CL100K_RANKS_FILE)),
        prepared_ranks(prepared_form(expected)),  # what tools/prepare_token_table.py writes
    ):
        assert ranks == expected
        assert list(ranks.items()) == list(expected.items())  # in the same order too
    assert cl100k().max_token_value == 100_276


@pytest.fixture(scope="module")
def tiktoken_cl100k() -> tiktoken.Encoding:
    """cl100k_base as tiktoken defines it (pattern, special tokens, expected hash), offline.

    tiktoken_ext.openai_public would download the ranks file; its loader is
    pointed at the bundled copy instead (tiktoken checks the hash it expects).
    """
    from tiktoken_ext import openai_public

    path = str(assets.DATA_DIR / assets.CL100K_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")
        patch.setattr(
            openai_public,
            "load_tiktoken_bpe",
            lambda _url, expected_hash: load_tiktoken_bpe(path, expected_hash=expected_hash),
        )
        return tiktoken.Encoding(**openai_public.cl100k_base())


def test_counts_equal_tiktokens_on_real_text(tiktoken_cl100k: tiktoken.Encoding) -> None:
    """Every source file of greploom and its samples, whole and line by line, counts as tiktoken counts it."""
    files = sorted((ROOT / "src" / "greploom").rglob("*.py")) + sorted(
        p for p in (ROOT / "tests" / "samples").rglob("*") if p.is_file() and p.suffix != ".pyc"
    )
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert count_tokens(text) == len(tiktoken_cl100k.encode_ordinary(text)), path
        for line in text.splitlines()[:40]:
            assert count_tokens(line) == len(tiktoken_cl100k.encode_ordinary(line)), (path, line)
    for special in ("<|endoftext|>", "<|fim_prefix|>x<|endofprompt|>", "lone \ud800 surrogate"):
        assert count_tokens(special) == len(tiktoken_cl100k.encode_ordinary(special))


@given(st.text(max_size=300) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_counts_equal_tiktokens(tiktoken_cl100k: tiktoken.Encoding, text: str) -> None:
    """Any text (control characters and any byte as latin-1 included) counts as tiktoken's cl100k_base."""
    assert cl100k().encode_ordinary(text) == tiktoken_cl100k.encode_ordinary(text)
    assert count_tokens(text) == len(tiktoken_cl100k.encode_ordinary(text))
