"""One code file's facts as the parts file stores them: the record's shape, written and read.

greploom.shell.file_facts keeps them (where, and when a record may be used);
this module says what a record holds (:class:`FileFacts`) and how it is
written: zlib-compressed JSON, the file's own definitions' ids without their
file (most of a record), its scopes and links apart from the rest, so a run
reads only what it needs of each.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from greploom.core.call_scopes import Binding, FileHead, FileScopes, head_of
from greploom.core.cpg import AttrValue, CpgNode, NodeKind, SourceLocation
from greploom.core.expand import NodeRef
from greploom.core.keys import NodeIdentity
from greploom.core.relink import Link
from greploom.shell.cpg_parts import PartFaults
from greploom.shell.sources import SourceReport


class UnreadableFacts(Exception):
    """A record could not be read back (damaged, or gone): a run decides every row instead."""


@attrs.frozen
class FileFacts:
    """What one run kept of one code file."""

    file: str
    content: str  # the file's content key (greploom.shell.cpg_parts.content_key) they were made from
    identities: tuple[NodeIdentity, ...] = ()
    scopes: FileScopes | None = None  # read back apart, where needed (:meth:`FactStore.body`)
    links: tuple[Link, ...] = ()  # read back apart, where needed (:meth:`FactStore.links`)
    reads: frozenset[str] = frozenset()
    report: SourceReport | None = None
    faults: PartFaults = attrs.Factory(PartFaults)
    linked: frozenset[str] = frozenset()  # the files of the definitions its calls link to
    head: FileHead | None = None  # what the code-base-wide tables hold of its scopes

    def the_head(self) -> FileHead:
        """Its head: kept, or made from its scopes."""
        if self.head is not None:
            return self.head
        scopes = self.scopes or FileScopes(self.file)
        return head_of(scopes, {i.node_id for i in self.identities})


def encode(facts: FileFacts) -> tuple[str, str, bytes, bytes, bytes]:
    """One record as stored: file, content key, and compressed JSON of its head and the rest
    read on every run, of its scopes, and of its links. A file's ids and keys name the file
    (``kind:file:...``): it is left out of them (:class:`_Ids`), which halves a record."""
    short = _Ids(facts.file).short
    scopes = facts.scopes or FileScopes(facts.file)
    head = facts.the_head()
    report = facts.report or SourceReport(0, 0, 0, ())
    doc = {
        "i": [
            [short(i.key), short(i.node_id), i.kind.value, i.name, i.qualname, i.line, i.end_line, i.declared]
            for i in facts.identities
        ],
        "top": [[n, short(d)] for n, d in head.top],
        "cls": [[n, short(d)] for n, d in head.classes],
        "own": [[o, n, short(d)] for o, n, d in head.owned],
        "sat": [[short(sc), n, t] for sc, n, t in head.self_attrs],
        "mod": [short(m) for m in head.modules],
        "bnd": _grouped(head.bound, short),
        "imd": list(head.imported),
        "nm": list(head.names),
        "r": sorted(facts.reads),
        "rep": attrs.asdict(report),
        "f": list(attrs.astuple(facts.faults)),
        "lk": sorted(facts.linked),
    }
    body = {
        "d": [_node_json(n, short) for n in scopes.definitions],
        "defs": [[short(sc), n, short(d)] for sc, n, d in scopes.defs],
        "loc": _grouped(scopes.locals, short),
        "typ": _grouped(scopes.types, short),
        "cat": [[short(sc), n, t] for sc, n, t in scopes.class_attr_types],
        "imp": [[short(sc), name, *_binding_json(b)] for sc, name, b in scopes.imports],
        "star": [[short(sc), *_binding_json(b)] for sc, b in scopes.stars],
    }
    links = [[short(x.call), short(x.caller), short(x.target)] for x in facts.links]
    return facts.file, facts.content, _packed(doc), _packed(body), _packed(links)


def _packed(value: object) -> bytes:
    text = json.dumps(value, separators=(",", ":"))  # ensure_ascii: non-ASCII is escaped
    return zlib.compress(text.encode("ascii"), 1)


def decode(file: str, content: str, blob: bytes) -> FileFacts:
    """One record back, its scopes and links left out (raises ValueError, KeyError or TypeError
    on one not of this layout: the identity in the file's meta says whose records they are, so
    the values are not checked one by one)."""
    doc = json.loads(zlib.decompress(blob))
    long = _Ids(file).long
    identities = tuple(
        NodeIdentity(long(k), long(n), NodeKind(kind), name, q, file, line, end, dec)
        for k, n, kind, name, q, line, end, dec in doc["i"]
    )
    head = FileHead(
        file,
        top=tuple((n, long(d)) for n, d in doc["top"]),
        classes=tuple((n, long(d)) for n, d in doc["cls"]),
        owned=tuple((o, n, long(d)) for o, n, d in doc["own"]),
        self_attrs=tuple((long(sc), n, t) for sc, n, t in doc["sat"]),
        modules=tuple(long(m) for m in doc["mod"]),
        bound=tuple((long(sc), n) for sc, names in doc["bnd"] for n in names),
        imported=tuple(doc["imd"]),
        names=tuple(doc["nm"]),
    )
    return FileFacts(
        file,
        content,
        identities,
        None,
        (),
        frozenset(doc["r"]),
        _report(doc["rep"]),
        PartFaults(*doc["f"]),
        frozenset(doc["lk"]),
        head,
    )


def decode_body(file: str, blob: bytes) -> FileScopes:
    """A record's scopes back; their head's entries come with them (call_scopes.FileScopes)."""
    doc = json.loads(zlib.decompress(blob))
    long = _Ids(file).long
    return FileScopes(
        file,
        tuple(_node(file, raw, long) for raw in doc["d"]),
        defs=tuple((long(sc), n, long(d)) for sc, n, d in doc["defs"]),
        locals=tuple((long(sc), n) for sc, names in doc["loc"] for n in names),
        types=tuple((long(sc), n, t) for sc, pairs in doc["typ"] for n, t in pairs),
        class_attr_types=tuple((long(sc), n, t) for sc, n, t in doc["cat"]),
        imports=tuple((long(sc), name, _binding(file, rest)) for sc, name, *rest in doc["imp"]),
        stars=tuple((long(sc), _binding(file, rest)) for sc, *rest in doc["star"]),
    )


def decode_links(file: str, blob: bytes) -> tuple[Link, ...]:
    """A record's links back."""
    long = _Ids(file).long
    return tuple(Link(long(c), long(a), long(t)) for c, a, t in json.loads(zlib.decompress(blob)))


