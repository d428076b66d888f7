"""The package root's public API: every documented name resolves, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import greploom


def test_every_exported_name_resolves() -> None:
    """Code written against the documented names finds each one."""
    for name in greploom.__all__:
        assert getattr(greploom, name) is not None, name
    assert greploom.EmbeddingClient.__name__ == "Embedder"
    config = greploom.GrepLoomConfig.from_env({"GREPLOOM_BUDGET": "1234"})
    assert config.budget == 1234 and config.top_k == 10


def test_import_is_light() -> None:
    """`import greploom` loads no SQLite, ONNX or HTTP stack (the CLI starts fast)."""
    code = (
        "import sys, greploom; print(sorted(m for m in ('apsw', 'onnxruntime', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
