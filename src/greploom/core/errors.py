"""The one error hierarchy. Adapters wrap foreign errors with ``raise ... from``.

Every message is one actionable sentence: the CLI prints it as is, the MCP
server raises it as a ``ToolError``.
"""

from __future__ import annotations


class GreploomError(Exception):
    """Base of every error greploom raises on purpose; ``exit_code`` is the CLI's."""

    exit_code = 1


class UsageError(GreploomError):
    """An argument is out of range or contradicts another (budget <= 0, bad top-k)."""

    exit_code = 2


class CpgError(GreploomError):
    """The CPG JSON cannot be read or does not have the shape treeloom writes."""

    exit_code = 3


class StoreError(GreploomError):
    """The index file is missing, not a greploom index, too new, or busy."""

    exit_code = 4


class EmbedderError(GreploomError):
    """The embedder is unreachable, answered badly, or differs from the index's."""

    exit_code = 5
