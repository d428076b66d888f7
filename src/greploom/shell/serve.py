"""Starting the MCP server: checks first (bind address, token, paths, port), then run until stopped."""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from starlette.middleware import Middleware

from greploom.core.errors import UsageError
from greploom.shell.config import GrepLoomConfig
from greploom.shell.guard import HttpGuard, is_loopback
from greploom.shell.mcp import ServeSettings, build_server
from greploom.shell.resident import ResidentServer
from greploom.shell.watch import Watcher


def serve_forever(
    config: GrepLoomConfig,
    *,
    cpg: Path | None,
    host: str,
    port: int,
    transport: str,
    roots: tuple[Path, ...],
    allow_hosts: tuple[str, ...],
    token: str | None,
    resident: bool = True,
    watch: Path | None = None,
    config_file: Path | None = None,
) -> None:
    """Validate the settings and serve until interrupted.

    ``resident``: answer ``greploom query`` for the index too (resident mode,
    :mod:`greploom.shell.resident`), through a sidecar file beside it.
    """
    if transport != "stdio" and not is_loopback(host) and not token:
        raise UsageError(
            f"refusing to serve on {host} without authentication; set GREPLOOM_API_TOKEN "
            "(clients then send `Authorization: Bearer <token>`), or bind 127.0.0.1"
        )
    if not 0 < port < 65536:
        raise UsageError(f"port must be between 1 and 65535, not {port}")
    for directory in roots:
        if not directory.is_dir():
            raise UsageError(f"--root {directory} is not a directory")
    if cpg is not None and not cpg.is_file():
        raise UsageError(f"--cpg {cpg}: no such file")
    if watch is not None and not watch.is_dir():
        raise UsageError(f"--watch needs a source directory; {watch} is not one")
    if transport != "stdio":
        check_port(host, port)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="greploom: %(levelname)s: %(message)s"
    )
    settings = ServeSettings(config=config, cpg_path=cpg, roots=roots, config_file=config_file)
    mcp, service = build_server(settings)
    answering = start_resident(config.db_path) if resident else None
    watcher = start_watcher(watch, config) if watch is not None else None
    try:
        stop_on_sigterm(answering, graceful=transport != "stdio")
        if transport == "stdio":
            mcp.run(transport="stdio", show_banner=False)
        else:
            guard = Middleware(HttpGuard, token=token, bound_host=host, extra_hosts=allow_hosts)
            print(f"greploom: serving MCP on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
            try:
                mcp.run(
                    transport="streamable-http",
                    host=host,
                    port=port,
                    show_banner=False,
                    middleware=[guard],
                    host_origin_protection=False,  # HttpGuard checks Host itself, with --allow-host
                    log_level="warning",
                )
            except SystemExit as exc:  # uvicorn's startup failure (3) would pass for a CPG error
                if exc.code not in (0, None):
                    raise UsageError(
                        f"the MCP server on {host}:{port} failed to start (the line above says why); "
                        "stop whatever holds the port or pick another with --port"
                    ) from None
                raise
    except Stopped:
        pass  # SIGTERM: a requested stop, not an interruption (exit 0, nothing to say)
    finally:
        if watcher is not None:
            watcher.stop.set()
        if answering is not None:
            answering.close()
        service.close()


class Stopped(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C's KeyboardInterrupt would be, so uvicorn shuts down gracefully."""


def _stop(signum: int, frame: object) -> None:
    raise Stopped


def stop_on_sigterm(answering: ResidentServer | None, *, graceful: bool) -> None:
    """SIGTERM (how service managers and MCP clients stop a server) leaves no sidecar behind.

    Over HTTP it stops the server as Ctrl-C does (uvicorn's graceful
    shutdown, then everything closed), and the process exits 0. Over stdio a thread blocked reading
    the client's stream would hold that up; there SIGTERM removes the
    sidecar and then ends the process at once, as it did before.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if graceful:
        signal.signal(signal.SIGTERM, _stop)
        return

    def end(signum: int, frame: object) -> None:
        if answering is not None:
            answering.remove_sidecar()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, end)


def start_watcher(directory: Path, config: GrepLoomConfig) -> Watcher:
    """``--watch``: a watcher keeping the served index fresh, in a thread of its own.

    Its lines go to stderr (over stdio, stdout is the MCP stream); the tools'
    engines pick each refresh up at their next call, as after ``index_code``.
    """
    watcher = Watcher(
        directory, config, say=lambda line: print(f"greploom: {line}", file=sys.stderr, flush=True)
    )
    threading.Thread(target=watcher.run, name="greploom-watch", daemon=True).start()
    return watcher


def start_resident(db_path: Path) -> ResidentServer | None:
    """The resident CLI answerer for the index, or None (and one warning line) when it cannot start.

    Serving MCP does not depend on it: an index folder this user cannot write
    (no sidecar) only means CLI queries run cold, as without a server.
    """
    answering = ResidentServer(db_path)
    try:
        answering.start()
    except OSError as exc:
        print(
            f"greploom: warning: CLI queries will not use this server: cannot write "
            f"{answering.sidecar} ({exc.strerror or exc})",
            file=sys.stderr,
            flush=True,
        )
        return None
    return answering


def check_port(host: str, port: int) -> None:
    """:class:`UsageError` unless (host, port) can be bound now, as uvicorn will bind it.

    Checked before "serving" is printed, so a busy port is one line and exit 2,
    not a false start. SO_REUSEADDR as uvicorn sets it: a port in TIME_WAIT is free.
    """
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot serve on {host}: {exc.strerror}; pass an address with --host") from exc
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise UsageError(
                        f"port {port} on {host} is already in use; "
                        "stop the other server or pick another with --port"
                    ) from exc
                raise UsageError(f"cannot serve on {host} port {port}: {exc.strerror or exc}") from exc
