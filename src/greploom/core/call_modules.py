"""Which module of the code base an import names, and what a module's top-level names mean.

For :mod:`greploom.core.calls`: :class:`ModuleFiles` finds a module or package
of the code base by dotted path, from the files the graph holds (a build
rooted inside a package, or above its root, included); :class:`Imports`
follows a name bound by an import into the module it names: re-exports,
submodules and star imports; relative imports, whose module treeloom loses,
are looked up in the importer's package; JavaScript and TypeScript imports by
relative path. A name found more than once is ambiguous (None), a module
outside the code base is :data:`~greploom.core.call_targets.OUTSIDE`.

Laws (tests/properties/test_calls.py): a name imported from a file that
defines it once links there (8); no import, no link across files in Python (5).
"""

from __future__ import annotations

import posixpath
from typing import cast

from greploom.core.call_index import Binding, ScopeIndex
from greploom.core.call_memo import MISS, table_key
from greploom.core.call_targets import OUTSIDE, Def, Instance, Module, Outside, Target, Value, pick
from greploom.core.keys import module_path
from greploom.core.summary import is_python

_JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


def dotted_path(file: str) -> str:
    """A file's dotted module path; the empty string for an ``__init__.py`` at the root."""
    return "" if file == "__init__.py" else module_path(file)


class ModuleFiles:
    """The code base's modules and packages by dotted path and file stem."""

    def __init__(self, index: ScopeIndex) -> None:
        self.index = index
        self.by_path: dict[str, list[str]] = {}  # dotted module path -> files
        self.by_stem: dict[str, list[str]] = {}  # file without extension -> files
        self.packages: set[str] = set()  # dotted prefixes of module paths (directories)
        self.suffixes: dict[str, list[str]] = {}  # last component -> module paths and packages
        self.dir_names: dict[tuple[str, str], list[str]] = {}  # (directory, name) -> module nodes binding it
        self.root_package = False  # the build root holds an __init__.py: it is a package itself
        self.root_name: str | None = None  # then the name it imports itself by, if it does
        self._index_files(index.files)

    def _index_files(self, files: set[str]) -> None:
        for file in sorted(files):
            dotted = dotted_path(file)
            self.by_path.setdefault(dotted, []).append(file)
            stem = file.rsplit(".", 1)[0] if "." in file.rsplit("/", 1)[-1] else file
            self.by_stem.setdefault(stem, []).append(file)
            parts = dotted.split(".")
            for i in range(1, len(parts)):
                self.packages.add(".".join(parts[:i]))
        self.root_package = "__init__.py" in files
        self.root_name = self._root_name() if self.root_package else None
        for file, module, name in self.index.bound:
            self.dir_names.setdefault((posixpath.dirname(file), name), []).append(module)
        for path in {*self.by_path, *self.packages}:
            self.suffixes.setdefault(path.rsplit(".", 1)[-1], []).append(path)
        for paths in self.suffixes.values():
            paths.sort()

    def _root_name(self) -> str | None:
        """The name a package built from its own folder imports itself by (``click`` in
        ``from click.core import Context``): the one most absolute imports use for a
        module that exists at the root."""
        counts: dict[str, int] = {}
        for module, file in self.index.imported:
            head, _, rest = module.partition(".")
            if is_python(file) and rest and head not in self.by_path and rest in self.by_path:
                counts[head] = counts.get(head, 0) + 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
            return None
        return ranked[0][0]

    def module(self, path: str) -> Module | None:
        """The module or package at a dotted path, if the code base has it."""
        reads = self.index.memo.reads
        reads.add(table_key("path", path))
        files = self.by_path.get(path)
        if files is None and path not in self.packages:
            return None
        reads.update(files or ())
        ids = tuple(m for f in files or () for m in self.index.file_modules.get(f, ()))
        return Module(path, ids)

    def is_package(self, path: str) -> bool:
        """Whether a dotted path is a directory of modules."""
        self.index.memo.reads.add(table_key("path", path))
        return path in self.packages

    def with_stem(self, stem: str) -> list[str]:
        """The files of a path without its extension."""
        self.index.memo.reads.add(table_key("stem", stem))
        return self.by_stem.get(stem, [])

    def ending(self, last: str) -> list[str]:
        """The module paths and packages whose last component is ``last``."""
        self.index.memo.reads.add(table_key("suffix", last))
        return self.suffixes.get(last, [])

    def has_path(self, path: str) -> bool:
        """Whether a dotted path is a module's."""
        self.index.memo.reads.add(table_key("path", path))
        return path in self.by_path

    def binding_name(self, directory: str, name: str) -> list[str]:
        """The module nodes of a directory's files that bind ``name`` at their top level."""
        self.index.memo.reads.add(table_key("dir", f"{directory}:{name}"))
        return self.dir_names.get((directory, name), [])


