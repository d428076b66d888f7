"""The default embedder: minilm-l6-code-v2 (all-MiniLM-L6-v2 tuned for code, ONNX) in-process, offline.

The model is all-MiniLM-L6-v2 with its encoder fine-tuned on docstring /
undocumented-code pairs from 66 packages, each batch drawn from one package
so that the other pairs are near misses (``tools/finetune/``): on the
quality harness it lifts vector search from 0.724 (the base model) to 0.818
NDCG@10.

onnxruntime runs the bundled model, tokenizers runs its WordPiece tokenizer;
no torch, no download. Texts are sorted by length before batching (less
padding), truncated to 256 word pieces as sentence-transformers does for this
model, mean-pooled over the attention mask and L2-normalised.

``GREPLOOM_LOCAL_MODEL_DIR`` may point at a directory holding ``model.onnx``
and ``tokenizer.json`` of a compatible BERT-style model to use instead; those
files are the user's and are not hash-checked. How it pools, which prefixes
its texts get and how many word pieces it takes are read from that directory
(``greploom.shell.model_settings``: ``greploom.json``, else the
sentence-transformers files) and are part of the model name an index records.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import attrs

from greploom.core.errors import EmbedderError, GreploomError, UsageError
from greploom.shell.assets import MODEL_FILE, TOKENIZER_FILE, asset
from greploom.shell.model_settings import MIN_MAX_LENGTH, SETTINGS_FILE, ModelSettings, read_model_settings
from greploom.shell.ports import EmbedderIdentity

LOCAL_MODEL = "minilm-l6-code-v2"
# Models earlier greploom versions bundled: an index embedded with one is
# re-embedded with ``index --force``, and a query on it says so.
RETIRED_LOCAL_MODELS = frozenset({"all-MiniLM-L6-v2-int8", "minilm-l6-code-v1"})
LOCAL_DIMENSION = 384
# A batch is padded to its longest text, and attention memory grows with
# batch x length^2: batches are capped by padded word pieces, not by count.
# Measured on requests' 302 summaries (2 cores): 32 per batch 2.7 s / 620 MiB
# peak, 8 per batch 2.3 s / 376 MiB; the cap below keeps long texts at ~8 a
# batch while short ones still go 64 at a time.
MAX_BATCH_PIECES = 2048
MAX_BATCH_TEXTS = 64


def local_model_name(model_dir: Path | None, settings: ModelSettings | None = None) -> str:
    """The model name an index records for the local embedder: the bundled one, or a model dir's.

    A model dir's is ``custom:NAME`` and the settings that differ from the
    defaults (:meth:`ModelSettings.tag`), read from the directory unless
    given. Settings that cannot be read give a name no index records (the
    embedder, when built, says what is wrong): the caller that only compares
    names must not fail for a model it may not use.
    """
    if model_dir is None:
        return LOCAL_MODEL
    if settings is None:
        try:
            settings = read_model_settings(model_dir)
        except GreploomError:
            return f"custom:{model_dir.name}[unreadable settings]"
    return f"custom:{model_dir.name}{settings.tag()}"


class LocalEmbedder:
    """The bundled model (or a model dir's) on onnxruntime; thread-safe, loaded lazily on first use.

    A model dir's settings are read when it is built (a bad one is a
    :class:`UsageError` then); the bundled model has the defaults.
    """

    def __init__(self, model_dir: Path | None = None, threads: int = 0, *, optimize: bool = True) -> None:
        """``optimize``: let onnxruntime optimise the graph when it loads it.

        Worth it for many texts (an index run, a server), not for one: on the
        bundled model (2 cores) optimising takes 0.15 s of a 0.19 s load and
        then saves 0.02 s per query, so a process that embeds one query and
        ends (a cold CLI query) loads it unoptimised: a cold question on
        requests 0.63 -> 0.51 s (median of 9). The vectors agree to 1.4e-7
        (cosine 0.99999994).
        """
        self._model_dir = model_dir
        self._threads = threads
        self._optimize = optimize
        self._lock = threading.Lock()
        self._preload_lock = threading.Lock()
        self._preload_started = False
        self._preloading: threading.Thread | None = None
        self._session: Any = None
        self._tokenizer: Any = None
        self._settings = ModelSettings() if model_dir is None else read_model_settings(model_dir)
        dimension = LOCAL_DIMENSION if model_dir is None else 0
        self._identity = EmbedderIdentity(
            "local",
            local_model_name(model_dir, self._settings),
            dimension,
            query_prefix=self._settings.query_prefix,
            document_prefix=self._settings.passage_prefix,
        )

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider ``local``; dimension known after loading a custom model."""
        return self._identity

    @property
    def settings(self) -> ModelSettings:
        """Pooling, prefixes and maximum length (the defaults for the bundled model)."""
        return self._settings

    def preload(self) -> None:
        """Start loading the model in a background thread; the first embed waits for it.

        onnxruntime builds its session (about 0.2 s for the bundled model)
        without holding the GIL, so a query searches its words and builds its
        token table meanwhile. What holds the GIL (importing onnxruntime and
        numpy, hashing the files in 1 MiB reads) is done here first, before the
        thread starts: run beside the caller's work, each of its many GIL
        hand-offs would wait out the caller's switch interval, and it took
        three times as long. A load that fails is tried again, and reported,
        by the embed that needs it. A no-op once loaded or started.
        """
        with self._preload_lock:
            if self._session is not None or self._preload_started:
                return
            self._preload_started = True
            try:
                import onnxruntime  # noqa: F401  (imported for the thread)
                import tokenizers  # noqa: F401

                self._files()
            except Exception:
                return  # the embed that needs the model raises it
            self._preloading = threading.Thread(target=self._load_quietly, name="greploom-model-load")
            self._preloading.start()

    def _load_quietly(self) -> None:
        # The embed that needs the model loads it again and raises what went wrong.
        with contextlib.suppress(Exception):
            self._load()

    def _files(self) -> tuple[Path, Path]:
        """The model and tokenizer files: the bundled ones verified (once a process), or the model dir's."""
        if self._model_dir is None:
            return asset(MODEL_FILE), asset(TOKENIZER_FILE)
        model_path = self._model_dir / "model.onnx"
        tokenizer_path = self._model_dir / "tokenizer.json"
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise EmbedderError(f"GREPLOOM_LOCAL_MODEL_DIR has no {path.name}: {self._model_dir}")
        return model_path, tokenizer_path

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model_path, tokenizer_path = self._files()
            options = ort.SessionOptions()
            if self._threads:
                options.intra_op_num_threads = self._threads
            options.log_severity_level = 3
            if not self._optimize:
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            try:
                session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
                tokenizer = Tokenizer.from_file(str(tokenizer_path))
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                raise EmbedderError(f"cannot load the local embedding model: {exc}") from exc
            tokenizer.enable_truncation(max_length=self._settings.max_length)
            tokenizer.no_padding()
            self._inputs = {i.name for i in session.get_inputs()}
            self._quiet = ort.RunOptions()
            self._quiet.log_severity_level = 4  # a failed run is raised, not also logged to stderr
            if self._settings.max_length_from and not self._settings.bound_checked:
                self._try_length(session)
            self._tokenizer = tokenizer
            self._session = session

    def _try_length(self, session: Any) -> None:
        """Run one text of the set maximum length: a model that cannot take it is refused now, clearly.

        Only for a length a settings file set where no file says the model's
        bound (:mod:`greploom.shell.model_settings`): a model taking fewer
        word pieces fails on the first long text otherwise, deep in an index run.
        """
        import numpy as np

        length = self._settings.max_length
        ids = np.zeros((1, length), dtype=np.int64)
        try:
            session.run(None, self._feeds(ids, np.ones_like(ids)), self._quiet)
        except Exception as exc:  # onnxruntime raises its own types
            short = ids[:, :MIN_MAX_LENGTH]
            try:
                session.run(None, self._feeds(short, np.ones_like(short)), self._quiet)
            except Exception:  # not the length: the model does not run at all
                raise EmbedderError(f"cannot run the local embedding model: {_reason(exc)}") from None
            raise UsageError(
                f"{self._settings.max_length_from} is {length}, more than the model takes (it fails "
                f"on a text that long: {_reason(exc)}); lower it (BERT-style models take at most 512)"
            ) from None

    def _feeds(self, ids: Any, mask: Any) -> dict[str, Any]:
        import numpy as np

        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def _run(self, encodings: Sequence[Any]) -> list[list[float]]:
        import numpy as np  # here, not at the top: a query that computes no vector never loads numpy

        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        try:
            hidden = self._session.run(None, self._feeds(ids, mask), self._quiet)[0]
        except Exception as exc:  # onnxruntime raises its own types
            hint = (
                f"; if it takes fewer word pieces, set max_length in {self._model_dir / SETTINGS_FILE}"
                if self._model_dir is not None
                else ""
            )
            raise EmbedderError(
                f"the local embedding model failed on texts of {width} word pieces: {_reason(exc)}{hint}"
            ) from None
        if self._settings.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        # numpy's stubs type tolist() differently across releases; the value is rows of floats.
        return cast("list[list[float]]", unit.tolist())

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for ``texts`` in their order (the passage prefix put before each)."""
        prefix = self._settings.passage_prefix
        return self._embed([prefix + t for t in texts] if prefix else texts)

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for ``texts`` as they are, in their order; batches are formed by length."""
        if not texts:
            return []
        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        chunk: list[int] = []
        for position, i in enumerate(order):
            chunk.append(i)
            last = position == len(order) - 1
            following = 0 if last else len(encodings[order[position + 1]].ids)
            full = len(chunk) >= MAX_BATCH_TEXTS or (len(chunk) + 1) * following > MAX_BATCH_PIECES
            if last or full:
                vectors = self._run([encodings[j] for j in chunk])
                for j, vec in zip(chunk, vectors, strict=True):
                    out[j] = vec
                chunk = []
        if self._identity.dimension == 0:
            self._identity = attrs.evolve(self._identity, dimension=len(out[0]))
        return out

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query (the query prefix put before it)."""
        return self._embed([self._settings.query_prefix + text])[0]

    def close(self) -> None:
        """Wait for a background load still running; nothing else to release beyond memory."""
        with self._preload_lock:
            thread = self._preloading
        if thread is not None and thread is not threading.current_thread():
            thread.join()


def _reason(exc: Exception) -> str:
    """onnxruntime's message on one line, its middle cut out when long: the node that failed, and why."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 240 else f"{text[:120]} ... {text[-110:]}"
