"""Call links: which definition a call invokes, decided from the code, not from treeloom's edges.

Laws of :func:`greploom.core.calls.resolve_calls`:

1. A call links to at most one definition, a function or a class, bearing the
   name the call ends with.
2. treeloom's ``calls`` edges decide nothing: removing them changes no link.
3. Renumbering ids or shifting lines never changes which key a call links to.
4. Adding a definition of another name never removes a link.
5. A bare name defined at top level in two files, which the calling file
   neither defines nor imports, is never linked.
6. ``self.x`` / ``this.x`` links only into the enclosing class or a class its
   bases reach; ``super().x`` only into a class its bases reach.
7. A receiver whose type nothing names (an unannotated parameter, a
   ``list[...]``) links to nothing, however few methods bear the name.
8. What the code does say is linked: a bare name the file defines once (a
   class for a constructor call), a name imported from a file that defines it
   once, a method of the one class a parameter's annotation names.
9. Every named call is counted once: linked, ambiguous or external.
10. A call links as it does whichever other calls are resolved with it, and in
    whichever order: alone, or after the others in reverse (lookups are
    remembered only where a fresh one answers the same: greploom.core.call_memo).
11. The calls of one file link the same over its graph and the other files'
    scopes (greploom.core.call_scopes: their heads, the rest taken as lookups
    come to them) as over the whole graph, and read the same
    (greploom.core.calls.Linked.reads).
"""

from __future__ import annotations

from pathlib import Path

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.call_scopes import file_scopes, head_of
from greploom.core.calls import CallLinks, link_calls, resolve_calls, type_name
from greploom.core.cpg import CpgData, CpgEdge, CpgGraph, CpgNode, EdgeKind, NodeKind, SourceLocation
from greploom.core.keys import NodeIdentity, node_identities
from greploom.core.summary import call_name
from greploom.shell.serde import load_cpg
from tests.properties.strategies import (
    CALL_FILES,
    CallDef,
    CallProgram,
    build_call_cpg,
    call_programs,
    call_texts,
)

Resolved = tuple[CpgGraph, tuple[NodeIdentity, ...], CallLinks]


def _resolve(data: CpgData) -> Resolved:
    graph = CpgGraph(data)
    idents = node_identities(graph)
    return graph, idents, resolve_calls(graph, idents)


def _calls(graph: CpgGraph) -> list[CpgNode]:
    return [n for n in graph.nodes.values() if n.kind is NodeKind.CALL]


def _described(resolved: Resolved) -> set[tuple[str, str, int, str]]:
    """Links by stable names: (caller key, written name, ordinal, target key)."""
    graph, idents, links = resolved
    keys = {i.node_id: i.key for i in idents}
    seen: dict[tuple[str, str], int] = {}
    out = set()
    for call in _calls(graph):
        owner = graph.enclosing_definition(call)
        caller = keys[owner.id] if owner is not None else ""
        ordinal = seen.get((caller, call.name), 0)
        seen[(caller, call.name)] = ordinal + 1
        target = links.target(call.id)
        if target is not None:
            out.add((caller, call.name, ordinal, keys[target]))
    return out


def _enclosing(graph: CpgGraph, node: CpgNode, kind: NodeKind) -> CpgNode | None:
    return graph.enclosing(node, kind)


@given(call_programs)
def test_a_call_links_to_one_definition_of_its_name(program: CallProgram) -> None:
    """Law 1: one target per call, a function or class, named as the call ends."""
    graph, _, links = _resolve(build_call_cpg(program))
    call_ids = [c for c, _ in links.targets]
    assert len(call_ids) == len(set(call_ids)) == links.linked
    for call_id, target_id in links.targets:
        call, target = graph.node(call_id), graph.node(target_id)
        assert call is not None and call.kind is NodeKind.CALL
        assert target is not None and target.kind in (NodeKind.FUNCTION, NodeKind.CLASS)
        assert target.name == call.name.rsplit(".", 1)[-1]
        assert links.target(call_id) == target_id and call_id in links.calls_to(target_id)


