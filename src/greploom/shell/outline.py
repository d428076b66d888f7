"""Parse source files with tree-sitter into :class:`FileOutline` values: which files, which parser.

Every JavaScript, TypeScript, Go, Rust, C, C++ and Java file is outlined
(treeloom misses whole forms of definition in each); Python files only when
treeloom skipped them (it emits every Python definition of a file it parses).
This module picks the grammar for a file, loads its parser once, and hands the
tree to the walker of its language family: :mod:`greploom.shell.outline_js`,
:mod:`~greploom.shell.outline_python`, :mod:`~greploom.shell.outline_go`,
:mod:`~greploom.shell.outline_rust`, :mod:`~greploom.shell.outline_c` (C and
C++) and :mod:`~greploom.shell.outline_java`.

The grammars are the ones treeloom's ``languages`` extra installs (greploom's
``treeloom`` extra); without them nothing is parsed and the run says so.
tree-sitter recovers from syntax errors, so a file treeloom drops whole for
one error still gives the definitions around it. Positions follow treeloom's,
so the merge (:mod:`greploom.core.supplement`) recognises what it emitted.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from greploom.core.outline import FileOutline
from greploom.shell.outline_c import outline_c
from greploom.shell.outline_go import outline_go
from greploom.shell.outline_java import outline_java
from greploom.shell.outline_js import outline_script
from greploom.shell.outline_python import outline_python
from greploom.shell.outline_rust import outline_rust
from greploom.shell.outline_ts_signatures import parse_typescript

# language -> (grammar module, the function of it that gives the language)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "python": ("tree_sitter_python", "language"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "java": ("tree_sitter_java", "language"),
}
_LANGUAGE_OF = {
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    **dict.fromkeys((".py", ".pyi"), "python"),
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",  # and C++: the parse with fewer errors wins (greploom.shell.outline_c)
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), "cpp"),
    ".java": "java",
}
_SCRIPTS = frozenset(("javascript", "typescript", "tsx"))
_NATIVE_OUTLINES = {"go": outline_go, "rust": outline_rust, "java": outline_java}
# Go, Rust, C, C++ and Java (compiled languages, the ones not scripts).
NATIVE = frozenset(e for e, language in _LANGUAGE_OF.items() if language not in (*_SCRIPTS, "python"))
# Always outlined (treeloom misses whole forms of definition in these languages) ...
OUTLINED = frozenset(e for e, language in _LANGUAGE_OF.items() if language != "python")
# ... and these too, for files treeloom skipped (it emits every definition of a Python file it parses).
RECOVERABLE = frozenset(_LANGUAGE_OF)


def extension(file: str) -> str:
    dot = file.rfind(".")
    return file[dot:].lower() if dot >= 0 else ""


@cache
def _parser(language: str) -> Any | None:
    module_name, function = _GRAMMARS[language]
    try:
        import importlib

        import tree_sitter

        grammar = getattr(importlib.import_module(module_name), function)
        return tree_sitter.Parser(tree_sitter.Language(grammar()))
    except (ImportError, AttributeError, ValueError, TypeError):
        return None


def available(file: str) -> bool:
    """Whether this file's language can be parsed here (its grammar is installed)."""
    language = _LANGUAGE_OF.get(extension(file))
    return language is not None and _parser(language) is not None


def outline_file(file: str, text: bytes) -> FileOutline | None:
    """The outline of one file, or None when its language has no parser here."""
    ext = extension(file)
    language = _LANGUAGE_OF.get(ext)
    parser = _parser(language) if language is not None else None
    if language is None or parser is None:
        return None
    # TypeScript's call signatures the grammar cannot separate are separated for it (not in
    # .tsx, where a line opening with `<` is markup).
    tree = parse_typescript(parser, text) if language == "typescript" else parser.parse(text)
    if language in _SCRIPTS:
        return outline_script(file, tree)
    if language == "python":
        return outline_python(file, tree)
    if language in ("c", "cpp"):
        return outline_c(file, text, tree, ext=ext, language=language, parser_for=_parser)
    return _NATIVE_OUTLINES[language](file, text, tree)
