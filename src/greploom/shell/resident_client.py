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
one TCP connection to 127.0.0.1 per request, one line of JSON each way.
Loopback TCP rather than a Unix socket, because a socket path beside an
index can pass the 108-byte limit and because it works on every platform;
the port is reachable by every local user, so the token, in a file only
the server's user can read (0600), is what admits a client.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping, Sequence
from typing import Any

PROTOCOL = 1
SIDECAR_SUFFIX = ".serve"
DEFAULT_DB = os.path.join(".greploom", "index.db")  # greploom.shell.config.DEFAULT_DB, without its imports
CONNECT_TIMEOUT_S = 0.5  # a live server on loopback accepts in well under a millisecond
ANSWER_TIMEOUT_S = 300.0  # an answer waits on the embedder at most GREPLOOM_QUERY_TIMEOUT (5 s)
MAX_REPLY = 64 * 1024 * 1024
# Flags that make the cold path the only right one: help and version text, and a
# CPG file the server would read relative to its own working directory.
COLD_ONLY = frozenset({"--help", "-h", "--version", "--cpg"})
# The environment a query's settings come from (greploom.shell.config.GrepLoomConfig.from_env).
PASSED_ENV = ("OPENAI_API_KEY",)


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


def read_sidecar(path: str) -> dict[str, Any] | None:
    """The sidecar's fields, or None when there is none or it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL:
        return None
    if not isinstance(data.get("port"), int) or not isinstance(data.get("token"), str):
        return None
    return data


def exchange(sidecar: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any] | None:
    """Send one request to the server the sidecar names; its reply, or None for no reply."""
    message = json.dumps({**request, "token": sidecar["token"], "protocol": PROTOCOL}) + "\n"
    try:
        with socket.create_connection(("127.0.0.1", sidecar["port"]), timeout=CONNECT_TIMEOUT_S) as conn:
            conn.settimeout(ANSWER_TIMEOUT_S)
            conn.sendall(message.encode("utf-8"))
            conn.shutdown(socket.SHUT_WR)
            chunks: list[bytes] = []
            size = 0
            while chunk := conn.recv(1 << 16):
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_REPLY:
                    return None
    except OSError:
        return None
    try:
        reply = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


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
    env = {k: v for k, v in environ.items() if k.startswith("GREPLOOM_") or k in PASSED_ENV}
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
