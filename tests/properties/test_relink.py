"""A partial re-index: which files to resolve again and whose rows to build again (greploom.core.relink).

Laws:

1. The changed files are always resolved again and rebuilt.
2. A file is resolved again exactly when its reads meet a changed file or a
   touched table entry.
3. ``touched`` is symmetric, and a file that did not change touches only
   what it always touches (``Contribution.always``); an entry a file starts
   or stops contributing is touched.
4. Both ends of a link that changed are rebuilt.
5. The point (metamorphic, over programs and their edits: a file's body
   replaced, a file added, a file deleted): linking only the files
   ``to_resolve`` names, over their graph and the other files' scopes, gives
   every call the link and the reads a whole resolution of the edited code
   gives; the files not resolved keep links and reads that are still right.
6. Every input of a row outside ``to_rebuild`` is as it was: the file's
   links, its definitions' callers, and what those and its callees are called.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.call_memo import table_key
from greploom.core.call_scopes import FileHead, FileScopes, file_scopes, head_of
from greploom.core.calls import Linked, link_calls
from greploom.core.cpg import CpgData, CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.relink import (
    Contribution,
    Link,
    contribution,
    links_by_file,
    ref_of,
    to_rebuild,
    to_resolve,
    touched,
)
from tests.properties.strategies import (
    CALL_FILES,
    CallDef,
    CallFile,
    CallProgram,
    build_call_cpg,
    call_defs,
    call_imports,
    call_programs,
)

_FILES = st.sampled_from(("a.py", "b.py", "c/d.py"))
_KEYS = st.sampled_from(tuple(table_key("top", n) for n in ("run", "load", "Cart")))
_reads = st.dictionaries(_FILES, st.frozensets(st.one_of(_FILES, _KEYS), max_size=3), max_size=3)
_contributions = st.builds(
    Contribution, present=st.frozensets(_KEYS, max_size=3), always=st.frozensets(_KEYS, max_size=1)
)
_links = st.frozensets(
    st.builds(Link, call=st.sampled_from(("c1", "c2")), caller=st.just("function:a.py:f"), target=_KEYS),
    max_size=2,
)


@given(st.frozensets(_FILES, max_size=2), st.frozensets(_KEYS, max_size=2), _reads)
def test_changed_files_are_resolved_and_rebuilt(
    changed: frozenset[str], hit: frozenset[str], reads: dict[str, frozenset[str]]
) -> None:
    """Law 1: a changed file's own calls and rows are never taken from before."""
    assert changed <= to_resolve(changed, hit, reads)
    assert changed <= to_rebuild(changed, {}, {}, set(), lambda key: None)


@given(st.frozensets(_FILES, max_size=2), st.frozensets(_KEYS, max_size=2), _reads)
def test_a_file_is_resolved_when_its_reads_meet_a_change(
    changed: frozenset[str], hit: frozenset[str], reads: dict[str, frozenset[str]]
) -> None:
    """Law 2: resolving a file whose reads met nothing that changed would only cost time; not
    resolving one whose reads did would keep a link that may be wrong."""
    again = to_resolve(changed, hit, reads)
    for file, read in reads.items():
        if file not in changed:
            assert (file in again) == bool(read & (changed | hit))


@given(_contributions, _contributions)
def test_touched_is_what_appears_or_disappears(before: Contribution, after: Contribution) -> None:
    """Law 3: an entry present before and after still holds the file's contribution (its
    readers read the file itself); one that came or went changed for every reader."""
    assert touched(before, after) == touched(after, before)
    assert touched(before, before) == before.always
    assert (before.present ^ after.present) <= touched(before, after)


@given(_links, _links)
def test_both_ends_of_a_changed_link_are_rebuilt(old: frozenset[Link], new: frozenset[Link]) -> None:
    """Law 4: a new or lost link changes its caller's callees and its target's callers."""
    files = {table_key("top", n): f"{n}.py" for n in ("run", "load", "Cart")}
    out = to_rebuild(frozenset(), {"a.py": old}, {"a.py": new}, set(), files.get)
    for link in old ^ new:
        assert "a.py" in out and files[link.target] in out


# -- law 5: over programs and their edits ------------------------------------------------------


@attrs.frozen(eq=False)
class _State:
    """One version of a program, resolved whole."""

    nodes: Mapping[str, tuple[CpgNode, ...]]  # by file, as the file's part holds them
    graph: CpgGraph
    idents: tuple[NodeIdentity, ...]
    scopes: Mapping[str, FileScopes]
    linked: Linked

    @classmethod
    def of(cls, program: CallProgram) -> _State:
        nodes: dict[str, tuple[CpgNode, ...]] = {}
        for f in program.files:  # each file built alone, with its own ids, as its part is
            nodes[f.path + program.ext] = build_call_cpg(attrs.evolve(program, files=(f,))).nodes
        graph = CpgGraph(CpgData(nodes=tuple(n for part in nodes.values() for n in part), edges=()))
        idents = node_identities(graph)
        scopes = file_scopes(graph, idents)
        return cls(nodes, graph, idents, scopes, link_calls(graph, idents, _ordered(scopes)))

    def mine(self, file: str) -> list[NodeIdentity]:
        return [i for i in self.idents if i.file == file]

    def head(self, file: str) -> FileHead:
        return head_of(self.scopes[file], {i.node_id for i in self.idents})

    def contribution(self, file: str) -> Contribution:
        return contribution(self.head(file), self.mine(file)) if file in self.scopes else contribution(None)

    def links(self) -> dict[str, tuple[Link, ...]]:
        return links_by_file(self.graph, self.linked.links, {i.node_id: i for i in self.idents})