class Imports:
    """What names bound by imports mean: followed into the modules of the code base (memoised)."""

    def __init__(self, index: ScopeIndex, files: ModuleFiles) -> None:
        self.index = index
        self.files = files

    def from_bindings(self, bindings: list[Binding], depth: int) -> Target:
        """What a name bound by one or more imports (``try: from a import f`` ...) means."""
        results = [self.binding(b, depth + 1) for b in bindings]
        defs = list(dict.fromkeys(r for r in results if isinstance(r, Def)))
        if len(defs) == 1:
            return defs[0]
        if defs:
            return None
        modules = list(dict.fromkeys(r for r in results if isinstance(r, Module)))
        if len(modules) == 1:
            return modules[0]
        if any(isinstance(r, Outside) for r in results) and not modules:
            return OUTSIDE
        return None

    def binding(self, b: Binding, depth: int) -> Target:
        if self.index.memo.beyond(depth):
            return None
        if b.kind == "member" and not b.module and is_python(b.file):
            return self.relative_member(b.member, b.file, depth)
        target = self.module_target(b, depth)
        if b.kind == "module" or not isinstance(target, Module):
            return target
        found = self.member(target, b.member, depth)
        if found is None and not is_python(b.file):
            return target  # ``import * as util from "./util.js"`` reads as a member ``util``
        return found

    def module_target(self, b: Binding, depth: int) -> Target:
        """The module an import names, as seen from the importing file."""
        files = self.files
        spec = b.module
        if not is_python(b.file):
            if not spec.startswith("."):
                return OUTSIDE
            base = posixpath.normpath(posixpath.join(posixpath.dirname(b.file), spec))
            if base.endswith(_JS_EXTENSIONS):
                base = base.rsplit(".", 1)[0]
            found_files = files.with_stem(base) or files.with_stem(f"{base}/index")
            if not found_files:
                return None
            return files.module(dotted_path(found_files[0]))
        if not spec:
            importer = dotted_path(b.file)
            package = importer if b.file.endswith("__init__.py") else importer.rpartition(".")[0]
            return files.module(package)
        root = files.root_name
        if root is not None and (spec == root or spec.startswith(root + ".")):
            return files.module(spec[len(root) + 1 :]) or OUTSIDE
        # A build rooted inside a package (an __init__.py at the root) has no top-level
        # modules of its own: ``import types`` there is the standard library's.
        exact = None if files.root_package else files.module(spec)
        if exact is not None:
            return exact
        # Built from above the package root (src/pkg/...): a suffix whose prefix is no package.
        roots = [
            p
            for p in files.ending(spec.rsplit(".", 1)[-1])
            if p.endswith("." + spec) and not files.has_path(p[: -len(spec) - 1])
        ]
        if len(roots) == 1:
            return files.module(roots[0])
        if len(roots) > 1:
            return None
        if b.is_from:  # treeloom drops a relative import's dots: try the importer's packages
            parts = dotted_path(b.file).split(".")[:-1]
            while parts:
                found = files.module(".".join([*parts, spec]))
                if found is not None:
                    return found
                parts.pop()
            if files.root_package:
                found = files.module(spec)
                if found is not None:
                    return found
        return OUTSIDE

    def relative_member(self, name: str, importer: str, depth: int) -> Target:
        """``from .somewhere import name``: treeloom keeps neither dots nor module, so the
        name is looked up in the importer's package, then in the packages above it.

        Every sibling file that binds the name at its top level counts (a definition, a
        value, an absolute import; a relative one only passes a sibling's name on): when
        they do not all lead to one definition, the name is ambiguous."""
        memo = self.index.memo
        memo_key = ("relative", importer, name)
        known = memo.get(memo_key, depth, None)
        if known is not MISS:
            return cast(Target, known)
        memo.push(memo_key, depth)
        result = self._relative_uncached(name, importer, depth)
        memo.pop(result)
        return result

    def _relative_uncached(self, name: str, importer: str, depth: int) -> Target:
        index = self.index
        directory = posixpath.dirname(importer)
        while True:
            prefix = f"{directory}/" if directory else ""
            sub = self.files.module(dotted_path(f"{prefix}{name}.py"))
            if sub is not None and sub.path:
                return sub
            results: list[Target] = []
            for mid in dict.fromkeys(self.files.binding_name(directory, name)):
                holder = index.node(mid)
                if holder is None or holder.file == importer:
                    continue
                own = index.defs_in(mid, name)
                if own:
                    results.append(pick(index.node, own))
                    continue
                absolute = [b for b in index.imports_in(mid, name) if b.module]
                if absolute:
                    results.append(self.from_bindings(absolute, depth + 1))
                elif name in index.locals_in(mid) and not index.imports_in(mid, name):
                    results.append(Value(mid, name))
            distinct = list(dict.fromkeys(results))
            if distinct:
                return distinct[0] if len(distinct) == 1 else None
            if not directory:
                return None
            directory = posixpath.dirname(directory)

    def member(self, module: Module, name: str, depth: int) -> Target:
        """A module's top-level ``name``: a definition, a re-export, a submodule or a value."""
        memo = self.index.memo
        memo_key = ("member", module.path, module.modules, name)
        known = memo.get(memo_key, depth, None)
        if known is not MISS:
            return cast(Target, known)
        memo.push(memo_key, depth)
        result = self._member_uncached(module, name, depth)
        memo.pop(result)
        return result

    def _member_uncached(self, module: Module, name: str, depth: int) -> Target:
        if self.index.memo.beyond(depth):
            return None
        index = self.index
        found = [d for mid in module.modules for d in index.defs_in(mid, name)]
        if found:
            return pick(index.node, found)
        for mid in module.modules:
            bindings = index.imports_in(mid, name)
            if bindings:
                return self.from_bindings(bindings, depth + 1)
        sub = self.files.module(f"{module.path}.{name}" if module.path else name)
        if sub is not None:
            return sub
        for mid in module.modules:
            if name in index.locals_in(mid):
                return Value(mid, name)
            owner = f"{index.qualname(mid)}.{name}"
            if index.owns(owner):
                return Instance(None, owner)
        for mid in module.modules:
            for star in index.stars_in(mid):
                target = self.module_target(star, depth + 1)
                if isinstance(target, Module):
                    result = self.member(target, name, depth + 1)
                    if result is not None:
                        return result
        return None