@given(call_programs)
def test_treeloom_edges_decide_nothing(program: CallProgram) -> None:
    """Law 2: the same links with treeloom's bare-name edges and without them."""
    data = build_call_cpg(program)
    bare = attrs.evolve(data, edges=tuple(e for e in data.edges if e.kind is not EdgeKind.CALLS))
    assert _resolve(data)[2].targets == _resolve(bare)[2].targets


@given(
    call_programs, st.integers(1, 10_000), st.dictionaries(st.sampled_from(CALL_FILES), st.integers(1, 50))
)
def test_renumbering_and_shifting_keep_links(
    program: CallProgram, offset: int, shift: dict[str, int]
) -> None:
    """Law 3: links are a function of the code, not of ids or line numbers."""
    shifts = {f"{path}{program.ext}": n for path, n in shift.items()}
    before = _described(_resolve(build_call_cpg(program)))
    after = _described(_resolve(build_call_cpg(program, id_offset=offset, shifts=shifts)))
    assert before == after


@given(call_programs, st.sampled_from((*CALL_FILES, "pkg/new")), st.lists(call_texts, max_size=3))
def test_an_unrelated_definition_removes_no_link(program: CallProgram, path: str, calls: list[str]) -> None:
    """Law 4: a new definition of a name no call uses can only add links (its own calls)."""
    before = _described(_resolve(build_call_cpg(program)))
    grown = program.with_def(path, CallDef(NodeKind.FUNCTION, "unrelated", calls=tuple(calls)))
    after = _described(_resolve(build_call_cpg(grown)))
    assert before <= after


@given(call_programs, st.permutations(CALL_FILES))
def test_a_name_defined_in_two_other_files_is_not_linked(program: CallProgram, files: list[str]) -> None:
    """Law 5: ``dup()`` defined at top level in two files, called from a third that neither
    defines nor imports it: which one would run is not in the code, so neither is linked."""
    first, second, caller = files
    grown = (
        program.with_def(first, CallDef(NodeKind.FUNCTION, "dup"))
        .with_def(second, CallDef(NodeKind.FUNCTION, "dup"))
        .with_def(caller, CallDef(NodeKind.FUNCTION, "caller", calls=("dup",)))
    )
    graph, _, links = _resolve(build_call_cpg(grown))
    dup_calls = [c for c in _calls(graph) if c.name == "dup"]
    assert dup_calls
    assert all(links.target(c.id) is None for c in dup_calls)


def _base_closure(program: CallProgram, name: str) -> set[str]:
    """Class names reachable from a class name through bases (by name, any file)."""
    bases: dict[str, set[str]] = {}
    for f in program.files:
        for d in f.defs:
            if d.kind is NodeKind.CLASS:
                bases.setdefault(d.name, set()).update(d.bases)
    reached: set[str] = set()
    todo = list(bases.get(name, ()))
    while todo:
        current = todo.pop()
        if current not in reached:
            reached.add(current)
            todo.extend(bases.get(current, ()))
    return reached


@given(call_programs)
def test_self_calls_stay_in_the_class_hierarchy(program: CallProgram) -> None:
    """Law 6: ``self.x`` reaches the enclosing class or its bases; ``super().x`` its bases."""
    graph, _, links = _resolve(build_call_cpg(program))
    for call in _calls(graph):
        target_id = links.target(call.id)
        head = call.name.split(".", 1)[0]
        if target_id is None or head not in ("self", "this", "super"):
            continue
        here = _enclosing(graph, call, NodeKind.CLASS)
        target = graph.node(target_id)
        assert here is not None and target is not None
        owner = _enclosing(graph, target, NodeKind.CLASS)
        assert owner is not None, "a self call links to a method"
        reach = _base_closure(program, here.name)
        allowed = reach if head == "super" else {here.name, *reach}
        assert owner.name in allowed


def _param_types(graph: CpgGraph, function: CpgNode) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for p in graph.children(function.id):
        if p.kind is NodeKind.PARAMETER:
            ann = p.attr("type_annotation")
            out[p.name] = ann if isinstance(ann, str) else None
    return out