def _to_resolve(old: _State, new: _State, changed: frozenset[str]) -> frozenset[str]:
    """The files a partial run resolves again, from what it kept of ``old``."""
    hit: set[str] = set()
    for f in changed:
        hit |= touched(old.contribution(f), new.contribution(f))
    return to_resolve(changed, hit, {f: r for f, r in old.linked.reads if f not in changed})


def _ordered(scopes: Mapping[str, FileScopes]) -> list[FileScopes]:
    return [scopes[f] for f in sorted(scopes)]


def _edited(program: CallProgram, data: st.DataObject) -> CallProgram:
    """The program with one file's content replaced, one file added, or one deleted."""
    files = list(program.files)
    content = CallFile(
        "",
        tuple(data.draw(st.lists(call_imports, max_size=2))),
        tuple(data.draw(st.lists(call_defs, max_size=3))),
    )
    free = [p for p in (*CALL_FILES, "pkg/new") if p not in {f.path for f in files}]
    choices = ["replace", *(["add"] if free else []), *(["delete"] if len(files) > 1 else [])]
    what = data.draw(st.sampled_from(choices))
    if what == "add":
        files.append(attrs.evolve(content, path=data.draw(st.sampled_from(free))))
    else:
        at = data.draw(st.integers(0, len(files) - 1))
        if what == "delete":
            files.pop(at)
        else:
            files[at] = attrs.evolve(content, path=files[at].path)
    return attrs.evolve(program, files=tuple(files))


@given(call_programs, st.data())
def test_relinking_some_files_links_as_resolving_all(program: CallProgram, data: st.DataObject) -> None:
    """Law 5: the partial run's links and reads are the whole run's, call for call."""
    old, new = _State.of(program), _State.of(_edited(program, data))
    changed = frozenset(
        f for f in old.nodes.keys() | new.nodes.keys() if old.nodes.get(f) != new.nodes.get(f)
    )
    resolve = _to_resolve(old, new, changed)
    keep = [f for f in new.nodes if f not in resolve]
    own = [n for f in new.nodes if f in resolve for n in new.nodes[f]]
    everyone = [*(i for i in new.idents if i.file in resolve), *(i for i in old.idents if i.file in keep)]
    heads = [old.head(f) for f in keep if f in old.scopes]
    partial = link_calls(
        CpgGraph(CpgData(nodes=tuple(own), edges=())),
        everyone,
        _ordered({f: new.scopes[f] for f in resolve if f in new.scopes}),
        heads=heads,
        bodies=old.scopes.__getitem__,
    )
    whole, before = new.linked.links, old.linked.links
    for n in own:
        assert partial.links.target(n.id) == whole.target(n.id)
    for f in keep:
        for n in new.nodes[f]:
            assert before.target(n.id) == whole.target(n.id)
    reads, partial_reads, old_reads = dict(new.linked.reads), dict(partial.reads), dict(old.linked.reads)
    for f in new.nodes:
        assert (partial_reads if f in resolve else old_reads).get(f) == reads.get(f)


@given(call_programs, st.data())
def test_rows_outside_the_rebuild_have_the_same_inputs(program: CallProgram, data: st.DataObject) -> None:
    """Law 6: what a row says of other definitions (its callees, its callers, by name, kind,
    place) is as before for every file the partial run does not rebuild."""
    old, new = _State.of(program), _State.of(_edited(program, data))
    changed = frozenset(
        f for f in old.nodes.keys() | new.nodes.keys() if old.nodes.get(f) != new.nodes.get(f)
    )
    resolve = _to_resolve(old, new, changed)
    old_links, new_links = old.links(), new.links()
    was = {i.key: i for i in old.idents}
    now = {i.key: i for i in new.idents}
    refs_changed = {
        k for k in was.keys() | now.keys() if k not in was or k not in now or ref_of(was[k]) != ref_of(now[k])
    }
    before = {f: frozenset(old_links.get(f, ())) for f in resolve if f in old.nodes}
    after = {f: frozenset(new_links.get(f, ())) for f in resolve if f in new.nodes}

    def file_of(key: str) -> str | None:
        found = now.get(key) or was.get(key)
        return found.file if found else None

    rebuild = to_rebuild(changed, before, after, refs_changed, file_of)

    def inputs(state: _State, links: dict[str, tuple[Link, ...]], file: str) -> tuple[object, ...]:
        by_key = {i.key: i for i in state.idents}
        mine = {i.key for i in state.mine(file)}
        callees = sorted((x.call, x.caller, ref_of(by_key[x.target])) for x in links.get(file, ()))
        callers = sorted(
            (x.target, ref_of(by_key[x.caller])) for v in links.values() for x in v if x.target in mine
        )
        return tuple(callees), tuple(callers)

    for f in new.nodes:
        if f not in rebuild:
            assert inputs(old, old_links, f) == inputs(new, new_links, f)


@given(call_programs, st.sampled_from(CALL_FILES), st.sampled_from(("fresh", "other")))
def test_a_new_top_level_name_is_touched(program: CallProgram, path: str, name: str) -> None:
    """Law 3 on code: a file that starts defining a name at its top level touches that name's
    entry, which every file looking the name up across the code base has read."""
    grown = program.with_def(path, CallDef(NodeKind.FUNCTION, name))
    file = path + program.ext
    old, new = _State.of(program), _State.of(grown)
    was, now = old.contribution(file), new.contribution(file)
    if table_key("top", name) not in was.present:
        assert table_key("top", name) in touched(was, now)
