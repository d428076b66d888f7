"""What the MCP server lets in: paths inside the allowed roots, and (over HTTP) requests
with the right bearer token and a Host header that names this server.

Paths are resolved (``..`` collapsed, symlinks followed) before they are
compared with the resolved roots, so neither ``../`` nor a symlink pointing
out of a root gets through. Host checking stops DNS rebinding: a browser page
on another origin that resolves its name to 127.0.0.1 still sends its own
name in ``Host``.

Every value checked here comes from a client, so a bad one is answered with one
short line (:func:`clip` bounds what is echoed), never with a traceback.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from greploom.core.errors import UsageError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux; no real path a tool needs is longer
CLIP_CHARS = 80

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name only reaches this machine."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def clip(text: str, limit: int = CLIP_CHARS) -> str:
    """At most ``limit`` characters of ``text`` as one line, with what was cut said.

    For echoing client values in error messages: control characters become
    ``repr`` escapes, so the message stays one line whatever the value holds.
    """
    shown = text[:limit]
    if not shown.isprintable():
        shown = repr(shown)[1:-1][:limit]
    if len(text) <= limit:
        return shown
    return f"{shown}... ({len(text)} characters)"


def shown_url(url: str) -> str:
    """``url`` as an error message may show it: without its user name and password, query string
    and fragment, which hold credentials (``http://user:pass@host/v1?key=...``).

    Works on text that is no URL too: everything up to the last ``@`` before any
    ``?`` or ``#`` is taken for credentials, whatever it holds (``/`` included).
    """
    head = url.split("?", 1)[0].split("#", 1)[0]
    scheme, sep, rest = head.partition("://")
    if not sep:
        scheme, rest = "", head
    if "@" in rest:
        rest = rest.rpartition("@")[2]
    return f"{scheme}{sep}{rest}"


def _path_problem(raw: str) -> str | None:
    if len(raw) > MAX_PATH_CHARS:
        return f"is longer than {MAX_PATH_CHARS} characters"
    if "\x00" in raw:
        return "contains a NUL byte"
    if any("\ud800" <= ch <= "\udfff" for ch in raw):
        return "is not valid Unicode (it contains a lone surrogate)"
    return None


class PathGuard:
    """Confines tool paths to a set of root directories."""

    def __init__(self, roots: Iterable[Path]) -> None:
        self.roots = tuple(dict.fromkeys(Path(r).resolve() for r in roots))

    def check(self, raw: str | Path, what: str) -> Path:
        """The resolved path, or :class:`UsageError` when it is malformed or outside every root."""
        text = str(raw)
        problem = _path_problem(text)
        if problem is not None:
            raise UsageError(f"{what} {clip(text)} {problem}; pass a real path inside the allowed roots")
        try:
            resolved = Path(text).expanduser().resolve()
        except (OSError, RuntimeError, ValueError) as exc:  # ~nosuchuser, a symlink loop
            raise UsageError(f"{what} {clip(text)} cannot be resolved: {clip(str(exc))}") from exc
        for root in self.roots:
            if resolved == root or resolved.is_relative_to(root):
                return resolved
        allowed = ", ".join(str(r) for r in self.roots)
        raise UsageError(
            f"{what} {clip(text)} is outside the allowed roots ({allowed}); "
            "start `greploom serve` with --root to allow it"
        )


def _host_name(header: str) -> str:
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HttpGuard:
    """ASGI middleware: Host header check (always) and bearer token (when one is set)."""

    def __init__(
        self, app: ASGIApp, *, token: str | None, bound_host: str, extra_hosts: Sequence[str] = ()
    ) -> None:
        self.app = app
        self._token = None if token is None else _token_bytes(token)
        allowed = set(LOOPBACK_NAMES) | {bound_host.lower(), *(h.lower() for h in extra_hosts)}
        self.allowed_hosts = frozenset(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _host_name(headers.get("host", "")).lower()
        if host not in self.allowed_hosts:
            await _reply(send, 421, "misdirected request: unknown Host header")
            return
        if self._token is not None:
            auth = headers.get("authorization", "")
            scheme, _, given = auth.partition(" ")
            # Bytes, not str: compare_digest refuses non-ASCII str. Header values were decoded
            # latin-1 above, so encoding them back gives the bytes the client sent.
            sent = given.strip(" \t").encode("latin-1")
            if scheme.lower() != "bearer" or not hmac.compare_digest(sent, self._token):
                await _reply(send, 401, "missing or wrong bearer token", {"www-authenticate": "Bearer"})
                return
        await self.app(scope, receive, send)


def _token_bytes(token: str) -> bytes:
    """The token as a client sends it: UTF-8 (an undecodable environment byte stays that byte)."""
    try:
        return token.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return token.encode("utf-8", "surrogatepass")


async def _reply(send: Send, status: int, message: str, extra: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