class _Ids:
    """A file's ids and keys without the file: ``function:pkg/mod.py:f`` is kept as a tab and
    ``function:f``; any other string as it is (none starts with a tab)."""

    def __init__(self, file: str) -> None:
        self.part = f":{file}:"

    def short(self, text: str) -> str:
        kind, sep, _ = text.partition(":")
        if sep and text.startswith(self.part, len(kind)):
            return f"\t{kind}:{text[len(kind) + len(self.part) :]}"
        return text

    def long(self, text: str) -> str:
        if not text.startswith("\t"):
            return text
        kind, _, rest = text[1:].partition(":")
        return f"{kind}{self.part}{rest}"


def _grouped(rows: Iterable[tuple[str, ...]], short: Callable[[str], str]) -> list[list[Any]]:
    """(scope, ...) rows as [scope, [rest...]] in the order scopes first appear; each scope's rows
    keep their order (the tables they fill are sets)."""
    out: dict[str, list[Any]] = {}
    for scope, *rest in rows:
        out.setdefault(scope, []).append(rest[0] if len(rest) == 1 else rest)
    return [[short(scope), values] for scope, values in out.items()]


def _node_json(node: CpgNode, short: Callable[[str], str]) -> list[Any]:
    where = node.location
    return [
        short(node.id),
        node.kind.value,
        node.name,
        where.line if where else None,
        where.column if where else 0,
        None if node.scope is None else short(node.scope),
        [[k, list(v) if isinstance(v, tuple) else v] for k, v in node.attrs],
    ]


def _node(file: str, raw: Sequence[Any], long: Callable[[str], str]) -> CpgNode:
    node_id, kind, name, line, column, scope, pairs = raw
    node_id, scope = long(node_id), None if scope is None else long(scope)
    attr_pairs: tuple[tuple[str, AttrValue], ...] = ()
    if pairs:
        attr_pairs = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in pairs)
    if not (isinstance(node_id, str) and isinstance(name, str) and (scope is None or isinstance(scope, str))):
        raise TypeError("definition")
    where = SourceLocation(file, line, column) if line is not None else None
    return CpgNode(node_id, NodeKind(kind), name, where, None, scope, attr_pairs)


def _binding_json(b: Binding) -> list[Any]:
    return [b.kind, b.module, b.member, b.is_from]


def _binding(file: str, raw: Sequence[Any]) -> Binding:
    kind, module, member, is_from = raw
    return Binding(kind, module, member, file, is_from)


def _report(raw: Mapping[str, Any]) -> SourceReport:
    def strings(name: str) -> tuple[str, ...]:
        return tuple(str(v) for v in raw[name])

    return SourceReport(
        int(raw["needed"]),
        int(raw["recovered"]),
        int(raw["unread_files"]),
        strings("languages"),
        int(raw["stale"]),
        strings("renamed"),
        added=tuple((str(f), int(n)) for f, n in raw["added"]),
        unnamed=int(raw["unnamed"]),
        parsed_files=tuple((str(f), int(n)) for f, n in raw["parsed_files"]),
        whole_files=strings("whole_files"),
        unparsed_files=strings("unparsed_files"),
        unusual=tuple((str(f), str(why)) for f, why in raw["unusual"]),
        not_utf8=strings("not_utf8"),
        no_parser=strings("no_parser"),
    )


def ref_json(ref: NodeRef) -> list[Any]:
    return [ref.key, ref.name, ref.kind, ref.file, ref.line, ref.detail]


def ref_of(raw: Sequence[Any]) -> NodeRef:
    key, name, kind, file, line, detail = raw
    return NodeRef(str(key), str(name), str(kind), str(file), int(line), str(detail))
