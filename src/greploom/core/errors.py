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


class IndexBusyError(StoreError):
    """Another index run holds the index's lock (a watcher waits for it and runs after)."""


class CorruptIndexError(StoreError):
    """The index file is damaged: ``greploom index --force`` rebuilds it, ``greploom check`` says more."""


class EmbedderError(GreploomError):
    """The embedder is unreachable, answered badly, or differs from the index's."""

    exit_code = 5


# What the operating system refused, by its real reason. Each leaf has its own exit
# code (6-9) so a script can tell "fix the permissions" from "free some disk" without
# parsing the message; none of them is a bug, and none damages an existing index.


class FileSystemError(GreploomError):
    """The operating system refused a file operation (the leaves say why)."""

    exit_code = 9


class PermissionDeniedError(FileSystemError):
    """No permission to read or write a file or directory greploom needs."""

    exit_code = 6


class ReadOnlyError(FileSystemError):
    """A write was needed on a read-only file system or a read-only index."""

    exit_code = 7


class DiskFullError(FileSystemError):
    """The disk, a quota or the file-size limit (``ulimit -f``) is exhausted."""

    exit_code = 8


class DiskIOError(FileSystemError):
    """The storage answered with an I/O error (a failing disk, a vanished mount)."""

    exit_code = 9


class ChatError(GreploomError):
    """The chat model of ``greploom ask`` is unreachable, or its answer failed or came partial.

    Exit code 5, the embedder's: either way a model server greploom was told
    to use did not answer; its own class, so a caller can tell which.
    """

    exit_code = 5