@given(call_programs)
def test_an_untyped_receiver_links_to_nothing(program: CallProgram) -> None:
    """Law 7: ``x.save()`` with ``x`` of no named class is no call of any ``save``."""
    graph, _, links = _resolve(build_call_cpg(program))
    for call in _calls(graph):
        head = call.name.split(".", 1)[0]
        function = _enclosing(graph, call, NodeKind.FUNCTION)
        if head not in ("x", "item", "n") or function is None:
            continue
        ann = _param_types(graph, function).get(head)
        if ann is None or type_name(ann) is None:
            assert links.target(call.id) is None


def _top(graph: CpgGraph, module: CpgNode, name: str) -> list[CpgNode]:
    return [
        c
        for c in graph.children(module.id)
        if c.name == name and c.kind in (NodeKind.FUNCTION, NodeKind.CLASS)
    ]


def _modules(graph: CpgGraph) -> dict[str, CpgNode]:
    return {n.file: n for n in graph.nodes.values() if n.kind is NodeKind.MODULE}


@given(call_programs)
def test_what_the_code_says_is_linked(program: CallProgram) -> None:
    """Law 8: a name the file defines once, a name imported from a file defining it once,
    and a method of the one class an annotation names are linked there."""
    graph, _, links = _resolve(build_call_cpg(program))
    modules = _modules(graph)
    imports: dict[str, list[CpgNode]] = {}
    for n in graph.nodes.values():
        if n.kind is NodeKind.IMPORT:
            imports.setdefault(n.file, []).append(n)
    for call in _calls(graph):
        module = modules[call.file]
        target = links.target(call.id)
        if "." not in call.name:
            own = _top(graph, module, call.name)
            binds = [i for i in imports.get(call.file, []) if i.attr("names") == (call.name,)]
            if len(own) == 1:
                assert target == own[0].id
            elif not own and len(binds) == 1:
                spec = binds[0].attr("module")
                assert isinstance(spec, str)
                if program.ext == ".py":
                    source = spec.replace(".", "/") + ".py"
                else:
                    import posixpath

                    source = posixpath.normpath(posixpath.join(posixpath.dirname(call.file), spec))
                there = _top(graph, modules[source], call.name) if source in modules else []
                if len(there) == 1:
                    assert target == there[0].id
            continue
        head, member = call.name.split(".", 1)
        function = _enclosing(graph, call, NodeKind.FUNCTION)
        ann = _param_types(graph, function).get(head) if function is not None else None
        named = type_name(ann) if ann is not None else None
        if named is None or program.ext != ".py":
            continue
        classes = _top(graph, module, named)
        if len(classes) == 1 and classes[0].kind is NodeKind.CLASS:
            methods = [c for c in graph.children(classes[0].id) if c.name == member]
            if len(methods) == 1:
                assert target == methods[0].id


@given(call_programs)
def test_every_named_call_is_counted_once(program: CallProgram) -> None:
    """Law 9: linked + ambiguous + external covers the calls that have a name."""
    graph, _, links = _resolve(build_call_cpg(program))
    named = [c for c in _calls(graph) if call_name(c.name) is not None]
    assert links.linked + links.ambiguous + links.external == len(named)


# -- known answers -------------------------------------------------------------


@given(call_programs)
def test_a_call_links_alone_as_with_the_others(program: CallProgram) -> None:
    """Law 10: an index run may resolve the calls of a few files only and keep the others'
    links; that is sound only if no link depends on the calls resolved before it."""
    graph, idents, links = _resolve(build_call_cpg(program))
    calls = _calls(graph)
    backwards = link_calls(graph, idents, calls=calls[::-1]).links
    assert backwards.targets == links.targets
    for call in calls:
        assert link_calls(graph, idents, calls=[call]).links.target(call.id) == links.target(call.id)


def _per_file(program: CallProgram) -> CpgData:
    """The program as a source directory's parts hold it: each file built alone (its own ids)."""
    nodes: list[CpgNode] = []
    edges: list[CpgEdge] = []
    for f in program.files:
        part = build_call_cpg(attrs.evolve(program, files=(f,)))
        nodes.extend(part.nodes)
        edges.extend(part.edges)
    return CpgData(nodes=tuple(nodes), edges=tuple(edges))


