"""The CLI's side of resident mode: hand a query to a running ``greploom serve`` for its index.

A ``greploom serve`` (either transport) for an index writes a *sidecar*
beside it, ``INDEX.serve``, naming a loopback port and a secret token
(:mod:`greploom.shell.resident` is its side). ``greploom query`` looks for
that file before it imports anything heavy; when it is there, the question
goes to the server, which answers it with its warm engine by running the
very command line the user typed, and the CLI prints what it got. Anything
else (no sidecar, a server gone or too slow to connect, an answer that is
not one, a failure on the server's side) falls back to the cold path, which
answers as it always did: the resident path only ever changes how fast.

Standard library only, and kept small: it runs at every CLI start.

Protocol (version 1), chosen for a client that must start in milliseconds:
one TCP connection to 127.0.0.1 per request, lines of JSON. Loopback TCP
rather than a Unix socket, because a socket path beside an index can pass
the 108-byte limit and because it works on every platform. The port is
reachable by every local user, and after a crash or a reboot another
program may hold it, so the token (in a sidecar that must be this user's
own, and readable by nobody else) never crosses the wire; each side proves
it knows it first:

1. client -> ``{"protocol": 1, "hello": NONCE_C}``
2. server -> ``{"proof": HMAC(token, "server:" + NONCE_C), "nonce": NONCE_S}``,
   within ``CONNECT_TIMEOUT_S`` (a silent or foreign listener is given up on)
3. client -> ``{"proof": HMAC(token, "client:" + NONCE_S), "op": ...}``: only
   now is anything of the user's sent (command line, environment)
4. server -> the reply
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import socket
import stat
from collections.abc import Mapping, Sequence
from typing import Any

PROTOCOL = 1
SIDECAR_SUFFIX = ".serve"
DEFAULT_DB = os.path.join(".greploom", "index.db")  # greploom.shell.config.DEFAULT_DB, without its imports
CONNECT_TIMEOUT_S = 0.5  # a live server on loopback accepts in well under a millisecond
ANSWER_TIMEOUT_S = 300.0  # an answer waits on the embedder at most GREPLOOM_QUERY_TIMEOUT (5 s)
MAX_REPLY = 64 * 1024 * 1024
# Flags that make the cold path the only right one: help and version text, a CPG file
# the server would read relative to its own working directory, and code read from the
# caller's stdin or from a file relative to its working directory.
# Collections (-c, --config) are found from the caller's working directory, and are
# indexes of their own.
COLD_ONLY = frozenset({"--help", "-h", "--version", "--cpg", "--code", "-c", "--collection", "--config"})
# The environment a query's settings come from (greploom.shell.config.GrepLoomConfig.from_env),
# and what the HTTP embedders read from the process's environment (httpx: proxies and
# certificates): the server answers only when the latter are its own too.
PASSED_ENV = ("OPENAI_API_KEY",)
PROCESS_ENV = tuple(
    name
    for base in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")
    for name in (base, base.lower())
)


def sidecar_path(db: str) -> str:
    """The sidecar of the index at ``db`` (a real path: one index, one sidecar)."""
    return os.path.realpath(db) + SIDECAR_SUFFIX


def named_db(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    """The index a ``greploom query`` command line names, as the CLI would resolve it."""
    for i, token in enumerate(argv):
        if token == "--db" and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith("--db="):
            return token[len("--db=") :]
    return environ.get("GREPLOOM_DB") or DEFAULT_DB


def wants_resident(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether this command line may be answered by a resident server."""
    if not argv or argv[0] != "query" or environ.get("GREPLOOM_RESIDENT", "1") == "0":
        return False
    return not any(token.split("=", 1)[0] in COLD_ONLY for token in argv[1:])


def proof(token: str, side: str, nonce: str) -> str:
    """What a side sends to show it knows the token, for the other side's nonce."""
    return hmac.new(token.encode("utf-8"), f"{side}:{nonce}".encode(), hashlib.sha256).hexdigest()


