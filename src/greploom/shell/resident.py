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
import hmac
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

from greploom.shell.config import GrepLoomConfig
from greploom.shell.querying import QueryEngine
from greploom.shell.resident_client import PROTOCOL, sidecar_path

MAX_REQUEST = 1024 * 1024  # one command line and its environment
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
        self._server: socketserver.ThreadingTCPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifetime ---------------------------------------------------------------
    def start(self) -> None:
        """Listen, then write the sidecar; OSError when either cannot be done (nothing is left)."""
        owner = self

        class Handler(socketserver.StreamRequestHandler):
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
        partial = f"{self.sidecar}.{os.getpid()}.tmp"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(body, handle)
            os.replace(partial, self.sidecar)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise

    # -- requests ---------------------------------------------------------------
    def handle(self, rfile: io.BufferedIOBase, wfile: io.BufferedIOBase) -> None:
        """One request line in, one reply line out."""
        line = rfile.readline(MAX_REQUEST + 1)
        try:
            request = json.loads(line) if len(line) <= MAX_REQUEST else None
        except ValueError:
            request = None
        reply = self.reply(request)
        with contextlib.suppress(OSError):
            wfile.write(json.dumps(reply).encode("utf-8") + b"\n")

    def reply(self, request: Any) -> dict[str, Any]:
        """The reply to one decoded request (``answered`` False: the client answers it cold)."""
        if not isinstance(request, dict) or request.get("protocol") != PROTOCOL:
            return {"answered": False, "why": "not a request of this protocol"}
        token = request.get("token")
        if not isinstance(token, str) or not hmac.compare_digest(token, self.token):
            return {"answered": False, "why": "wrong token"}
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
        if not isinstance(cwd, str) or not os.path.isabs(cwd) or not isinstance(env, dict):
            raise NotServed("cwd or env")
        if request.get("db") != self.db:
            raise NotServed("another index")
        environ = {str(k): str(v) for k, v in env.items()}
        out, err = io.StringIO(), io.StringIO()
        invocation = cli.Invocation(
            environ=environ, engine_for=lambda config: self.engine_for(config, Path(cwd)), out=out, err=err
        )
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
        # What a query sets per call is left out of the key: one engine serves every value of it.
        key = attrs.evolve(
            config,
            budget=0,
            top_k=0,
            depth=0,
            ranking="",
            context="",
            db_path=Path(),
            local_model_dir=cwd / model_dir if model_dir else None,
        )
        with self._lock:
            engine = self._engines.get(key)
            if engine is None:
                if len(self._engines) >= MAX_ENGINES:
                    oldest = next(iter(self._engines))
                    self._engines.pop(oldest).close()
                engine = QueryEngine(attrs.evolve(key, db_path=db))
                self._engines[key] = engine
            return engine
