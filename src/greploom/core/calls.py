"""Which definition each call invokes, decided from what the code says.

treeloom links a ``call`` node to a ``function`` node by bare name across
files: on a large code base ``x.extend(...)`` on a list becomes a "call" of
every ``extend`` method there is, and a constructor call gets no link at all.
This module decides, for every ``call`` node of a graph, which indexed
function or class it invokes, from the call's written name (``self.close``,
``os.path.join``, ``Foo``, ``helper``) and the names the code binds. treeloom's
``calls`` edges are not read: a link needs a reason in the code.

Rules, in order (a name that is not found, or found more than once, links to
nothing):

- ``self.x`` / ``cls.x`` (Python) and ``this.x`` (other languages): method ``x``
  of the enclosing class, else of its bases (the class's ``bases``, resolved
  as names); ``super().x`` (written ``super.x``): ``x`` of the bases only.
  Inside a function defined on an object (an ``owner`` attribute, as in
  ``Router.prototype.handle = function``) the "class" is the set of
  definitions sharing that owner.
- a bare name ``f``: a definition named ``f`` in the innermost scope, then in
  enclosing function scopes (class bodies are not scopes for their methods),
  then at the file's top level; else a name bound there by an import, followed
  into the imported module (re-exports and submodules included; relative
  imports, whose module treeloom loses, are looked up in the importer's
  package); a parameter or variable of that name shadows everything further
  out. Outside Python, a name still unbound that is defined exactly once in
  the whole code base (at some file's top level) links there; in Python a
  name that no scope or import binds cannot reach another file's definition
  (builtins aside), unless the file has a star import.
- ``Name(...)`` where ``Name`` is a class: the class (a constructor call).
- ``a.b``: ``a`` resolved as above; a class gives its member ``b`` (bases
  included), a module its top-level ``b``; a parameter or variable gives the
  member of the one class its annotations / inferred types name (the call's
  ``receiver_inferred_type`` when the variable has none; a type name no scope
  binds, as treeloom writes ``types.ParamType``, stands for the code base's one
  class of that name). A receiver of unknown or conflicting type links to
  nothing, however few definitions bear the name; so does the result of
  another call (``a.b(x).get``).

Among same-named definitions in one scope, ``@overload`` stubs, property
setters and ``.pyi`` stubs beside the source do not count, and a TypeScript
interface gives way to the function of its name; any other tie is ambiguous.

Laws (tests/properties/test_calls.py): a call links to at most one
definition, and only to a function or class; a bare name defined at top level
in two files that the call's file neither defines nor imports is never linked;
renumbering ids or shifting lines never changes which key a call links to;
adding a definition of another name never removes a link; ``self.x`` links
only into the enclosing class or its bases; a call links as it does whichever
other calls are resolved with it (greploom.core.call_memo), and the calls of
some files link the same over their graph and the other files' scopes
(greploom.core.call_scopes) as over the whole graph; a file whose calls read
nothing that changed (:attr:`Linked.reads`) links as before.

The rules for bare and dotted names live here; what they read lives beside
them: :mod:`greploom.core.call_index` (what is defined and bound where),
:mod:`greploom.core.call_modules` (modules and imports),
:mod:`greploom.core.call_classes` (classes, bases and members) and
:mod:`greploom.core.call_targets` (what a name stands for, and picking one
definition among namesakes).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

import attrs

from greploom.core.call_classes import Hierarchy, type_name
from greploom.core.call_index import ScopeIndex
from greploom.core.call_memo import MISS
from greploom.core.call_modules import Imports, ModuleFiles
from greploom.core.call_scopes import FileHead, FileScopes
from greploom.core.call_targets import (
    OUTSIDE,
    UNBOUND,
    Def,
    Instance,
    Module,
    Outside,
    Target,
    Value,
    pick,
)
from greploom.core.cpg import CpgGraph, CpgNode, NodeKind
from greploom.core.keys import NodeIdentity
from greploom.core.summary import call_name

__all__ = ["PY_BUILTINS", "CallLinks", "Linked", "link_calls", "resolve_calls", "type_name"]

# Python names bound without an import; a call to one is never a call into the code base.
# fmt: off
PY_BUILTINS = frozenset((
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate",
    "eval", "exec", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash",
    "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map",
    "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range",
    "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
    "tuple", "type", "vars", "zip", "__import__", "BaseException", "BaseExceptionGroup", "Exception",
    "ExceptionGroup", "ArithmeticError", "AssertionError", "AttributeError", "BlockingIOError",
    "BrokenPipeError", "BufferError", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
    "ConnectionRefusedError", "ConnectionResetError", "EOFError", "EnvironmentError", "FileExistsError",
    "FileNotFoundError", "FloatingPointError", "GeneratorExit", "IOError", "ImportError",
    "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
    "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
    "NotADirectoryError", "NotImplementedError", "OSError", "OverflowError", "PermissionError",
    "ProcessLookupError", "RecursionError", "ReferenceError", "RuntimeError", "StopAsyncIteration",
    "StopIteration", "SyntaxError", "SystemError", "SystemExit", "TabError", "TimeoutError", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "ValueError", "ZeroDivisionError", "Warning", "BytesWarning",
    "DeprecationWarning", "EncodingWarning", "FutureWarning", "ImportWarning", "PendingDeprecationWarning",
    "ResourceWarning", "RuntimeWarning", "SyntaxWarning", "UnicodeWarning", "UserWarning"
))
# fmt: on


@attrs.frozen
class CallLinks:
    """For each linked ``call`` node, the function or class node it invokes.

    ``targets`` holds (call node id, target node id) pairs sorted by call id;
    ``ambiguous`` counts calls left unlinked although a definition of their
    final name exists in the code base, ``external`` those whose name no
    definition bears (builtins, libraries).
    """

    targets: tuple[tuple[str, str], ...] = ()
    ambiguous: int = 0
    external: int = 0
    _by_call: Mapping[str, str] = attrs.field(init=False, eq=False, repr=False)
    _by_target: Mapping[str, tuple[str, ...]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        by_target: dict[str, list[str]] = {}
        for call, target in self.targets:
            by_target.setdefault(target, []).append(call)
        object.__setattr__(self, "_by_call", dict(self.targets))
        object.__setattr__(self, "_by_target", {k: tuple(v) for k, v in by_target.items()})

    @property
    def linked(self) -> int:
        """How many calls are linked."""
        return len(self._by_call)

    def target(self, call_id: str) -> str | None:
        """The node id the call invokes, or None when the code does not say."""
        return self._by_call.get(call_id)

    def calls_to(self, target_id: str) -> tuple[str, ...]:
        """Ids of the calls linked to a definition, in call id order."""
        return self._by_target.get(target_id, ())


def _written_by(linker: weakref.ReferenceType[_Linker]) -> Callable[[list[str], str], Target]:
    """A base class or type name as written in a scope, read by ``linker`` (alive while used)."""

    def written(parts: list[str], scope: str) -> Target:
        live = linker()
        assert live is not None, "the linker outlives its class hierarchy"
        return live.dotted(parts, scope, None, 1)

    return written


class _Linker:
    """The call-site rules, over the indexes built once per graph: bare and dotted names."""

    def __init__(self, index: ScopeIndex) -> None:
        self.graph = index.graph
        self.index = index
        self.memo = index.memo
        self.files = ModuleFiles(index)
        self.imports = Imports(index, self.files)
        # The hierarchy calls back into the linker through a weak reference: a bound method
        # would make a cycle holding the whole graph, which only the cyclic collector's full
        # pass frees (on numpy 1.5M objects, about 1 s of every index run).
        self.classes = Hierarchy(index, _written_by(weakref.ref(self)))

    def bare(self, name: str, scope: str, depth: int = 0) -> Target:
        """What a bare name means in a scope."""
        memo = self.memo
        memo_key = ("bare", scope, name)
        known = memo.get(memo_key, depth, None)  # a cycle through imports ends here
        if known is not MISS:
            return cast(Target, known)
        memo.push(memo_key, depth)
        result = self._bare_uncached(name, scope, depth)
        memo.pop(result)
        return result

    def _bare_uncached(self, name: str, scope: str, depth: int) -> Target:
        index, imports = self.index, self.imports
        current: str | None = scope
        module: str | None = None
        first = True
        seen: set[str] = set()
        while current is not None and current not in seen:
            seen.add(current)
            node = index.node(current)
            if node is None:
                break
            if node.kind is NodeKind.CLASS and not first:
                current = index.enclosing(node)
                continue
            first = False
            found = index.defs_in(current, name)
            if found:
                return pick(index.node, found)
            bindings = index.imports_in(current, name)
            if bindings:
                return imports.from_bindings(bindings, depth)
            if name in index.locals_in(current):
                return Value(current, name)
            if node.kind is NodeKind.MODULE:
                module = current
                break
            current = index.enclosing(node)
        if module is None:
            return None
        python = index.in_python(module)
        stars = index.stars_in(module)
        unresolved_star = False
        for star in stars:
            target = imports.module_target(star, depth + 1)
            if isinstance(target, Module):
                found_star = imports.member(target, name, depth + 1)
                if isinstance(found_star, Def):
                    return found_star
            else:
                unresolved_star = True
        owner = f"{index.qualname(module)}.{name}"
        if index.owns(owner):
            return Instance(None, owner)
        if python and name in PY_BUILTINS:
            return OUTSIDE
        if python and not unresolved_star:
            return UNBOUND
        candidates = index.top_named(name)
        if not candidates:
            return UNBOUND
        return pick(index.node, candidates)

    def dotted(self, parts: list[str], scope: str, call: CpgNode | None, depth: int) -> Target:
        """What a dotted name means in a scope; ``call`` supplies its receiver's type."""
        if self.memo.beyond(depth):
            return None
        head = parts[0]
        python = self.index.in_python(scope)
        rest = parts[1:]
        target: Target
        if head in (("self", "cls") if python else ("this",)):
            inst = self.classes.self_of(scope)
            if inst is None:
                return None
            if not rest:
                return Def(inst.cls) if head == "cls" and inst.cls is not None else None
            target = self.classes.instance_member(inst, rest[0])
            rest = rest[1:]
        elif head == "super" and rest:
            inst = self.classes.self_of(scope)
            if inst is None:
                return None
            target = self.classes.instance_member(inst, rest[0], skip_own=True)
            rest = rest[1:]
        else:
            target = self.bare(head, scope, depth)
        for i, part in enumerate(rest):
            last_receiver = i == len(rest) - 1
            target = self.step(target, part, call if last_receiver else None, depth)
            if target is None or isinstance(target, Outside):
                return target
        return target

    def step(self, target: Target, name: str, call: CpgNode | None, depth: int) -> Target:
        """``target.name``."""
        index, classes = self.index, self.classes
        if target is None or isinstance(target, Outside):
            return target
        if isinstance(target, Module):
            if not target.modules and not self.files.is_package(target.path):
                return OUTSIDE
            return self.imports.member(target, name, depth + 1)
        if isinstance(target, Instance):
            return classes.instance_member(target, name)
        if isinstance(target, Def):
            node = index.node(target.node_id)
            assert node is not None  # found by its id: every target is a node of the graph
            if node.kind is NodeKind.CLASS:
                return classes.instance_member(Instance(node.id, index.qualname(node.id)), name)
            owned = index.owned_named(index.qualname(node.id), name)
            return pick(index.node, owned) if owned else None
        types = index.types_in(target.scope, target.name)
        if not types and call is not None:
            receiver = call.attr("receiver_inferred_type")
            types = {receiver} if isinstance(receiver, str) and receiver else None
        if types:
            inst = classes.instance_of(types, target.scope)
            if isinstance(inst, Instance):
                return classes.instance_member(inst, name)
            return None
        owned = index.owned_named(f"{index.qualname(target.scope)}.{target.name}", name)
        return pick(index.node, owned) if owned else None

    def link(self, call: CpgNode, written: str) -> str | None:
        scope = self.index.enclosing(call)
        if scope is None:
            return None
        target = self.dotted(written.split("."), scope, call, 0)
        if isinstance(target, Def) and target.node_id in self.index.idents:
            return target.node_id
        return None