def proven(got: Any, token: str, side: str, nonce: str) -> bool:
    """Whether ``got`` is the proof ``side`` owes for ``nonce``."""
    return isinstance(got, str) and hmac.compare_digest(got.encode(), proof(token, side, nonce).encode())


def read_sidecar(path: str) -> dict[str, Any] | None:
    """The sidecar's fields, or None when there is none, it is not one, or it is not to be trusted.

    Trusted: a regular file (not a link) of this user's, that nobody else can
    read or write; another user's could name their listener, a readable one
    has leaked its token.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        owner = getattr(os, "getuid", None)
        if not stat.S_ISREG(info.st_mode) or (owner is not None and info.st_uid != owner()):
            return None
        if os.name == "posix" and info.st_mode & 0o077:
            return None
        with os.fdopen(fd, encoding="utf-8", closefd=False) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL:
        return None
    if not isinstance(data.get("port"), int) or not isinstance(data.get("token"), str):
        return None
    return data


def exchange(sidecar: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any] | None:
    """Send one request to the server the sidecar names; its reply, or None for no reply.

    Nothing of the request is sent before the listener has proven it holds
    the sidecar's token (the module's protocol).
    """
    token = str(sidecar["token"])
    mine = secrets.token_hex(16)
    try:
        with socket.create_connection(("127.0.0.1", sidecar["port"]), timeout=CONNECT_TIMEOUT_S) as conn:
            lines = conn.makefile("rb")
            conn.sendall(_line({"protocol": PROTOCOL, "hello": mine}))
            hello = _read(lines, 4096)
            if hello is None or not proven(hello.get("proof"), token, "server", mine):
                return None
            theirs = hello.get("nonce")
            if not isinstance(theirs, str):
                return None
            conn.sendall(_line({**request, "proof": proof(token, "client", theirs)}))
            conn.settimeout(ANSWER_TIMEOUT_S)
            return _read(lines, MAX_REPLY)
    except OSError:
        return None


def _line(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message).encode("utf-8") + b"\n"


def _read(lines: Any, limit: int) -> dict[str, Any] | None:
    """One JSON object from one line of at most ``limit`` bytes, or None."""
    line = lines.readline(limit + 1)
    if not line.endswith(b"\n"):
        return None  # the connection closed early, or the line is too long
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def resident_answer(
    argv: Sequence[str], environ: Mapping[str, str], cwd: str
) -> tuple[str, str, int] | None:
    """(stdout, stderr, exit code) of ``greploom ARGV`` as a resident server answered it, or None.

    None means "answer it cold": no server, or one that did not answer this.
    """
    if not wants_resident(argv, environ):
        return None
    db = named_db(argv[1:], environ)
    sidecar = read_sidecar(sidecar_path(os.path.join(cwd, db)))
    if sidecar is None:
        return None
    passed = (*PASSED_ENV, *PROCESS_ENV)
    env = {k: v for k, v in environ.items() if k.startswith("GREPLOOM_") or k in passed}
    request = {
        "op": "query",
        "argv": list(argv),
        "cwd": cwd,
        "env": env,
        "db": os.path.realpath(os.path.join(cwd, db)),
    }
    reply = exchange(sidecar, request)
    if reply is None or reply.get("answered") is not True:
        return None
    out, err, code = reply.get("stdout"), reply.get("stderr"), reply.get("code")
    if not isinstance(out, str) or not isinstance(err, str) or not isinstance(code, int):
        return None
    return out, err, code


def server_status(db: str) -> dict[str, Any] | None:
    """What the resident server for ``db`` says of itself, or None when none answers."""
    sidecar = read_sidecar(sidecar_path(db))
    if sidecar is None:
        return None
    reply = exchange(sidecar, {"op": "status"})
    if reply is None or reply.get("answered") is not True:
        return None
    return reply
