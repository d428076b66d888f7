"""The imperative shell: files, SQLite, HTTP, ONNX, clock, environment, CLI and MCP.

Each module is one adapter. Use cases gather inputs (I/O), let the pure core
in :mod:`greploom.core` decide, and act on the decision.
"""
