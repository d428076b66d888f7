"""Reading a large CPG one node and one edge at a time, so memory stays near the file's size.

``json.loads`` of numpy's 413 MB CPG builds every node and edge as dicts
before anything is structured: about 2 GB at peak. This reader walks the
top-level object with :meth:`json.JSONDecoder.raw_decode`, decodes one array
item at a time and turns it into a core value at once (or drops it, for edge
kinds the caller does not want), so only the text and the kept values are
alive together.

It handles well-formed treeloom output only. At the first surprise (bad
JSON, an item the fast path cannot structure) it gives up and returns None;
the caller then takes the strict path, whose errors name the JSON path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from greploom.core.cpg import CpgData, CpgEdge, CpgNode, EdgeKind, NodeKind

_WS = re.compile(r"[ \t\n\r]*")
_NODE_KINDS = frozenset(k.value for k in NodeKind)
_EDGE_KINDS = frozenset(k.value for k in EdgeKind)


class CpgCollector:
    """Gathers nodes and edges item by item: unknown kinds counted, unwanted edge kinds dropped.

    Shared by the streaming reader and the strict path, so both filter alike.
    ``make_node`` / ``make_edge`` take the decoded item and its array index.
    """

    def __init__(
        self,
        make_node: Callable[[Any, int], CpgNode],
        make_edge: Callable[[Any, int], CpgEdge],
        edge_kinds: frozenset[EdgeKind] | None = None,
    ) -> None:
        self.make_node = make_node
        self.make_edge = make_edge
        self.wanted = frozenset(k.value for k in edge_kinds) if edge_kinds is not None else _EDGE_KINDS
        self.nodes: list[CpgNode] = []
        self.edges: list[CpgEdge] = []
        self.skipped_nodes = 0  # kinds from a newer treeloom: skipped, counted, reported
        self.skipped_edges = 0
        self.renamed: dict[str, str] = {}  # (name shown, name on disk) of files not named in UTF-8

    def add_node(self, item: Any, index: int) -> None:
        kind = item.get("kind") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind not in _NODE_KINDS:
            self.skipped_nodes += 1
            return
        self.nodes.append(self.make_node(item, index))

    def add_edge(self, item: Any, index: int) -> None:
        kind = item.get("kind") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind not in self.wanted:
            if kind not in _EDGE_KINDS:
                self.skipped_edges += 1
            return
        self.edges.append(self.make_edge(item, index))

    def data(self, version: Any) -> CpgData:
        return CpgData(
            nodes=tuple(self.nodes),
            edges=tuple(self.edges),
            treeloom_version=version if isinstance(version, str) else str(version),
            skipped_nodes=self.skipped_nodes,
            skipped_edges=self.skipped_edges,
            renamed_files=tuple(sorted(self.renamed.items())),
        )


class _GiveUp(Exception):
    """Not the shape this reader handles: use the strict path."""


def stream_cpg(
    text: str,
    fast_node: Callable[[Any], CpgNode],
    fast_edge: Callable[[Any], CpgEdge],
    edge_kinds: frozenset[EdgeKind] | None = None,
) -> CpgData | None:
    """The CPG in ``text``, or None when it is not plain, well-formed treeloom output."""
    try:
        return _Reader(text, fast_node, fast_edge, edge_kinds).read()
    except (_GiveUp, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


class _Reader:
    def __init__(
        self,
        text: str,
        fast_node: Callable[[Any], CpgNode],
        fast_edge: Callable[[Any], CpgEdge],
        edge_kinds: frozenset[EdgeKind] | None,
    ) -> None:
        self.text = text
        self.decode = json.JSONDecoder().raw_decode
        self.collector = CpgCollector(
            lambda item, _: fast_node(item), lambda item, _: fast_edge(item), edge_kinds
        )

    def _skip(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def _expect(self, pos: int, char: str) -> int:
        pos = self._skip(pos)
        if self.text[pos] != char:
            raise _GiveUp(char)
        return pos + 1

    def read(self) -> CpgData:
        pos = self._expect(0, "{")
        version: Any = ""
        seen: set[str] = set()
        while True:
            pos = self._skip(pos)
            if self.text[pos] == "}":
                break
            key, pos = self.decode(self.text, pos)
            if not isinstance(key, str) or key in seen:
                raise _GiveUp("key")
            seen.add(key)
            pos = self._skip(self._expect(pos, ":"))
            if key in ("nodes", "edges"):
                take = self.collector.add_node if key == "nodes" else self.collector.add_edge
                pos = self._array(pos, take)
            else:
                value, pos = self.decode(self.text, pos)
                if key == "treeloom_version":
                    version = value
            pos = self._skip(pos)
            if self.text[pos] == ",":
                pos += 1
            elif self.text[pos] != "}":
                raise _GiveUp(",")
        if not {"nodes", "edges"} <= seen or self.text[pos + 1 :].strip():
            raise _GiveUp("shape")
        return self.collector.data(version)

    def _array(self, pos: int, take: Callable[[Any, int], None]) -> int:
        pos = self._expect(pos, "[")
        pos = self._skip(pos)
        if self.text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            item, pos = self.decode(self.text, pos)
            take(item, index)
            index += 1
            pos = self._skip(pos)
            if self.text[pos] == "]":
                return pos + 1
            pos = self._skip(self._expect(pos, ","))
