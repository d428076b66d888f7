"""What a real parser finds in one source file, as plain values the core can merge.

treeloom emits function and class nodes for the forms it knows (``function
f()``, ``class A``, methods, ``const f = () => ...``) and is silent on the
others: functions assigned to properties, prototypes and exports, object
literal methods, TypeScript type aliases and abstract classes, exported
constants; and a file with one parse error is dropped whole. The shell
(:mod:`greploom.shell.outline`) parses each file with tree-sitter, whose
error-recovering trees still hold the definitions around a syntax error, and
describes every definition it finds with these values; the core
(:mod:`greploom.core.supplement`) adds the ones treeloom did not emit.

Positions are treeloom's: 1-based lines, 0-based columns in UTF-8 bytes;
``end`` is exclusive in its column, as tree-sitter gives it.
"""

from __future__ import annotations

import enum

import attrs

from greploom.core.cpg import NodeKind

Point = tuple[int, int]  # (line, column): 1-based line, 0-based byte column


class Form(str, enum.Enum):
    """How the code wrote a definition: the unit the run counts and the tests check."""

    DECLARATION = "declaration"  # function f() {}, class A {}, interface I {}
    METHOD = "method"  # a method of a class
    VARIABLE = "variable"  # const f = () => ..., let g = function () {}
    ASSIGNED = "assigned"  # res.send = function send() {}
    PROTOTYPE = "prototype"  # Router.prototype.handle = function () {}
    EXPORTS = "exports"  # exports.compile = ..., module.exports = function () {}
    OBJECT_METHOD = "object method"  # { init() {}, run: function () {} }
    CLASS_FIELD = "class field"  # class A { handle = () => {} }
    WRAPPED = "wrapped"  # const X = make("X", (inst) => {...})
    TYPE = "type"  # type T = ..., enum E {}
    EXPORTED_CONST = "exported const"  # export const VERSION = "1" (or let, var)
    SECTION = "section"  # part of a file no parser reads (greploom.core.sections)
    MACRO = "macro"  # macro_rules! m {...}, #define MAX(a, b) ...


@attrs.frozen
class FoundDefinition:
    """One definition as the parser saw it.

    ``owner`` is the object it is attached to as the developer writes it,
    without ``prototype`` and without a leading ``exports`` / ``module.exports``:
    ``Router.prototype.handle`` has owner ``Router``, ``exports.compile`` none.
    ``start``/``end`` span the whole statement (so the doc comment above it
    and its ``export`` keyword belong to it); ``name_at`` is where its name is
    written and ``value_at`` where the function or class itself starts.
    """

    kind: NodeKind  # FUNCTION, CLASS or VARIABLE; BLOCK for a section of an unparsed file
    form: Form
    name: str
    start: Point
    end: Point
    name_at: Point
    value_at: Point
    owner: str = ""
    parameters: tuple[tuple[str, str | None], ...] = ()  # (name, type annotation)
    is_async: bool = False
    bases: tuple[str, ...] = ()
    # How the code declares a type that is not a class, shown instead of the kind:
    # "interface", "type", "enum", "abstract class" (empty for the rest).
    keyword: str = ""


@attrs.frozen
class FoundCall:
    """A call expression: the callee as written (``res.send``, ``new Foo`` as ``Foo``)."""

    name: str
    at: Point
    args_count: int = 0


@attrs.frozen
class FoundImport:
    """An ES import: ``import { a, b } from "./m.js"`` has module ``./m.js``, names a, b."""

    module: str
    names: tuple[str, ...]
    at: Point
    is_from: bool = True  # Python's ``import m`` is not


@attrs.frozen
class FileOutline:
    """Everything the parser found in one file (calls and imports are used only
    for files the CPG does not hold, where nothing else describes them)."""

    file: str
    definitions: tuple[FoundDefinition, ...] = ()
    calls: tuple[FoundCall, ...] = ()
    imports: tuple[FoundImport, ...] = ()
    errors: int = 0  # syntax errors the parser recovered from


def contains(outer_start: Point, outer_end: Point, at: Point) -> bool:
    """Whether a position lies inside a span (start inclusive, end exclusive)."""
    return outer_start <= at < outer_end
