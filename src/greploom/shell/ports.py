"""The small interfaces the use cases depend on, and the embedder's identity."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs


@attrs.frozen
class EmbedderIdentity:
    """What makes two sets of vectors comparable. Recorded in every index.

    ``dimension`` is 0 until the first vector is seen (HTTP providers).
    """

    provider: str
    model: str
    dimension: int
    query_prefix: str = ""
    document_prefix: str = ""

    def describe(self) -> str:
        """``provider:model`` for messages and headers."""
        return f"{self.provider}:{self.model}"

    def space(self) -> str:
        """Provider, model and prefixes as one string: vectors of one space share it.

        The width is left out because an HTTP embedder learns it from its
        first answer; whoever compares vectors checks the width as well.
        """
        return json.dumps([self.provider, self.model, self.query_prefix, self.document_prefix])


def recorded_identity(meta: Mapping[str, str]) -> EmbedderIdentity | None:
    """The embedder an index was built with, from its ``meta`` table (None for none or a new index)."""
    provider = meta.get("embedder_provider")
    if not provider or provider == "none":
        return None
    return EmbedderIdentity(
        provider=provider,
        model=meta.get("embedder_model", ""),
        dimension=int(meta.get("embedder_dimension", "0") or 0),
        query_prefix=meta.get("embedder_query_prefix", ""),
        document_prefix=meta.get("embedder_document_prefix", ""),
    )


class Embedder(Protocol):
    """Turns texts into vectors of one fixed width."""

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider, model, dimension and prefixes."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for texts to be indexed (the document prefix is applied)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query (the query prefix is applied)."""
        ...

    def close(self) -> None:
        """Release connections or sessions."""
        ...


class TokenCounter(Protocol):
    """Counts tokens the way the reader's model will."""

    def __call__(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


class Progress(Protocol):
    """Receives progress of an index run's stages (greploom.shell.progress shows it)."""

    def __call__(self, stage: str, done: int, total: int) -> None:
        """``done`` of ``total`` units of ``stage`` are finished."""
        ...
