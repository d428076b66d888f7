"""Which files a partial re-index resolves again, and whose rows it builds again.

An index run over a source directory keeps, for each file, what the next run
needs in order to leave the file alone: its scopes
(greploom.core.call_scopes), its identities, its call links and what
resolving them read (greploom.core.calls.Linked.reads). When some files
changed (edited, added or deleted), the next run decides from those values:

1. :func:`touched`: the entries of the code-base-wide tables whose content
   changed (greploom.core.call_memo.table_key): the names a changed file
   defines at a module's top level, its classes, the objects it defines
   functions on, the names its modules bind (per directory), and, when a file
   gains or loses its module, the paths, stems and path components of it.
2. :func:`to_resolve`: the changed files and each file whose calls read one
   of them or a touched entry. Lookups are pure and their reads complete
   (greploom.core.call_memo), so the calls of any other file read the same
   tables and link as before.
3. :func:`to_rebuild`: once the calls of those files are linked again, the
   files whose rows may differ: the changed ones, those whose calls now link
   otherwise, those at the other end of such a link (their callers changed),
   and those linked either way to a definition whose key, name, kind, place
   or qualified name changed (a row names its callers and callees so).

Laws (tests/properties/test_relink.py): changed files are resolved and
rebuilt; a file is resolved exactly when its reads meet a changed file or a
touched entry; what a file contributes to the tables is touched when it
appears or disappears, never otherwise; both ends of a changed link are
rebuilt; and (the point) linking only the files :func:`to_resolve` names,
over their graph and the other files' scopes, gives every call the link a
whole resolution gives it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping, Set
from typing import NamedTuple

import attrs

from greploom.core.call_memo import table_key
from greploom.core.call_modules import dotted_path
from greploom.core.call_scopes import FileHead
from greploom.core.calls import CallLinks
from greploom.core.cpg import CpgGraph
from greploom.core.keys import NodeIdentity


class Link(NamedTuple):
    """One linked call: its node, the key of the definition holding it, the key it invokes.

    A named tuple, not an attrs class: a run holds one per linked call of the code base
    (numpy: 41,000, read back on every run) and builds a tuple in a third of the time."""

    call: str
    caller: str
    target: str


def links_by_file(
    graph: CpgGraph, links: CallLinks, idents: Mapping[str, NodeIdentity]
) -> dict[str, tuple[Link, ...]]:
    """Per file, each of its linked calls as a :class:`Link` (``idents`` by node id). A call in
    no definition is no one's call (greploom.core.context), and is left out."""
    out: dict[str, list[Link]] = {}
    for call_id, target_id in links.targets:
        call = graph.node(call_id)
        owner = graph.enclosing_definition(call) if call is not None else None
        holder = idents.get(owner.id) if owner is not None else None
        target = idents.get(target_id)
        if call is None or holder is None or target is None:
            continue
        out.setdefault(call.file, []).append(Link(call_id, holder.key, target.key))
    return {f: tuple(v) for f, v in out.items()}


@attrs.frozen
class Contribution:
    """The table entries a file's scopes put something under.

    ``present``: touched when the file starts or stops contributing to them;
    ``always``: touched whenever the file changes (the types its ``self.x``
    bindings give objects, which the entries do not tell apart)."""

    present: frozenset[str] = frozenset()
    always: frozenset[str] = frozenset()


def module_keys(file: str) -> frozenset[str]:
    """The path-table entries a file with a module fills: its dotted path and every package
    above it, its stem, and the last component of each."""
    dotted = dotted_path(file)
    parts = dotted.split(".")
    paths = {".".join(parts[:i]) for i in range(1, len(parts) + 1)} | {dotted}
    stem = file.rsplit(".", 1)[0] if "." in file.rsplit("/", 1)[-1] else file
    keys = {table_key("path", p) for p in paths} | {table_key("stem", stem)}
    keys |= {table_key("suffix", p.rsplit(".", 1)[-1]) for p in paths}
    return frozenset(keys)


def contribution(head: FileHead | None, identities: Iterable[NodeIdentity] = ()) -> Contribution:
    """What one file contributes to the code-base-wide tables (None: no such file), from its
    head (greploom.core.call_scopes.head_of) and identities."""
    if head is None:
        return Contribution()
    directory = posixpath.dirname(head.file)
    present = {table_key("dir", f"{directory}:{n}") for _, n in head.bound}
    present |= {table_key("top", n) for n, _ in head.top}
    present |= {table_key("class", n) for n, _ in head.classes}
    owners = {o for o, _, _ in head.owned}
    present |= {table_key("owned", o) for o in owners}
    if head.modules:
        present |= module_keys(head.file)
    always: set[str] = set()
    if head.self_attrs:  # filed under the object a function is defined on, or its own name
        always = {table_key("owned", q) for q in {*owners, *(i.qualname for i in identities)}}
    return Contribution(frozenset(present), frozenset(always))


def touched(before: Contribution, after: Contribution) -> frozenset[str]:
    """The table entries whose content a file's change may have changed."""
    return (before.present ^ after.present) | before.always | after.always


def to_resolve(
    changed: Set[str], touched_keys: Set[str], reads: Mapping[str, Collection[str]]
) -> frozenset[str]:
    """The changed files and every file whose calls read a changed file or a touched entry."""
    hit = set(changed) | set(touched_keys)
    return frozenset(changed) | frozenset(f for f, r in reads.items() if not hit.isdisjoint(r))


def ref_of(ident: NodeIdentity) -> tuple[str, str, str, str, int, str]:
    """What a row says of another definition it is linked to: key, name, kind, file, line,
    qualified name (greploom.core.context's references, greploom.core.summary's callees)."""
    return (ident.key, ident.name, ident.declared or ident.kind.value, ident.file, ident.line, ident.qualname)


def to_rebuild(
    changed: Set[str],
    before: Mapping[str, frozenset[Link]],
    after: Mapping[str, frozenset[Link]],
    refs_changed: Set[str],
    file_of: Callable[[str], str | None],
) -> frozenset[str]:
    """The files whose rows may differ, given the links of the files resolved again (``before``
    and ``after`` them, by file) and the keys whose reference changed (:func:`ref_of`);
    ``file_of`` gives the file of a key, old or new."""
    out = set(changed)

    def both_ends(link: Link, holder: str) -> None:
        out.add(holder)
        target = file_of(link.target)
        if target is not None:
            out.add(target)

    for file in before.keys() | after.keys():
        old, new = before.get(file, frozenset()), after.get(file, frozenset())
        for link in old ^ new:
            both_ends(link, file)
        for link in old | new:
            if link.target in refs_changed or link.caller in refs_changed:
                both_ends(link, file)
    return frozenset(out)
