"""The bundled models: minilm-l6-code-v2 (all-MiniLM-L6-v2 tuned for code, ONNX) and cl100k_base, offline."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st
from tiktoken.load import load_tiktoken_bpe

from greploom.core.errors import EmbedderError, GreploomError, UsageError
from greploom.shell import assets
from greploom.shell.embed_local import LOCAL_MODEL, LocalEmbedder, local_model_name
from greploom.shell.model_settings import ModelSettings, read_model_settings
from greploom.shell.ports import EmbedderIdentity
from greploom.shell.tokens import cl100k, count_tokens, mergeable_ranks, prepared_form, prepared_ranks
from tests.cli_helpers import cli

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


# Bring-your-own models: the settings a model directory holds (greploom.shell.model_settings).


def _model_dir(
    root: Path,
    settings: dict[str, Any] | str | None = None,
    name: str = "byo",
    extra: dict[str, Any] | None = None,
) -> Path:
    """A model directory with the bundled model's files (linked, not copied), a greploom.json and ``extra``.

    ``extra`` maps paths inside the directory to JSON values to write there.
    """
    model_dir = root / name
    model_dir.mkdir(parents=True, exist_ok=True)
    for source, target in ((assets.MODEL_FILE, "model.onnx"), (assets.TOKENIZER_FILE, "tokenizer.json")):
        if not (model_dir / target).exists():
            os.symlink(assets.DATA_DIR / source, model_dir / target)
    if settings is not None:
        text = settings if isinstance(settings, str) else json.dumps(settings)
        (model_dir / "greploom.json").write_text(text, encoding="utf-8")
    for relative, value in (extra or {}).items():
        (model_dir / relative).parent.mkdir(parents=True, exist_ok=True)
        (model_dir / relative).write_text(json.dumps(value), encoding="utf-8")
    return model_dir


def _same(a: list[list[float]], b: list[list[float]]) -> bool:
    return len(a) == len(b) and all(x == pytest.approx(y, abs=1e-6) for x, y in zip(a, b, strict=True))


def test_the_bundled_identity_is_unchanged(embedder: LocalEmbedder) -> None:
    """The bundled model's identity is the one every existing index records, byte for byte."""
    assert local_model_name(None) == LOCAL_MODEL == "minilm-l6-code-v2"
    assert embedder.identity == EmbedderIdentity("local", "minilm-l6-code-v2", 384, "", "")
    assert embedder.identity.describe() == "local:minilm-l6-code-v2"
    assert embedder.identity.space() == '["local", "minilm-l6-code-v2", "", ""]'
    assert embedder.settings == ModelSettings("mean", "", "", 256)


