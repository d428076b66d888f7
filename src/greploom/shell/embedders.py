"""Choosing and building an embedder from configuration, and checking it against an index.

The HTTP embedders load here only when one is built: httpx (and what it
brings: about 0.15 s) is no part of a query on a local or lexical index.
"""

from __future__ import annotations

from greploom.core.errors import EmbedderError, UsageError
from greploom.shell.config import DEFAULT_OLLAMA_URL, GrepLoomConfig
from greploom.shell.embed_local import LOCAL_MODEL, RETIRED_LOCAL_MODELS, LocalEmbedder
from greploom.shell.ports import Embedder, EmbedderIdentity

DEFAULT_MODELS = {
    "local": LOCAL_MODEL,
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
}


def make_embedder(
    config: GrepLoomConfig,
    provider: str,
    model: str | None,
    recorded_url: str | None = None,
    *,
    dimension: int = 0,
    deadline_s: float | None = None,
    one_shot: bool = False,
) -> Embedder | None:
    """The embedder for ``provider`` (None for ``none``: lexical-only).

    ``one_shot``: the process embeds one query and ends (a cold CLI query),
    so the local model is loaded for that (see :class:`LocalEmbedder`).

    ``recorded_url`` is the server URL the index was built with, used when the
    configuration names none. For HTTP embedders, ``dimension`` is the width
    their answers must have (the index's; 0 learns it from the first answer)
    and ``deadline_s`` bounds each call.
    """
    if provider == "none":
        return None
    if provider == "local":
        if model in RETIRED_LOCAL_MODELS:
            raise EmbedderError(
                f"this index was embedded with local:{model}, which this greploom no longer ships "
                f"(it ships local:{LOCAL_MODEL}); re-index with `greploom index PATH --db ... --force`"
            )
        if model not in (None, LOCAL_MODEL) and not (model or "").startswith(
            "custom:"
        ):  # custom: a model dir
            raise UsageError(
                f"the local provider runs {LOCAL_MODEL} only; set GREPLOOM_LOCAL_MODEL_DIR "
                f"for another ONNX model, or use --provider ollama/openai for {model!r}"
            )
        return LocalEmbedder(config.local_model_dir, optimize=not one_shot)
    name = model or DEFAULT_MODELS[provider]
    if provider == "ollama":
        from greploom.shell.embed_http import OllamaEmbedder

        ollama_url = config.ollama_url or recorded_url or DEFAULT_OLLAMA_URL
        return OllamaEmbedder(ollama_url, name, dimension=dimension, deadline_s=deadline_s)
    if provider == "openai":
        url = config.embedding_url or recorded_url
        if not url:
            raise UsageError(
                "the openai provider needs --embedding-url (or GREPLOOM_EMBEDDING_URL), "
                "e.g. http://127.0.0.1:8000 for a local vLLM or TEI server"
            )
        from greploom.shell.embed_http import OpenAIEmbedder

        key = config.embedding_key(url)  # OPENAI_API_KEY goes to OpenAI only
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return OpenAIEmbedder(url, name, headers=headers, dimension=dimension, deadline_s=deadline_s)
    raise UsageError(f"unknown embedding provider {provider!r}")


URL_PROVIDERS = (("embedding_url", "openai", "--embedding-url"), ("ollama_url", "ollama", "--ollama-url"))


def provider_for_urls(config: GrepLoomConfig, provider: str, *, chosen: bool) -> str:
    """The provider, checked against the server URLs the configuration names.

    A URL for a provider that will not be used would be ignored silently, so:
    when nobody chose the provider (``chosen`` False: no flag, no environment,
    no index), one URL names it; otherwise a URL for another provider is an
    error that says which flag to add.
    """
    given = [(flag, name) for field, name, flag in URL_PROVIDERS if getattr(config, field)]
    if not given or any(name == provider for _, name in given):
        return provider
    if not chosen and len(given) == 1:
        return given[0][1]
    flags = " and ".join(flag for flag, _ in given)
    wanted = " or ".join(f"--provider {name}" for _, name in given)
    raise UsageError(
        f"{flags} (or GREPLOOM_EMBEDDING_URL / GREPLOOM_OLLAMA_URL) given, but the embedder is "
        f"{provider}; add {wanted}, or drop the URL"
    )


def query_embedder(
    config: GrepLoomConfig,
    recorded: EmbedderIdentity | None,
    recorded_url: str | None = None,
    *,
    one_shot: bool = False,
) -> Embedder | None:
    """The embedder a query must use: the index's, unless the config names another (an error).

    ``one_shot``: for a process that answers one query (:func:`make_embedder`).
    """
    if recorded is None:
        if config.provider not in (None, "none"):
            raise EmbedderError(
                "this index was built without vectors (provider none); re-index with "
                f"--provider {config.provider} --force to search with {config.provider}"
            )
        return None
    wanted_provider = config.provider or recorded.provider
    wanted_model = config.model or (recorded.model if wanted_provider == recorded.provider else None)
    if wanted_provider == "none":
        return None
    if wanted_provider != recorded.provider or (wanted_model or "") != recorded.model:
        named = f"{wanted_provider}:{wanted_model or DEFAULT_MODELS.get(wanted_provider, '?')}"
        raise EmbedderError(
            f"this index was embedded with {recorded.describe()}, not {named}; query without "
            f"--provider/--model, or re-index with `greploom index ... --provider {wanted_provider} --force`"
        )
    embedder = make_embedder(
        config,
        recorded.provider,
        recorded.model,
        recorded_url,
        dimension=recorded.dimension,
        deadline_s=config.query_timeout,
        one_shot=one_shot,
    )
    if embedder is not None and embedder.identity.describe() != recorded.describe():
        found = embedder.identity.describe()
        embedder.close()
        raise EmbedderError(
            f"this index was embedded with {recorded.describe()}, but the configured model is {found} "
            "(GREPLOOM_LOCAL_MODEL_DIR, or the settings in its greploom.json?); use the index's, "
            "or re-index with --force"
        )
    return embedder