@given(call_programs, st.data())
def test_a_files_calls_need_only_the_other_files_scopes(program: CallProgram, data: st.DataObject) -> None:
    """Law 11: a file's calls read the other files through their scopes only, so a run that
    reads one file links its calls as a run that reads them all does."""
    whole = _per_file(program)
    graph = CpgGraph(whole)
    idents = node_identities(graph)
    scopes = file_scopes(graph, idents)
    full = link_calls(graph, idents, list(scopes.values()))
    mine = data.draw(st.sampled_from(sorted(scopes)))
    own = [n for n in whole.nodes if n.file == mine]
    ids = {i.node_id for i in idents}
    heads = [head_of(s, ids) for f, s in scopes.items() if f != mine]
    alone = link_calls(
        CpgGraph(CpgData(nodes=tuple(own), edges=())),
        idents,
        [scopes[mine]],
        heads=heads,
        bodies=scopes.__getitem__,
    )
    for call in (n for n in own if n.kind is NodeKind.CALL):
        assert alone.links.target(call.id) == full.links.target(call.id)
    assert dict(alone.reads).get(mine) == dict(full.reads).get(mine)


def test_a_re_export_cycle_links_whichever_call_comes_first() -> None:
    """Law 10 where a cycle meets it: ``a`` binds ``x`` from ``b`` or ``c`` (try/except),
    ``b`` from ``a``; whether ``d``'s or ``e``'s call is resolved first, both reach ``c.x``."""
    a = _node(NodeKind.MODULE, "a", "a.py", 1, None)
    a_b = _node(NodeKind.IMPORT, "import", "a.py", 2, a.id, module="b", names=["x"], is_from=True)
    a_c = _node(NodeKind.IMPORT, "import", "a.py", 3, a.id, module="c", names=["x"], is_from=True)
    b = _node(NodeKind.MODULE, "b", "b.py", 1, None)
    b_a = _node(NodeKind.IMPORT, "import", "b.py", 2, b.id, module="a", names=["x"], is_from=True)
    c = _node(NodeKind.MODULE, "c", "c.py", 1, None)
    x = _node(NodeKind.FUNCTION, "x", "c.py", 2, c.id)
    d = _node(NodeKind.MODULE, "d", "d.py", 1, None)
    d_b = _node(NodeKind.IMPORT, "import", "d.py", 2, d.id, module="b", names=["x"], is_from=True)
    d_call = _node(NodeKind.CALL, "x", "d.py", 3, d.id)
    e = _node(NodeKind.MODULE, "e", "e.py", 1, None)
    e_a = _node(NodeKind.IMPORT, "import", "e.py", 2, e.id, module="a", names=["x"], is_from=True)
    e_call = _node(NodeKind.CALL, "x", "e.py", 3, e.id)
    graph = CpgGraph(CpgData(nodes=(a, a_b, a_c, b, b_a, c, x, d, d_b, d_call, e, e_a, e_call), edges=()))
    idents = node_identities(graph)
    for order in ([d_call, e_call], [e_call, d_call]):
        links = link_calls(graph, idents, calls=order).links
        assert links.target(d_call.id) == x.id and links.target(e_call.id) == x.id


def _node(kind: NodeKind, name: str, file: str, line: int, scope: str | None, **attrs_: object) -> CpgNode:
    loc = SourceLocation(file, line, 0)
    pairs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in attrs_.items()))
    return CpgNode(f"{kind.value}:{file}:{line}:0:{line}", kind, name, loc, None, scope, pairs)  # type: ignore[arg-type]