def test_a_model_dir_without_settings_keeps_its_identity(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """No settings file, or one that states the defaults: the name and vectors of before."""
    plain = LocalEmbedder(_model_dir(tmp_path))
    stated = {"pooling": "mean", "max_length": 256, "query_prefix": "", "passage_prefix": ""}
    explicit = LocalEmbedder(_model_dir(tmp_path, stated, name="stated"))
    assert plain.identity == EmbedderIdentity("local", "custom:byo", 0)
    assert explicit.identity == EmbedderIdentity("local", "custom:stated", 0)
    assert local_model_name(tmp_path / "byo") == "custom:byo"
    texts = ["hello world", "def apply_discount(price, percent)"]
    assert _same(plain.embed_documents(texts), embedder.embed_documents(texts))
    assert _same(explicit.embed_documents(texts), embedder.embed_documents(texts))
    assert plain.identity.dimension == 384 and plain.identity.query_prefix == ""


def test_cls_pooling_gives_other_vectors(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """pooling "cls" takes the first token's state: unit vectors unlike the mean-pooled ones."""
    cls = LocalEmbedder(_model_dir(tmp_path, {"pooling": "cls"}))
    text = "def apply_discount(price, percent)"
    pooled = cls.embed_query(text)
    assert math.isclose(_cos(pooled, pooled), 1.0, rel_tol=1e-5)
    assert _cos(pooled, embedder.embed_query(text)) < 0.9
    assert cls.embed_documents([text])[0] == pytest.approx(pooled, abs=1e-6)
    assert cls.identity.describe() == "local:custom:byo[pooling=cls]"


def test_prefixes_change_only_their_side(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """The query prefix goes before queries only, the passage prefix before indexed texts only."""
    e5 = LocalEmbedder(_model_dir(tmp_path, {"query_prefix": "query: ", "passage_prefix": "passage: "}))
    text = "retry backoff"
    assert e5.embed_query(text) == pytest.approx(embedder.embed_query("query: " + text), abs=1e-6)
    assert e5.embed_query(text) != pytest.approx(embedder.embed_query(text), abs=1e-3)
    assert _same(e5.embed_documents([text]), embedder.embed_documents(["passage: " + text]))
    assert e5.identity.query_prefix == "query: " and e5.identity.document_prefix == "passage: "
    assert e5.identity.model == 'custom:byo[query_prefix="query: ",passage_prefix="passage: "]'
    query_only = LocalEmbedder(_model_dir(tmp_path, {"query_prefix": "query: "}, name="q"))
    assert query_only.embed_query(text) == pytest.approx(e5.embed_query(text), abs=1e-6)
    assert _same(query_only.embed_documents([text, "x"]), embedder.embed_documents([text, "x"]))


def test_max_length_reaches_further(tmp_path: Path) -> None:
    """A text cut at 128 word pieces loses what a cut at 512 keeps (the model has 512 positions)."""
    short = LocalEmbedder(_model_dir(tmp_path, {"max_length": 128}, name="short"))
    long = LocalEmbedder(_model_dir(tmp_path, {"max_length": 512}, name="long"))
    base = " ".join(["alpha"] * 200)  # 202 word pieces with [CLS] and [SEP]
    ending = base + " retry backoff"
    assert short.embed_query(base) == pytest.approx(short.embed_query(ending), abs=1e-6)
    assert long.embed_query(base) != pytest.approx(long.embed_query(ending), abs=1e-4)
    assert long.identity.model == "custom:long[max_length=512]"
    assert short.identity.model == "custom:short[max_length=128]"


def test_max_length_beyond_the_model_is_refused(tmp_path: Path) -> None:
    """More word pieces than the model takes: refused when built (a file states the bound) or loaded."""
    stated = _model_dir(
        tmp_path, {"max_length": 1024}, name="stated", extra={"config.json": {"max_position_embeddings": 512}}
    )
    with pytest.raises(UsageError) as built:
        LocalEmbedder(stated)
    assert str(built.value) == (
        f'{stated / "greploom.json"}: "max_length" is 1024, more than the model takes '
        f"(max_position_embeddings in {stated / 'config.json'} is 512); use 8 to 512"
    )
    tokenizer_bound = _model_dir(
        tmp_path, {"max_length": 512}, name="tok", extra={"tokenizer_config.json": {"model_max_length": 384}}
    )
    with pytest.raises(UsageError, match=r"model_max_length in .*tokenizer_config\.json is 384"):
        LocalEmbedder(tokenizer_bound)
    no_limit = {"model_max_length": int(1e30)}  # how tokenizer_config.json says "no limit"
    fine = _model_dir(tmp_path, {"max_length": 512}, name="fine", extra={"tokenizer_config.json": no_limit})
    assert LocalEmbedder(fine).settings.max_length == 512
    unstated = LocalEmbedder(_model_dir(tmp_path, {"max_length": 600}, name="unstated"))
    with pytest.raises(
        UsageError, match=r'unstated/greploom\.json: "max_length" is 600, more than the model'
    ) as run:
        unstated.embed_query("x")
    assert "\n" not in str(run.value)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"pooling": "max"}, r'greploom\.json: "pooling" must be "mean" or "cls", not "max" \(a string\)$'),
        ({"pooling": 1}, r'greploom\.json: "pooling" must be "mean" or "cls", not 1$'),
        (
            {"max_length": 4},
            r'greploom\.json: "max_length" must be a whole number of word pieces, at least 8, not 4$',
        ),
        ({"max_length": "512"}, r'"max_length" must be .*, not "512" \(a string\)$'),
        ({"max_length": 512.0}, r'"max_length" must be .*, not 512\.0$'),
        ({"max_length": True}, r'"max_length" must be .*, not true \(a boolean\)$'),
        ({"query_prefix": None}, r'greploom\.json: "query_prefix" must be a string, not null$'),
        ({"passage_prefix": ["passage: "]}, r'"passage_prefix" must be a string, not an array$'),
        ({"max_len": 512}, r'greploom\.json: unknown key "max_len"; the keys are pooling, query_prefix, '),
        ("{pooling: cls}", r"greploom\.json is not valid JSON: Expecting property name"),
        ('["cls"]', r"greploom\.json must hold a JSON object, not an array$"),
    ],
)
def test_bad_settings_are_one_line_errors(
    tmp_path: Path, settings: dict[str, Any] | str, message: str
) -> None:
    """Each bad setting names the file and the key, on one line, when the embedder is built."""
    model_dir = _model_dir(tmp_path, settings)
    with pytest.raises(UsageError, match=message) as info:
        LocalEmbedder(model_dir)
    assert str(info.value).startswith(str(model_dir / "greploom.json")) and "\n" not in str(info.value)
    # What only compares names (is the index up to date?) does not fail on it.
    assert local_model_name(model_dir) == "custom:byo[unreadable settings]"


def test_an_unreadable_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    """A greploom.json that is a folder, or not UTF-8, is named with the reason."""
    folder = _model_dir(tmp_path, name="folder")
    (folder / "greploom.json").mkdir()
    with pytest.raises(UsageError, match=r"^cannot read .*folder/greploom\.json: Is a directory$"):
        LocalEmbedder(folder)
    binary = _model_dir(tmp_path, name="binary")
    (binary / "greploom.json").write_bytes(b'{"pooling": "\xff"}')
    with pytest.raises(UsageError, match=r"^cannot read .*binary/greploom\.json: .*utf-8"):
        LocalEmbedder(binary)


