"""Reading CPG files: streaming and strict reading agree; bad files fall back to the strict path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from greploom.core.context import USED_EDGE_KINDS
from greploom.core.errors import CpgError
from greploom.shell.cpg_stream import stream_cpg
from greploom.shell.serde import _fast_edge, _fast_node, cpg_from_json, load_cpg


@pytest.mark.parametrize("edge_kinds", [None, USED_EDGE_KINDS])
def test_stream_equals_strict_on_real_cpgs(pyshop_cpg: Path, jsutil_cpg: Path, edge_kinds: object) -> None:
    """Streaming is an optimisation: on treeloom's output it yields exactly what the strict path does."""
    for cpg in (pyshop_cpg, jsutil_cpg):
        text = cpg.read_text()
        streamed = stream_cpg(text, _fast_node, _fast_edge, edge_kinds)  # type: ignore[arg-type]
        assert streamed is not None
        assert streamed == cpg_from_json(json.loads(text), edge_kinds=edge_kinds)  # type: ignore[arg-type]


def test_compact_and_reordered_json_streams_too(pyshop_cpg: Path) -> None:
    """Whitespace and key order are not part of the format."""
    raw = json.loads(pyshop_cpg.read_text())
    reordered = {"edges": raw["edges"], "annotations": {}, "nodes": raw["nodes"], "treeloom_version": "x"}
    streamed = stream_cpg(json.dumps(reordered, separators=(",", ":")), _fast_node, _fast_edge)
    assert streamed is not None and len(streamed.nodes) == len(raw["nodes"])
    assert streamed.treeloom_version == "x"


@pytest.mark.parametrize(
    "text",
    [
        '{"nodes": [], "edges": [',
        '{"nodes": [{"id": 1}], "edges": []}',
        '{"nodes": []}',
        "[1, 2]",
        '{"nodes": [], "edges": []} trailing',
        '{"nodes": [], "nodes": [], "edges": []}',
    ],
)
def test_anything_unusual_falls_back(text: str, tmp_path: Path) -> None:
    """The streaming reader gives up on surprises; the strict path then reports them by JSON path."""
    assert stream_cpg(text, _fast_node, _fast_edge) is None
    path = tmp_path / "bad.json"
    path.write_text(text)
    try:
        load_cpg(path)
    except CpgError as exc:
        assert str(exc).startswith(("invalid CPG", f"{path} is not valid JSON"))


def test_an_index_runs_graph_is_freed_without_the_cyclic_collector(
    pyshop_cpg: Path, jsutil_cpg: Path, sample_dir: Path
) -> None:
    """Deciding the rows leaves no reference cycle behind: the graph (on numpy 1.5M objects) is
    freed as soon as the run lets go of it, not at the collector's next full pass."""
    import gc

    from greploom.core.summary import Tier
    from greploom.shell.rows import compute_rows

    for cpg, root in ((pyshop_cpg, sample_dir / "pyshop"), (jsutil_cpg, sample_dir / "jsutil")):
        data = load_cpg(cpg, USED_EDGE_KINDS)
        gc.collect()
        gc.disable()
        try:
            rows = compute_rows(data, Tier.ENHANCED, root, walk=True, origin=cpg)
            del data
            assert rows[0]  # the rows were decided
            assert gc.collect() == 0
        finally:
            gc.enable()