@attrs.frozen
class Linked:
    """The call links of a graph's calls, and what resolving each file's calls read.

    ``reads``: (file, reads) for each file with a named call: the files and the
    code-base-wide table entries (greploom.core.call_memo.table_key) its calls'
    resolution looked at. ``root``: whether the build root is a package itself,
    and the name it imports itself by (greploom.core.call_modules.ModuleFiles),
    which every absolute import reads.
    """

    links: CallLinks
    reads: tuple[tuple[str, frozenset[str]], ...] = ()
    root: tuple[bool, str | None] = (False, None)


def link_calls(
    graph: CpgGraph,
    identities: Iterable[NodeIdentity],
    scopes: Iterable[FileScopes] | None = None,
    calls: Sequence[CpgNode] | None = None,
    *,
    heads: Iterable[FileHead] = (),
    bodies: Callable[[str], FileScopes] | None = None,
) -> Linked:
    """Link every ``call`` node of a graph to the function or class it invokes, where the code
    says which; ``identities`` (from :func:`greploom.core.keys.node_identities`) are the
    definitions a call may link to, every file's. ``scopes``: the files' scopes (by default
    the graph's); ``heads`` and ``bodies``: files the graph does not hold, taken as lookups
    come to them (greploom.core.call_index.ScopeIndex). ``calls``: those to link, in this
    order (by default every call node of the graph)."""
    index = ScopeIndex(graph, identities, scopes, calls, heads=heads, bodies=bodies)
    linker = _Linker(index)
    memo = index.memo
    read: dict[str, set[str]] = {}
    targets: list[tuple[str, str]] = []
    ambiguous = external = 0
    for call in index.calls:
        written = call_name(call.name)
        if written is None:
            continue
        # ``a.b(x).get`` is tidied to ``get``: the receiver, a call's result, is unknown.
        chained = ")" in call.name
        memo.start()
        target = None if chained else linker.link(call, written)
        read.setdefault(call.file, set()).update(memo.finish())
        if target is not None:
            targets.append((call.id, target))
        elif written.rsplit(".", 1)[-1] in index.names:
            ambiguous += 1
        else:
            external += 1
    return Linked(
        CallLinks(targets=tuple(sorted(targets)), ambiguous=ambiguous, external=external),
        tuple(sorted((file, frozenset(r)) for file, r in read.items())),
        (linker.files.root_package, linker.files.root_name),
    )


def resolve_calls(graph: CpgGraph, identities: Iterable[NodeIdentity]) -> CallLinks:
    """Link every ``call`` node of a graph to the function or class it invokes, where the
    code says which; ``identities`` (from :func:`greploom.core.keys.node_identities`)
    are the definitions a call may link to."""
    return link_calls(graph, identities).links