def test_a_list_method_is_no_call_of_a_same_named_method() -> None:
    """``items.extend(...)`` on a local of unknown type is not ``Lines.extend``, though it is
    the only ``extend`` there is and treeloom links it."""
    f = "text.py"
    mod = _node(NodeKind.MODULE, "text", f, 1, None)
    lines = _node(NodeKind.CLASS, "Lines", f, 2, mod.id)
    extend = _node(NodeKind.FUNCTION, "extend", f, 3, lines.id)
    append = _node(NodeKind.FUNCTION, "append", f, 5, mod.id)
    items = _node(NodeKind.VARIABLE, "items", f, 6, append.id)
    call = _node(NodeKind.CALL, "items.extend", f, 7, append.id)
    own = _node(NodeKind.CALL, "Lines", f, 8, append.id)
    data = CpgData(
        nodes=(mod, lines, extend, append, items, call, own),
        edges=(CpgEdge(call.id, extend.id, EdgeKind.CALLS),),
    )
    _, _, links = _resolve(data)
    assert links.target(call.id) is None
    assert links.target(own.id) == lines.id  # a constructor call, which treeloom leaves out


def test_the_result_of_a_call_is_an_unknown_receiver() -> None:
    """``this.location(url).get(...)`` reads as ``get`` once tidied; it is no call of the one
    top-level ``get`` there is."""
    mod = _node(NodeKind.MODULE, "app", "app.js", 1, None)
    get = _node(NodeKind.FUNCTION, "get", "app.js", 2, mod.id)
    use = _node(NodeKind.FUNCTION, "use", "app.js", 4, mod.id)
    chained = _node(NodeKind.CALL, "this.location(url).get", "app.js", 5, use.id)
    plain = _node(NodeKind.CALL, "get", "app.js", 6, use.id)
    _, _, links = _resolve(CpgData(nodes=(mod, get, use, chained, plain), edges=()))
    assert links.target(chained.id) is None
    assert links.target(plain.id) == get.id


def test_this_inside_a_function_defined_on_an_object() -> None:
    """``Router.prototype.handle = function () { this.match() }``: the functions sharing the
    owner are the object's methods; a constructor function's ``this`` is the same object."""
    f = "router.js"
    mod = _node(NodeKind.MODULE, "router", f, 1, None)
    ctor = _node(NodeKind.FUNCTION, "Router", f, 2, mod.id)
    init = _node(NodeKind.CALL, "this.match", f, 3, ctor.id)
    handle = _node(NodeKind.FUNCTION, "handle", f, 5, mod.id, owner="Router.prototype")
    match_call = _node(NodeKind.CALL, "this.match", f, 6, handle.id)
    missing = _node(NodeKind.CALL, "this.nowhere", f, 7, handle.id)
    match = _node(NodeKind.FUNCTION, "match", f, 9, mod.id, owner="Router")
    other = _node(NodeKind.FUNCTION, "match", f, 11, mod.id, owner="Layer")
    _, _, links = _resolve(
        CpgData(nodes=(mod, ctor, init, handle, match_call, missing, match, other), edges=())
    )
    assert links.target(match_call.id) == match.id
    assert links.target(init.id) == match.id
    assert links.target(missing.id) is None


def test_the_python_sample(pyshop_cpg: Path) -> None:
    """On a real treeloom CPG: ``super().total`` reaches the base class, an imported name its
    module, a same-file name its definition; a list's ``append`` nothing."""
    graph, idents, links = _resolve(load_cpg(pyshop_cpg))
    qualnames = {i.node_id: i.qualname for i in idents}
    found = {
        (c.file, c.line, c.name): qualnames.get(links.target(c.id) or "")
        for c in _calls(graph)
        if call_name(c.name) is not None
    }
    assert found[("shop/cart.py", 41, "super.total")] == "shop.cart.Cart.total"
    assert found[("shop/cart.py", 30, "total_price")] == "shop.pricing.total_price"
    assert found[("shop/net.py", 19, "backoff_delay")] == "shop.net.backoff_delay"
    assert found[("shop/cart.py", 26, "self.items.append")] is None
    assert found[("shop/net.py", 19, "time.sleep")] is None


def test_type_names() -> None:
    """The one class an annotation names, through Optional and unions with None."""
    assert type_name("Cart") == "Cart"
    assert type_name("'pkg.Cart'") == "pkg.Cart"
    assert type_name("t.Optional[Cart]") == "Cart"
    assert type_name("Cart | None") == "Cart"
    assert type_name("Union[None, Cart]") == "Cart"
    assert type_name("list[Cart]") is None
    assert type_name("Cart | Store") is None