def test_sentence_transformers_files_are_honoured(tmp_path: Path) -> None:
    """An export's pooling, max_seq_length and prompts are used; greploom.json wins key by key."""
    export = {
        "1_Pooling/config.json": {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False},
        "sentence_bert_config.json": {"max_seq_length": 384, "do_lower_case": False},
        "config_sentence_transformers.json": {"prompts": {"query": "query: ", "document": "passage: "}},
        "config.json": {"max_position_embeddings": 512},
    }
    st_dir = _model_dir(tmp_path, name="st", extra=export)
    assert read_model_settings(st_dir) == ModelSettings("cls", "query: ", "passage: ", 384)
    assert local_model_name(st_dir) == (
        'custom:st[pooling=cls,max_length=384,query_prefix="query: ",passage_prefix="passage: "]'
    )
    own = {"pooling": "mean", "max_length": 128, "query_prefix": ""}
    assert read_model_settings(_model_dir(tmp_path, own, name="st")) == ModelSettings(
        "mean", "", "passage: ", 128
    )
    moved = {
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "2_Pool", "type": "sentence_transformers.models.Pooling"},
        ],
        "2_Pool/config.json": {"pooling_mode_cls_token": True},
    }
    assert read_model_settings(_model_dir(tmp_path, name="moved", extra=moved)).pooling == "cls"
    max_pooled = _model_dir(
        tmp_path, name="max", extra={"1_Pooling/config.json": {"pooling_mode_max_tokens": True}}
    )
    with pytest.raises(UsageError, match=r"1_Pooling/config\.json: pooling_mode_max_tokens is not a pooling"):
        read_model_settings(max_pooled)
    assert read_model_settings(_model_dir(tmp_path, {"pooling": "cls"}, name="max")).pooling == "cls"
    too_long = _model_dir(
        tmp_path, name="long", extra={**export, "sentence_bert_config.json": {"max_seq_length": 1024}}
    )
    with pytest.raises(UsageError, match=r'sentence_bert_config\.json: "max_seq_length" is 1024, more than'):
        read_model_settings(too_long)


def test_the_index_records_the_settings_and_refuses_others(pyshop_cpg: Path, tmp_path: Path) -> None:
    """`greploom index` records the settings; a query or update with other ones is refused in one line."""
    from greploom.shell.store import IndexStore
    from tests.cli_helpers import said

    model_dir = _model_dir(tmp_path, {"pooling": "cls", "query_prefix": "query: "}, name="bge-like")
    env = {"GREPLOOM_LOCAL_MODEL_DIR": str(model_dir)}
    db = tmp_path / "i.db"
    built = 'local:custom:bge-like[pooling=cls,query_prefix="query: "]'
    run = cli("index", pyshop_cpg, "--db", db, env=env)
    assert run.code == 0, run.err
    assert built in run.out
    again = cli("index", pyshop_cpg, "--db", db, env=env)  # the same settings: nothing to do
    assert again.code == 0 and "0 embedded, 19 unchanged" in again.out, again.out
    store = IndexStore.open_existing(db, readonly=True)
    try:
        meta = store.meta()
    finally:
        store.close()
    assert meta["embedder_query_prefix"] == "query: " and meta["embedder_document_prefix"] == ""
    assert cli("status", "--db", db, "--format", "json", env=env).json()["embedder"] == built
    asked = cli("query", "retry backoff", "--db", db, "--format", "json", env=env)
    assert asked.code == 0, asked.err
    assert asked.json()["metadata"]["search_mode"] == "hybrid"
    assert asked.json()["metadata"]["embedder"] == built

    (model_dir / "greploom.json").write_text('{"query_prefix": "query: "}', encoding="utf-8")
    refused = cli("query", "retry backoff", "--db", db, env=env)
    assert refused.code == 5 and len(said(refused.err)) == 1
    assert built in refused.err and 'local:custom:bge-like[query_prefix="query: "]' in refused.err
    update = cli("index", pyshop_cpg, "--db", db, env=env)
    assert update.code == 5 and len(said(update.err)) == 1 and "--force" in update.err
    forced = cli("index", pyshop_cpg, "--db", db, "--force", env=env)
    assert forced.code == 0 and 'local:custom:bge-like[query_prefix="query: "]' in forced.out

    (model_dir / "greploom.json").write_text('{"pooling": "max"}', encoding="utf-8")
    for args in (("query", "retry backoff", "--db", db), ("index", pyshop_cpg, "--db", db)):
        bad = cli(*args, env=env)
        assert bad.code == 2 and said(bad.err) == [
            f'greploom: error: {model_dir / "greploom.json"}: "pooling" must be "mean" or "cls", '
            'not "max" (a string)'
        ], bad.err
