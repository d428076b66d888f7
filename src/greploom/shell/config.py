"""Configuration: defaults, then ``GREPLOOM_*`` environment variables, then flags.

``GrepLoomConfig.from_env()`` reads the environment once; the CLI and the MCP
server layer their flags and per-call arguments on top with
:meth:`GrepLoomConfig.with_overrides`. ``provider`` and ``model`` stay None
unless someone named them: a query then uses the embedder the index records.

API keys: ``GREPLOOM_EMBEDDING_API_KEY`` and ``GREPLOOM_CHAT_API_KEY`` go to
whatever server the embedder or chat model is configured at, as the user
chose; ``OPENAI_API_KEY``, the key of an OpenAI account, only ever goes to
OpenAI itself (a URL whose host is :data:`OPENAI_HOST`), never to a server
some ``--embedding-url`` / ``--chat-url`` names. Which key a server gets is
decided where its URL is known (:meth:`GrepLoomConfig.embedding_key`,
:meth:`GrepLoomConfig.chat_key`): a flag or the index may name the URL after
the environment was read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from greploom.core.errors import UsageError
from greploom.core.summary import Tier

DEFAULT_DB = Path(".greploom") / "index.db"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
PROVIDERS = ("local", "ollama", "openai", "none")
CHAT_PROVIDERS = ("ollama", "openai")  # `greploom ask`'s chat model (greploom.shell.chat_http)
MAX_TOP_K = 100
RANKINGS = ("signals", "plain")
CONTEXTS = ("fixed", "adaptive")
MAX_DEPTH = 4
# Deadlines. A query waits this long for the embedder before answering lexically
# (a cold Ollama model can take longer: the next query then finds it warm).
QUERY_TIMEOUT_S = 5.0
# An index run stops embedding after this long; its finished batches are kept, so
# the next run goes on from there. One call to the embedder (a batch) gets at most
# BATCH_TIMEOUT_S of it, so a hung server is noticed long before the run's end.
INDEX_TIMEOUT_S = 6 * 3600.0
BATCH_TIMEOUT_S = 600.0
OPENAI_HOST = "api.openai.com"  # the one host OPENAI_API_KEY is sent to


def is_openai_url(url: str | None) -> bool:
    """Whether ``url`` is OpenAI's own API (https, host :data:`OPENAI_HOST`), as the HTTP client
    that connects to it parses it."""
    if not url:
        return False
    import httpx  # here, not at the top: only the HTTP clients ask, and they import it anyway

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return False
    return parsed.scheme == "https" and parsed.host.rstrip(".") == OPENAI_HOST


@attrs.frozen
class GrepLoomConfig:
    """Everything a use case needs to know about where and how to work."""

    db_path: Path = DEFAULT_DB
    provider: str | None = None  # None: the index's embedder (queries) or "local" (new index)
    model: str | None = None
    ollama_url: str | None = None  # None: the index's recorded URL, else DEFAULT_OLLAMA_URL
    embedding_url: str | None = None  # OpenAI-compatible server base URL
    api_key: str | None = attrs.field(default=None, repr=False)  # GREPLOOM_EMBEDDING_API_KEY
    # OPENAI_API_KEY: for OpenAI's own API only (embedding_key, chat_key).
    openai_api_key: str | None = attrs.field(default=None, repr=False)
    tier: Tier = Tier.ENHANCED
    budget: int = 8192
    # Ten hits, the later ones brief (greploom.core.render.BRIEF_FROM): the answering
    # code within 2,000 tokens for 0.938 of the quality harness's queries, 0.903 with five.
    top_k: int = 10
    depth: int = 1
    local_model_dir: Path | None = None
    source_root: Path | None = None  # where treeloom built a CPG file (a directory indexed is its own)
    # Which files of a source directory are indexed (greploom.core.ignore): more
    # patterns to leave out, and whether vendored and built trees are kept.
    exclude: tuple[str, ...] = ()
    include_vendored: bool = False
    # ... and which they must match (none: every one), and, for a collection of several
    # paths (greploom.core.collections), the folders under the directory it is kept to.
    include: tuple[str, ...] = ()
    within: tuple[str, ...] = ()
    ranking: str = "signals"  # or "plain": RRF only
    context: str = "fixed"  # or "adaptive": the score distribution decides (see the quality report)
    query_timeout: float = QUERY_TIMEOUT_S  # seconds a query waits for the embedder
    index_timeout: float = INDEX_TIMEOUT_S  # seconds an index run may spend embedding
    # The chat model of `greploom ask`. A local Ollama by default, like the rest:
    # nothing leaves the machine unless someone names a server.
    chat_provider: str = "ollama"
    chat_model: str | None = None  # None: the provider's default (greploom.shell.chat_http)
    chat_url: str | None = None  # None: the provider's default URL
    chat_api_key: str | None = attrs.field(default=None, repr=False)  # GREPLOOM_CHAT_API_KEY

    def embedding_key(self, url: str | None) -> str | None:
        """The key for the embedding server at ``url``: GREPLOOM_EMBEDDING_API_KEY, else
        OPENAI_API_KEY when ``url`` is OpenAI's API, else none."""
        return self.api_key or (self.openai_api_key if is_openai_url(url) else None)

    def chat_key(self, url: str | None) -> str | None:
        """The key for the chat server at ``url``: GREPLOOM_CHAT_API_KEY, else OPENAI_API_KEY
        when ``url`` is OpenAI's API, else none."""
        return self.chat_api_key or (self.openai_api_key if is_openai_url(url) else None)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GrepLoomConfig:
        """Defaults overridden by ``GREPLOOM_*`` variables (and ``OPENAI_API_KEY``)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        if v := env.get("GREPLOOM_DB"):
            values["db_path"] = Path(v)
        if v := env.get("GREPLOOM_PROVIDER"):
            values["provider"] = v
        if v := env.get("GREPLOOM_MODEL"):
            values["model"] = v
        if v := env.get("GREPLOOM_OLLAMA_URL"):
            values["ollama_url"] = v
        if v := env.get("GREPLOOM_EMBEDDING_URL"):
            values["embedding_url"] = v
        if v := env.get("GREPLOOM_EMBEDDING_API_KEY"):
            values["api_key"] = v
        if v := env.get("OPENAI_API_KEY"):
            values["openai_api_key"] = v
        for name in ("chat_provider", "chat_model", "chat_url"):
            if v := env.get(f"GREPLOOM_{name.upper()}"):
                values[name] = v
        if v := env.get("GREPLOOM_CHAT_API_KEY"):
            values["chat_api_key"] = v
        if v := env.get("GREPLOOM_TIER"):
            values["tier"] = v
        for name in ("budget", "top_k", "depth"):
            if v := env.get(f"GREPLOOM_{name.upper()}"):
                try:
                    values[name] = int(v)
                except ValueError:
                    raise UsageError(f"GREPLOOM_{name.upper()} must be a whole number, not {v!r}") from None
        for name in ("query_timeout", "index_timeout"):
            if v := env.get(f"GREPLOOM_{name.upper()}"):
                try:
                    values[name] = float(v)
                except ValueError:
                    raise UsageError(
                        f"GREPLOOM_{name.upper()} must be a number of seconds, not {v!r}"
                    ) from None
        for name in ("ranking", "context"):
            if v := env.get(f"GREPLOOM_{name.upper()}"):
                values[name] = v
        if v := env.get("GREPLOOM_LOCAL_MODEL_DIR"):
            values["local_model_dir"] = Path(v)
        return cls().with_overrides(**values)

    def with_overrides(self, **changes: Any) -> GrepLoomConfig:
        """A copy with the given (non-None) fields replaced, validated."""
        given = {k: v for k, v in changes.items() if v is not None}
        if "tier" in given and not isinstance(given["tier"], Tier):
            try:
                given["tier"] = Tier(str(given["tier"]).lower())
            except ValueError:
                raise UsageError(f"unknown tier {given['tier']!r}; use fast or enhanced") from None
        if "provider" in given:
            given["provider"] = str(given["provider"]).lower()
            if given["provider"] not in PROVIDERS:
                raise UsageError(
                    f"unknown embedding provider {given['provider']!r}; use one of {', '.join(PROVIDERS)}"
                )
        if "chat_provider" in given:
            given["chat_provider"] = str(given["chat_provider"]).lower()
            if given["chat_provider"] not in CHAT_PROVIDERS:
                known = ", ".join(CHAT_PROVIDERS)
                raise UsageError(f"unknown chat provider {given['chat_provider']!r}; use one of {known}")
        for key, allowed in (("ranking", RANKINGS), ("context", CONTEXTS)):
            if key in given and given[key] not in allowed:
                raise UsageError(f"unknown {key} {given[key]!r}; use one of {', '.join(allowed)}")
        for key in ("db_path", "local_model_dir", "source_root"):
            if key in given:
                given[key] = Path(given[key])
        for key in ("exclude", "include", "within"):
            if key in given:
                given[key] = tuple(str(p) for p in given[key])
        config = attrs.evolve(self, **given)
        config.validate()
        return config

    def validate(self) -> None:
        """Raise :class:`UsageError` for out-of-range numbers."""
        if self.budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, not {self.budget}")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise UsageError(f"top-k must be between 1 and {MAX_TOP_K}, not {self.top_k}")
        if not 0 <= self.depth <= MAX_DEPTH:
            raise UsageError(f"depth must be between 0 and {MAX_DEPTH}, not {self.depth}")
        for name in ("query_timeout", "index_timeout"):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                what = name.replace("_", " ")
                raise UsageError(f"{what} must be a positive number of seconds, not {value}")
