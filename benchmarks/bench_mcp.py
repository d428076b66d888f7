#!/usr/bin/env python3
"""MCP latency and throughput over stdio and streamable HTTP. Prints figures; asserts nothing.

    python benchmarks/bench_mcp.py [--db PATH]

Without --db it indexes requests' CPG (built by bench_index_query.py into
benchmarks/.work/requests.json, or built here). For each transport it starts
`greploom serve`, then measures the first search_code call, warm p50/p95 of
search_code and get_node_context over 50 calls each, and calls per second
with 4 concurrent clients (50 calls each).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
QUERIES = ("how are retries handled", "session cookies", "prepare the request body", "auth header")


def ensure_index(db: Path | None) -> Path:
    if db is not None:
        return db
    cpg = WORK / "requests.json"
    if not cpg.exists():
        subprocess.run([sys.executable, str(HERE / "bench_index_query.py")], check=True)
    db = WORK / "mcp-requests.db"
    command = [str(BIN / "greploom"), "index", str(cpg), "--db", str(db)]
    if subprocess.run(command, check=False, capture_output=True).returncode != 0:
        # Built by an older greploom with another bundled model: start over.
        subprocess.run([*command, "--force"], check=True, capture_output=True)
    return db


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_client(make: Any, db: Path) -> dict[str, Any]:
    async with make() as client:
        start = time.perf_counter()
        first = await client.call_tool("search_code", {"query": QUERIES[0]})
        first_s = time.perf_counter() - start
        key = first.structured_content["results"][0]["key"]
        search, node = [], []
        for i in range(50):
            t = time.perf_counter()
            await client.call_tool("search_code", {"query": QUERIES[i % len(QUERIES)]})
            search.append(time.perf_counter() - t)
        for _ in range(50):
            t = time.perf_counter()
            await client.call_tool("get_node_context", {"node_ids": [key]})
            node.append(time.perf_counter() - t)
    return {"first": first_s, "search": search, "node": node}


async def concurrent(make: Any, clients: int = 4, calls: int = 50) -> float:
    async def one(n: int) -> None:
        async with make() as client:
            for i in range(calls):
                await client.call_tool("search_code", {"query": QUERIES[(i + n) % len(QUERIES)]})

    start = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(clients)))
    return clients * calls / (time.perf_counter() - start)


def report(name: str, figures: dict[str, Any], rate: float) -> None:
    ms = 1000
    print(
        f"{name}: first search_code {figures['first'] * ms:.0f} ms; "
        f"search_code p50 {statistics.median(figures['search']) * ms:.1f} ms, "
        f"p95 {pct(figures['search'], 0.95) * ms:.1f} ms; "
        f"get_node_context p50 {statistics.median(figures['node']) * ms:.1f} ms, "
        f"p95 {pct(figures['node'], 0.95) * ms:.1f} ms; "
        f"4 concurrent clients {rate:.0f} calls/s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    db = ensure_index(args.db)
    greploom = str(BIN / "greploom")

    def stdio() -> Client[Any]:
        return Client(
            StdioTransport(greploom, ["serve", "--transport", "stdio", "--db", str(db)], cwd=str(WORK))
        )

    report("stdio", asyncio.run(run_client(stdio, db)), asyncio.run(concurrent(stdio)))

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "GREPLOOM_API_TOKEN"}
    server = subprocess.Popen(
        [greploom, "serve", "--db", str(db), "--port", str(port)],
        cwd=WORK,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"

        def http() -> Client[Any]:
            return Client(StreamableHttpTransport(url))

        report("streamable-http", asyncio.run(run_client(http, db)), asyncio.run(concurrent(http)))
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
