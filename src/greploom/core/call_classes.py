"""Class hierarchies and their members: what ``self`` is, a class's bases, ``obj.member``.

For :mod:`greploom.core.calls`: ``self``/``cls``/``this`` inside a definition
is an instance of its class, or of the object the function is defined on
(``Router.prototype.handle = function``: the definitions sharing that owner
are its members). A class's bases are its written ``bases`` resolved as names;
a member is looked up in the class, then in its bases depth first, in written
order; an attribute with a written or inferred type (``self.conn: Conn``)
gives an instance of the one class that type names (:func:`type_name`).

Laws (tests/properties/test_calls.py): ``self.x`` links only into the
enclosing class or a class its bases reach, ``super().x`` only into a class
its bases reach (6); a type that names no one class (``list[Foo]``) gives
nothing (7).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from greploom.core.call_index import ScopeIndex
from greploom.core.call_memo import MISS, table_key
from greploom.core.call_targets import UNBOUND, Def, Instance, Target, pick
from greploom.core.cpg import NodeKind

Resolve = Callable[[list[str], str], Target]  # a dotted name as written, in a scope


def type_name(text: str) -> str | None:
    """The one class a type annotation names: ``Foo``, ``"Foo"``, ``Optional[Foo]``,
    ``Foo | None``, ``t.Optional[pkg.Foo]``; None for anything else (``list[Foo]``)."""
    t = text.strip().strip("'\"").strip()
    for _ in range(4):
        head, sep, rest = t.partition("[")
        if not sep or not rest.endswith("]"):
            break
        inner = rest[:-1]
        last = head.rsplit(".", 1)[-1]
        if last == "Optional":
            t = inner.strip().strip("'\"").strip()
        elif last == "Union":
            parts = [p.strip().strip("'\"") for p in inner.split(",") if p.strip() != "None"]
            if len(parts) != 1:
                return None
            t = parts[0]
        else:
            return None
    if "|" in t:
        parts = [p.strip().strip("'\"") for p in t.split("|") if p.strip() != "None"]
        if len(parts) != 1:
            return None
        t = parts[0]
    pieces = t.split(".")
    if all(p and (p[0].isalpha() or p[0] == "_") and (p.replace("_", "a").isalnum()) for p in pieces):
        return t
    return None


def _owner_id(owner: Instance | None) -> str | None:
    if owner is None:
        return None
    return owner.cls if owner.cls is not None else f"owner:{owner.owner}"


class Hierarchy:
    """Classes, the objects functions are defined on, and their members (memoised).

    ``resolve`` reads a base class or a type name where it is written: the
    call-site rules of :mod:`greploom.core.calls`, which in turn use this.
    """

    def __init__(self, index: ScopeIndex, resolve: Resolve) -> None:
        self.index = index
        self._resolve = resolve
        # (class id or owner, attribute) -> types of ``self.x`` bindings; a class's body
        # variables are the index's (read with the class's scope: attr_type).
        self.self_types: dict[tuple[str, str], set[str]] = {}
        index.memo.start()  # what this reads is read again, through attr_type, by the calls it serves
        for scope, attr, typ in index.self_attrs:  # needs ``index.owned`` complete
            key = _owner_id(self.self_of(scope))
            if key is not None:
                self.self_types.setdefault((key, attr), set()).add(typ)
        index.memo.finish()

    def attr_type(self, owner: str, attr: str) -> set[str] | None:
        """The types of an attribute of a class (its id) or of an object (``owner:`` its qualname)."""
        if owner.startswith("owner:"):
            self.index.memo.reads.add(table_key("owned", owner.removeprefix("owner:")))
            return self.self_types.get((owner, attr))
        self.index.read(owner)
        body = self.index.class_attr_types.get((owner, attr))
        own = self.self_types.get((owner, attr))
        if body is None or own is None:
            return body or own
        return body | own

    def self_of(self, def_id: str) -> Instance | None:
        """What ``self``/``this`` is inside a definition: its class, or the object it is defined on."""
        memo = self.index.memo
        memo_key = ("self", def_id)
        known = memo.get(memo_key, 0, None)
        if known is not MISS:
            return cast(Instance | None, known)
        memo.push(memo_key, 0)
        result = self._self_of(def_id)
        memo.pop(result)
        return result

    def _self_of(self, def_id: str) -> Instance | None:
        index = self.index
        result: Instance | None = None
        current: str | None = def_id
        seen: set[str] = set()
        while current is not None and current not in seen:
            seen.add(current)
            node = index.node(current)
            if node is None or node.kind is NodeKind.MODULE:
                break
            if node.kind is NodeKind.CLASS:
                result = Instance(current, index.qualname(current))
                break
            key = index.owner_key(node)
            if key is not None:
                result = Instance(None, key)
                break
            parent = index.enclosing(node)
            parent_node = index.node(parent) if parent is not None else None
            own = index.qualname(current)
            if parent_node is not None and parent_node.kind is NodeKind.MODULE and index.owns(own):
                result = Instance(None, own)  # a constructor function with methods defined on it
                break
            current = parent
        return result

    def bases(self, class_id: str) -> tuple[str, ...]:
        """The classes of the code base a class derives from, in written order."""
        memo = self.index.memo
        memo_key = ("bases", class_id)
        known = memo.get(memo_key, 0, ())
        if known is not MISS:
            return cast(tuple[str, ...], known)
        memo.push(memo_key, 0)
        result = self._bases_uncached(class_id)
        memo.pop(result)
        return result

    def _bases_uncached(self, class_id: str) -> tuple[str, ...]:
        index = self.index
        node = index.node(class_id)
        scope = index.enclosing(node) if node is not None else None
        raw = node.attr("bases") if node is not None else None
        found: list[str] = []
        if scope is not None and isinstance(raw, tuple):
            for text in raw:
                if not isinstance(text, str) or "=" in text:
                    continue
                name = text.split("[", 1)[0].strip()
                if not name:
                    continue
                target = self._resolve(name.split("."), scope)
                if isinstance(target, Def) and _is_class(index, target.node_id):
                    found.append(target.node_id)
        return tuple(dict.fromkeys(found))

    def class_member(self, class_id: str, name: str, *, skip_own: bool = False) -> Target:
        """Member ``name`` of a class, else of its bases (depth first, in written order)."""
        index = self.index
        stack = list(self.bases(class_id)) if skip_own else [class_id]
        seen: set[str] = set()
        while stack and len(seen) < 64:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.add(current)
            own = index.defs_in(current, name)
            if own:
                return pick(index.node, own)
            owned = index.owned_named(index.qualname(current), name)
            if owned:
                return pick(index.node, owned)
            stack = list(self.bases(current)) + stack
        return None

    def instance_member(self, inst: Instance, name: str, *, skip_own: bool = False) -> Target:
        """Member ``name`` of an instance: a method, or an instance of the attribute's type."""
        if inst.cls is not None:
            found = self.class_member(inst.cls, name, skip_own=skip_own)
            if found is not None or skip_own:
                return found
        elif inst.owner is not None and not skip_own:
            owned = self.index.owned_named(inst.owner, name)
            if owned:
                return pick(self.index.node, owned)
        key = _owner_id(inst)
        types = self.attr_type(key, name) if key is not None else None
        scope = inst.cls
        if types and scope is not None:
            return self.instance_of(types, scope)
        return None

    def instance_of(self, types: Iterable[str], scope: str) -> Target:
        """An instance of the one class that the type texts name, resolved from ``scope``."""
        names = set()
        for text in types:
            name = type_name(text)
            if name is None:
                return None
            names.add(name)
        if len(names) != 1:
            return None
        name = names.pop()
        target = self._resolve(name.split("."), scope)
        if target == UNBOUND and "." not in name:
            # treeloom writes ``types.ParamType`` as ``ParamType``: a name no scope binds
            # stands for the code base's one class of that name, if it has exactly one.
            target = pick(self.index.node, self.index.classes_named(name))
        if isinstance(target, Def) and _is_class(self.index, target.node_id):
            return Instance(target.node_id, self.index.qualname(target.node_id))
        return None


def _is_class(index: ScopeIndex, node_id: str) -> bool:
    node = index.node(node_id)
    return node is not None and node.kind is NodeKind.CLASS
