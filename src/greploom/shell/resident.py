"""The server's side of resident mode: answer ``greploom query`` command lines with warm engines.

``greploom serve`` starts a :class:`ResidentServer` for its index: a loopback
TCP listener on a port the system picks, and the sidecar beside the index
that names it (protocol and reasons in :mod:`greploom.shell.resident_client`).
Each request runs :func:`greploom.shell.cli.main` on the client's command
line, with the client's environment and working directory, into streams of
its own, using engines kept warm here: the answer is the cold path's, made
by the same code. Only a command that succeeded, or failed for its usage,
is answered (``ANSWERED_CODES``); any other failure, and anything this
server should not answer (another index, a malformed request), is handed
back for the client to run cold, so error lines and exit codes are exactly
the cold path's too.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import secrets
import socketserver
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from greploom.shell.atomic import write_json
from greploom.shell.config import GrepLoomConfig
from greploom.shell.querying import QueryEngine
from greploom.shell.resident_client import (
    PROCESS_ENV,
    PROTOCOL,
    proof,
    proven,
    sidecar_path,
    wants_resident,
)

MAX_REQUEST = 1024 * 1024  # one command line and its environment
HANDSHAKE_TIMEOUT_S = 10.0
# Outcomes answered warm: success, and a usage error (a budget too small, an unknown
# node), which the command line and the index decide alone. Every other failure
# (a missing or damaged index, an embedder, the disk) is about this machine's state
# and names paths as the client gave them: the client runs it cold and says it so.
ANSWERED_CODES = (0, 2)
MAX_ENGINES = 8  # warm engines kept, one per distinct embedder setting (clients rarely differ)


class NotServed(Exception):
    """This server does not answer that request; the client answers it cold."""


class ResidentServer:
    """Answers CLI queries for one index over loopback, found through the index's sidecar."""

    def __init__(self, db_path: Path) -> None:
        self.db = os.path.realpath(db_path)
        self.sidecar = sidecar_path(str(db_path))
        self.token = secrets.token_urlsafe(32)
        self.started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        self.answered = 0
        self._engines: dict[GrepLoomConfig, QueryEngine] = {}
        self._lock = threading.Lock()
        self._running = threading.Lock()
        self._server: socketserver.ThreadingTCPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifetime ---------------------------------------------------------------
    def start(self) -> None:
        """Listen, then write the sidecar; OSError when either cannot be done (nothing is left)."""
        owner = self

        class Handler(socketserver.StreamRequestHandler):
            timeout = HANDSHAKE_TIMEOUT_S  # an idle connection does not hold its thread

            def handle(self) -> None:
                owner.handle(self.rfile, self.wfile)

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        server.daemon_threads = True
        try:
            server.server_bind()
            server.server_activate()
            self._write_sidecar(int(server.server_address[1]))
        except OSError:
            server.server_close()
            raise
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="greploom-resident", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop listening, remove the sidecar if it is still ours, close the engines."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.remove_sidecar()
        with self._lock:
            for engine in self._engines.values():
                engine.close()
            self._engines.clear()

    def remove_sidecar(self) -> None:
        """Remove the sidecar, unless a later server for this index has written its own there."""
        if self._sidecar_is_ours():
            with contextlib.suppress(OSError):
                os.unlink(self.sidecar)

    def _sidecar_is_ours(self) -> bool:
        try:
            with open(self.sidecar, encoding="utf-8") as handle:
                return bool(json.load(handle).get("token") == self.token)
        except (OSError, ValueError, AttributeError):
            return False

    def _write_sidecar(self, port: int) -> None:
        """The sidecar, written whole (a client never reads half of one) and readable by this user only."""
        body = {"protocol": PROTOCOL, "pid": os.getpid(), "port": port, "token": self.token, "db": self.db}
        write_json(self.sidecar, body)

    # -- requests ---------------------------------------------------------------
    def handle(self, rfile: io.BufferedIOBase, wfile: io.BufferedIOBase) -> None:
        """One exchange (:mod:`greploom.shell.resident_client`): hello, proofs, request, reply."""
        hello = _read(rfile, 4096)
        if hello is None or hello.get("protocol") != PROTOCOL or not isinstance(hello.get("hello"), str):
            return
        mine = secrets.token_hex(16)
        if not _send(wfile, {"proof": proof(self.token, "server", hello["hello"]), "nonce": mine}):
            return
        request = _read(rfile, MAX_REQUEST)
        if request is None or not proven(request.get("proof"), self.token, "client", mine):
            _send(wfile, {"answered": False, "why": "no proof of the token"})
            return
        _send(wfile, self.reply(request))

    def reply(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to an authenticated request (``answered`` False: the client answers it cold)."""
        if request.get("op") == "status":
            return {"answered": True, "pid": os.getpid(), "started": self.started, "queries": self.answered}
        if request.get("op") != "query":
            return {"answered": False, "why": "unknown op"}
        try:
            out, err, code = self.run(request)
        except Exception as exc:  # anything at all: the cold path answers, and says it its way
            return {"answered": False, "why": type(exc).__name__}
        with self._lock:
            self.answered += 1
        return {"answered": True, "stdout": out, "stderr": err, "code": code}

    def run(self, request: Mapping[str, Any]) -> tuple[str, str, int]:
        """Run the client's command line here; its (stdout, stderr, exit code) when it is answered."""
        from greploom.shell import cli

        argv, cwd, env = request.get("argv"), request.get("cwd"), request.get("env")
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
            raise NotServed("argv")
        if not wants_resident(argv, {}):  # a query, without the flags only the cold path answers
            raise NotServed("not a query this server answers")
        if not isinstance(cwd, str) or not os.path.isabs(cwd) or not isinstance(env, dict):
            raise NotServed("cwd or env")
        if request.get("db") != self.db:
            raise NotServed("another index")
        environ = {str(k): str(v) for k, v in env.items()}
        if any(environ.get(name) != os.environ.get(name) for name in PROCESS_ENV):
            raise NotServed("another proxy or certificate setting")  # httpx reads these from this process
        out, err = io.StringIO(), io.StringIO()
        invocation = cli.Invocation(
            environ=environ, engine_for=lambda config: self.engine_for(config, Path(cwd)), out=out, err=err
        )
        with self._running:  # one command line at a time: cyclopts' app is one shared object
            token = cli.INVOCATION.set(invocation)
            try:
                code = cli.main(argv)
            finally:
                cli.INVOCATION.reset(token)
        if code not in ANSWERED_CODES:
            raise NotServed(f"exit {code}")
        return out.getvalue(), err.getvalue(), code

    def engine_for(self, config: GrepLoomConfig, cwd: Path) -> QueryEngine:
        """The warm engine for a query's settings, its paths taken from the client's directory."""
        db = cwd / config.db_path
        if os.path.realpath(db) != self.db:
            raise NotServed("another index")
        model_dir = config.local_model_dir
        # The key holds what makes an engine: the embedder's settings. What a query sets
        # per call, and what only index runs read, are left out of it.
        defaults = GrepLoomConfig()
        key = attrs.evolve(
            defaults,
            provider=config.provider,
            model=config.model,
            ollama_url=config.ollama_url,
            embedding_url=config.embedding_url,
            api_key=config.api_key,
            openai_api_key=config.openai_api_key,
            query_timeout=config.query_timeout,
            local_model_dir=cwd / model_dir if model_dir else None,
        )
        with self._lock:
            engine = self._engines.pop(key, None)
            if engine is None:
                # Loaded as a cold CLI query loads its model (one_shot), so the vectors,
                # and the answers, are the cold path's bit for bit.
                engine = QueryEngine(attrs.evolve(key, db_path=db), one_shot=True)
            self._engines[key] = engine  # the most recently used last
            while len(self._engines) > MAX_ENGINES:
                # Dropped, not closed: a query may still be using it; it closes when collected.
                self._engines.pop(next(iter(self._engines)))
            return engine


def _read(rfile: io.BufferedIOBase, limit: int) -> dict[str, Any] | None:
    """One JSON object from one line of at most ``limit`` bytes, or None (a timeout included)."""
    try:
        line = rfile.readline(limit + 1)
    except OSError:
        return None
    if not line.endswith(b"\n"):
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _send(wfile: io.BufferedIOBase, message: Mapping[str, Any]) -> bool:
    try:
        wfile.write(json.dumps(message).encode("utf-8") + b"\n")
        wfile.flush()
    except OSError:
        return False
    return True
