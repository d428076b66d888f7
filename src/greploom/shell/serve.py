"""Starting the MCP server: checks first (bind address, token, paths), then run until stopped."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from starlette.middleware import Middleware

from greploom.core.errors import UsageError
from greploom.shell.config import GrepLoomConfig
from greploom.shell.guard import HttpGuard, is_loopback
from greploom.shell.mcp import ServeSettings, build_server


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
) -> None:
    """Validate the settings and serve until interrupted."""
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
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="greploom: %(levelname)s: %(message)s"
    )
    mcp, service = build_server(ServeSettings(config=config, cpg_path=cpg, roots=roots))
    try:
        if transport == "stdio":
            mcp.run(transport="stdio", show_banner=False)
        else:
            guard = Middleware(HttpGuard, token=token, bound_host=host, extra_hosts=allow_hosts)
            print(f"greploom: serving MCP on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
            mcp.run(
                transport="streamable-http",
                host=host,
                port=port,
                show_banner=False,
                middleware=[guard],
                host_origin_protection=False,  # HttpGuard checks Host itself, with --allow-host
                log_level="warning",
            )
    finally:
        service.close()
