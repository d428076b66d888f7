"""Reading a treeloom CPG JSON file into core values: the one cattrs converter.

What treeloom writes is documented in ``shared/TREELOOM_CPG.md``; what other
producers write can be anything, so every failure becomes one
:class:`~greploom.core.errors.CpgError` line naming the JSON path
(``$.nodes[12].location.line``). Unknown node or edge kinds (a newer
treeloom) are skipped and counted, not fatal.

Refused or repaired at this edge, before the core sees them: a path that is
not a regular file (``/dev/zero`` is read forever, a FIFO blocks the open);
JSON nested deeper than the decoder follows (one line, not a RecursionError);
and the lone surrogates treeloom writes for file names that are not UTF-8,
which SQLite cannot store: every string is escaped to valid text
(:func:`valid_text`), and the names on disk are kept so the files can still
be read (``CpgData.renamed_files``).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import cattrs

from greploom.core.cpg import (
    AttrPairs,
    AttrValue,
    CpgData,
    CpgEdge,
    CpgNode,
    EdgeKind,
    NodeKind,
    SourceLocation,
)
from greploom.core.errors import CpgError
from greploom.core.expand import StructuralContext
from greploom.shell.cpg_stream import CpgCollector, stream_cpg

_SCALARS = (str, bool, int, float, type(None))


def _attr_value(value: Any) -> AttrValue:
    if type(value) in _SCALARS:
        return value  # type: ignore[no-any-return]
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    if isinstance(value, dict):
        # e.g. import aliases {"np": "numpy"}: kept as "name=alias" strings
        return tuple(f"{k}={v}" for k, v in value.items())
    return str(value)


def _attrs_pairs(value: Any, _type: Any) -> tuple[tuple[str, AttrValue], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise TypeError("attrs must be an object")
    return tuple(sorted((str(k), _attr_value(v)) for k, v in value.items()))


def _strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _strict_int(value: Any, _type: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def make_converter() -> cattrs.Converter:
    """The converter for CPG JSON; built once, never modified elsewhere."""
    conv = cattrs.Converter()
    # Exact-type predicates: a singledispatch hook for str would also catch the
    # str-based enums NodeKind and EdgeKind.
    conv.register_structure_hook_func(lambda t: t is str, _strict_str)
    conv.register_structure_hook_func(lambda t: t is int, _strict_int)
    conv.register_structure_hook_func(lambda t: t == AttrPairs, _attrs_pairs)
    return conv


_CONVERTER = make_converter()


def _structure(conv: cattrs.Converter, raw: Any, cls: type[Any], path: str) -> Any:
    try:
        return conv.structure(raw, cls)
    except Exception as exc:  # cattrs raises ExceptionGroups with the details
        lines = (
            cattrs.transform_error(exc, path=path)
            if isinstance(exc, cattrs.BaseValidationError)
            else [f"{exc} @ {path}"]
        )
        raise CpgError(f"invalid CPG: {lines[0]}") from exc


def _location(raw: Any) -> SourceLocation | None:
    if raw is None:
        return None
    file, line, column = raw["file"], raw["line"], raw.get("column", 0)
    if type(file) is not str or type(line) is not int or type(column) is not int:
        raise TypeError("location")
    return SourceLocation(sys.intern(file), line, column)


def _fast_node(raw: Any) -> CpgNode:
    """A node from well-formed treeloom JSON; raises on anything unusual."""
    node_id, name, scope = raw["id"], raw["name"], raw.get("scope")
    if type(node_id) is not str or type(name) is not str or not (scope is None or type(scope) is str):
        raise TypeError("node")
    pairs = raw.get("attrs")
    # Ids and file names are interned: the JSON decoder makes a new string for each
    # occurrence, and an id is written up to four times (node, scope, edge ends),
    # a file twice per node; on numpy that was over 100 MB of copies.
    return CpgNode(
        sys.intern(node_id),
        NodeKind(raw["kind"]),
        name,
        _location(raw.get("location")),
        _location(raw.get("end_location")),
        None if scope is None else sys.intern(scope),
        _attrs_pairs(pairs, None) if pairs else (),
    )


def _fast_edge(raw: Any) -> CpgEdge:
    """An edge from well-formed treeloom JSON; raises on anything unusual."""
    source, target = raw["source"], raw["target"]
    if type(source) is not str or type(target) is not str:
        raise TypeError("edge")
    pairs = raw.get("attrs")
    kind = EdgeKind(raw["kind"])
    return CpgEdge(sys.intern(source), sys.intern(target), kind, _attrs_pairs(pairs, None) if pairs else ())


def cpg_from_json(
    raw: Any,
    converter: cattrs.Converter | None = None,
    edge_kinds: frozenset[EdgeKind] | None = None,
) -> CpgData:
    """Structure decoded JSON into :class:`CpgData`, or raise :class:`CpgError`.

    Well-formed treeloom output takes a fast path; the first item that does
    not fit it goes through the cattrs converter, whose error names the JSON
    path. ``edge_kinds`` keeps only edges of those kinds (an index run needs
    four of the eleven; the rest are a third of numpy's load time).
    """
    if not isinstance(raw, dict):
        raise CpgError(f"invalid CPG: the top level must be a JSON object, not {_kind(raw)}")
    for field in ("nodes", "edges"):
        if field not in raw:
            raise CpgError(f"invalid CPG: required field missing @ $.{field}")
        if not isinstance(raw[field], list):
            raise CpgError(f"invalid CPG: expected a list, got {_kind(raw[field])} @ $.{field}")

    node, edge = cpg_item_readers(converter)
    collector = CpgCollector(node, edge, edge_kinds)
    for i, item in enumerate(raw["nodes"]):
        collector.add_node(item, i)
    for i, item in enumerate(raw["edges"]):
        collector.add_edge(item, i)
    return collector.data(raw.get("treeloom_version", ""))


def cpg_item_readers(
    converter: cattrs.Converter | None = None,
) -> tuple[Callable[[Any, int], CpgNode], Callable[[Any, int], CpgEdge]]:
    """Readers of one decoded node and one edge (item, index in its list): well-formed treeloom
    JSON takes the fast path, anything else the strict converter, whose error names the JSON path."""
    conv = converter or _CONVERTER

    def node(item: Any, index: int) -> CpgNode:
        try:
            return _fast_node(item)
        except (KeyError, TypeError, ValueError, AttributeError):
            result: CpgNode = _structure(conv, item, CpgNode, f"$.nodes[{index}]")
            return result

    def edge(item: Any, index: int) -> CpgEdge:
        try:
            return _fast_edge(item)
        except (KeyError, TypeError, ValueError, AttributeError):
            result: CpgEdge = _structure(conv, item, CpgEdge, f"$.edges[{index}]")
            return result

    return node, edge


def _kind(value: Any) -> str:
    names: Mapping[type[Any], str] = {dict: "an object", list: "a list", str: "a string"}
    return names.get(type(value), type(value).__name__)


_FILE_TYPES = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_special(path: Path, mode: int) -> None:
    """Raise for anything but a regular file: a directory, a device, a FIFO, a socket."""
    if stat.S_ISDIR(mode):
        raise CpgError(f"{path} is a directory, not a CPG JSON file")
    if not stat.S_ISREG(mode):
        what = next((name for test, name in _FILE_TYPES if test(mode)), "a special file")
        raise CpgError(f"{path} is not a regular file ({what}), so it cannot be a CPG JSON file")


def check_cpg_file(path: Path) -> None:
    """Refuse, before anything opens it, a CPG path that is missing or not a regular file.

    ``/dev/zero`` would be read forever and a FIFO would block the open until
    some writer comes; both are refused at once, as are directories.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError as exc:
        raise CpgError(f"CPG file not found: {path}") from exc
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise CpgError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    _refuse_special(path, info.st_mode)


def _read_regular(path: Path) -> bytes:
    """A regular file's bytes. Opened without blocking (a FIFO would wait for a writer)
    and checked on the open descriptor, so a path swapped after a check is caught too."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        _refuse_special(path, os.fstat(fd).st_mode)
        return handle.read()


def read_text(path: Path, opener: Callable[[Path], bytes] | None = None) -> str:
    """A CPG file's text, with one-line errors for every way reading it fails."""
    try:
        data = opener(path) if opener else _read_regular(path)
    except FileNotFoundError as exc:
        raise CpgError(f"CPG file not found: {path}") from exc
    except IsADirectoryError as exc:
        raise CpgError(f"{path} is a directory, not a CPG JSON file") from exc
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise CpgError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    if not data.strip():
        raise CpgError(f"{path} is empty, not a CPG JSON file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CpgError(f"{path} is not valid JSON: {exc}") from exc


def _too_deep(path: Path) -> CpgError:
    return CpgError(f"{path} is nested too deeply to be a CPG (JSON arrays or objects inside each other)")


def parse_json(path: Path, text: str) -> Any:
    """Decoded JSON, or a one-line error naming the file."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CpgError(f"{path} is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise _too_deep(path) from exc


# A JSON escape of a UTF-16 surrogate: the only way text decoded as UTF-8 can end
# up holding a lone one. A proper pair (an emoji) matches too and is left alone.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    # U+DC80..U+DCFF stand for the undecodable bytes 0x80..0xFF (Python's surrogateescape).
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def valid_text(text: str) -> str:
    """``text`` with each lone surrogate spelled out: ``caf\\udce9.py`` -> ``caf\\xe9.py``.

    What Python's ``surrogateescape`` made of a byte that is not UTF-8 becomes
    ``\\xNN`` (as ``backslashreplace`` writes that byte); any other lone
    surrogate ``\\uNNNN``. The result encodes as UTF-8, which SQLite, JSON
    output and terminals need.
    """
    return _LONE_SURROGATE.sub(_escape_surrogate, text) if _LONE_SURROGATE.search(text) else text


def _valid_attrs(pairs: AttrPairs) -> AttrPairs:
    def value(v: AttrValue) -> AttrValue:
        if isinstance(v, str):
            return valid_text(v)
        if isinstance(v, tuple):
            return tuple(valid_text(item) for item in v)
        return v

    return tuple(sorted(((valid_text(k), value(v)) for k, v in pairs), key=lambda pair: pair[0]))


def _valid_location(location: SourceLocation | None) -> SourceLocation | None:
    if location is None or location.file == (file := valid_text(location.file)):
        return location
    return attrs.evolve(location, file=file)


def _valid_node(node: CpgNode) -> CpgNode:
    return CpgNode(
        valid_text(node.id),
        node.kind,
        valid_text(node.name),
        _valid_location(node.location),
        _valid_location(node.end_location),
        None if node.scope is None else valid_text(node.scope),
        _valid_attrs(node.attrs),
    )


def with_valid_text(data: CpgData) -> CpgData:
    """The CPG with every string made valid Unicode (see :func:`valid_text`).

    Files whose names changed are remembered as (name shown, name on disk)
    pairs in ``renamed_files``, so their sources can still be read.
    """
    renamed: dict[str, str] = {}
    nodes: list[CpgNode] = []
    for node in data.nodes:
        clean = _valid_node(node)
        nodes.append(clean)
        for before, after in ((node.location, clean.location), (node.end_location, clean.end_location)):
            if before is not None and after is not None and before.file != after.file:
                renamed.setdefault(after.file, before.file)
    edges = [
        CpgEdge(valid_text(e.source), valid_text(e.target), e.kind, _valid_attrs(e.attrs)) for e in data.edges
    ]
    return attrs.evolve(
        data,
        nodes=tuple(nodes),
        edges=tuple(edges),
        treeloom_version=valid_text(data.treeloom_version),
        renamed_files=tuple(sorted({**dict(data.renamed_files), **renamed}.items())),
    )


def load_cpg(path: str | Path, edge_kinds: frozenset[EdgeKind] | None = None) -> CpgData:
    """Read a treeloom CPG JSON file into :class:`CpgData` (optionally only some edge kinds).

    Well-formed treeloom output is streamed item by item (see
    :mod:`greploom.shell.cpg_stream`); anything else is decoded whole and
    structured strictly, so its errors name the JSON path. Strings that are
    not valid Unicode (file names that are not UTF-8) are escaped.
    """
    file = Path(path)
    text = read_text(file)
    try:
        data = stream_cpg(text, _fast_node, _fast_edge, edge_kinds)
        if data is None:
            data = cpg_from_json(parse_json(file, text), edge_kinds=edge_kinds)
    except RecursionError as exc:  # JSON nested deeper than the decoder follows
        raise _too_deep(file) from exc
    return with_valid_text(data) if _SURROGATE_ESCAPE.search(text) else data


def structure_to_json(structure: StructuralContext) -> str:
    """The stored form of a node's structural context (compact JSON)."""
    return json.dumps(_CONVERTER.unstructure(structure), separators=(",", ":"))


def structure_from_json(text: str) -> StructuralContext:
    """The structural context back from its stored form."""
    result: StructuralContext = _CONVERTER.structure(json.loads(text), StructuralContext)
    return result
