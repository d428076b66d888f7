"""Reading the source files a CPG names, so the core can recover what treeloom left out.

A CPG built from a directory names its files relative to that directory:
given it (``greploom index DIR`` knows it; a CPG file needs ``--source-root``),
the files are read once each, and the core:

- recovers the source and doc comment of definitions treeloom records none
  for (non-Python languages: greploom.core.spans);
- adds the definitions treeloom does not emit, from a tree-sitter parse of
  each JavaScript and TypeScript file (greploom.shell.outline,
  greploom.core.supplement), and, for a directory greploom built, the files
  treeloom skipped (a syntax error drops a file whole) or has no parser for
  (indexed as a module holding the file's text);
- gives every module its own text: its top-level statements
  (greploom.core.module_text).

Only files inside the root are read (a CPG naming ``../../x`` reads nothing),
only regular files up to ``MAX_FILE_BYTES``, decoded as UTF-8 with bad bytes
replaced. A file that cannot be read is counted, not fatal: its definitions
keep the summary they had, and the warning says how many. A file whose name
is not UTF-8 is shown escaped (greploom.shell.serde) and opened by the name
on disk the CPG data keeps for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from greploom.core.cpg import CpgData, NodeKind
from greploom.core.module_text import with_module_text
from greploom.core.outline import FileOutline, Form, FoundDefinition
from greploom.core.sections import SECTION_LINES, Section, sections
from greploom.core.spans import needs_source, with_sources
from greploom.core.supplement import supplement
from greploom.shell.module_names import with_top_names
from greploom.shell.outline import OUTLINED, RECOVERABLE, available, outline_file
from greploom.shell.serde import valid_text
from greploom.shell.source_files import TREELOOM_SUFFIXES, code_files, read_file, suffix, unusual_file


@attrs.frozen
class SourceReport:
    """What reading the sources did: definitions recovered and added, and what could not be."""

    needed: int  # definitions treeloom gave no source for
    recovered: int
    unread_files: int  # files not found, not readable, too large or outside the root
    languages: tuple[str, ...]  # extensions of the files that needed it
    stale: int = 0  # definitions the files no longer hold where the CPG says
    renamed: tuple[str, ...] = ()  # files whose names are not UTF-8, as shown (escaped)
    added: tuple[tuple[str, int], ...] = ()  # (form, count) of definitions added from the parse
    unnamed: int = 0  # treeloom definitions without a name that got the code's
    parsed_files: tuple[tuple[str, int], ...] = ()  # files treeloom skipped: (file, definitions)
    whole_files: tuple[str, ...] = ()  # files no parser reads: one module each
    unparsed_files: tuple[str, ...] = ()  # files treeloom skipped and nothing here outlines
    unusual: tuple[tuple[str, str], ...] = ()  # (file, why) not parsed: binary, minified, too large
    not_utf8: tuple[str, ...] = ()  # files read with their bad bytes replaced
    no_parser: tuple[str, ...] = ()  # extensions that need a grammar this install lacks

    def notes(self) -> tuple[str, ...]:
        """What the run added, for the user to know (not a problem)."""
        parsed = [(form, n) for form, n in self.added if form != Form.SECTION.value]
        total = sum(n for _, n in parsed)
        if not total:
            return ()
        forms = ", ".join(f"{n} {form}" for form, n in sorted(parsed, key=lambda p: -p[1]))
        return (
            f"added {_count(total, 'definition')} treeloom does not emit, from a tree-sitter parse: {forms}",
        )

    def warnings(self, root: Path | None) -> tuple[str, ...]:
        """One-line warnings for the index run (nothing when all went well)."""
        without = self.needed - self.recovered
        kinds = "/".join(self.languages)
        out = []
        if self.renamed:
            count = len(self.renamed)
            shown = ", ".join(self.renamed[:3]) + (f" (+{count - 3} more)" if count > 3 else "")
            out.append(
                f"{count} {'file has a name' if count == 1 else 'files have names'} that "
                f"{'is' if count == 1 else 'are'} not UTF-8, indexed with the bytes escaped: {shown}"
            )
        if self.no_parser:
            out.append(
                f"no tree-sitter grammar is installed for {'/'.join(self.no_parser)}: definitions treeloom "
                "does not emit (functions assigned to properties, object methods, type aliases) are not "
                "indexed; install greploom's `treeloom` extra (pip install 'greploom[treeloom]')"
            )
        if self.parsed_files:
            shown = listed(f"{f} ({_count(n, 'definition')})" for f, n in self.parsed_files)
            out.append(
                f"treeloom skipped {_files(len(self.parsed_files))} (a syntax error drops a file whole); "
                f"indexed from tree-sitter's error-tolerant parse instead: {shown}"
            )
        if self.unparsed_files:
            out.append(
                f"treeloom skipped {_files(len(self.unparsed_files))} (a syntax error drops a file whole); "
                f"each is indexed as one module holding its text: {listed(self.unparsed_files)}"
            )
        if self.whole_files:
            out.append(
                f"no parser reads {_files(len(self.whole_files))} here; each is indexed as a module "
                f"holding its text, a long one in sections of up to {SECTION_LINES} lines: "
                + listed(self.whole_files)
            )
        if self.unusual:
            out.append(
                f"{_files(len(self.unusual))} left out, neither parsed nor indexed: "
                + listed(f"{f} ({why})" for f, why in self.unusual)
            )
        if self.not_utf8:
            out.append(
                f"{_files(len(self.not_utf8))} not valid UTF-8, read with the bad bytes shown as U+FFFD: "
                + listed(self.not_utf8)
            )
        if root is None and self.needed:
            out.append(
                f"{self.needed} definitions in {kinds} files have no source in the CPG (treeloom records "
                "it for Python and Java only); pass --source-root DIR, the directory treeloom built, "
                "to read it from the files"
            )
            return tuple(out)
        if self.unread_files:
            out.append(f"{self.unread_files} files named by the CPG could not be read under {root}")
        if self.stale:
            out.append(
                f"{self.stale} definitions are not where the CPG puts them in the files under {root} "
                "(edited since treeloom built it?): rebuild the CPG; they have no source until then"
            )
        unexplained = without - self.stale
        if unexplained > 0 and not self.unread_files:
            out.append(f"{unexplained} of {self.needed} {kinds} definitions have no source: no end was found")
        return tuple(out)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _files(n: int) -> str:
    return _count(n, "file")


def listed(items: Iterable[str], limit: int = 5) -> str:
    """Up to ``limit`` items, comma-separated, and how many more: a warning's list of files."""
    shown = list(items)
    rest = len(shown) - limit
    return ", ".join(shown[:limit]) + (f" (+{rest} more)" if rest > 0 else "")


def read_sources(
    data: CpgData,
    root: Path | None,
    *,
    walk: bool = False,
    files: Sequence[str] | None = None,
    known_names: Mapping[str, tuple[tuple[str, int], ...]] | None = None,
) -> tuple[CpgData, SourceReport]:
    """The CPG with what the files under ``root`` add to it (unchanged without a root).

    With ``walk`` (what index runs do: the root is the directory treeloom
    built), the code files under it that the CPG lacks are indexed too, each
    from its parse or as a module holding its text: treeloom skips a file
    whole for one syntax error, and has no parser for many languages. The
    code files are ``files`` (the run's walk chose them), else those the
    default ignore rules keep (greploom.shell.source_files.code_files).
    ``known_names``: top-level names of files unchanged since the last run
    (greploom.shell.module_names).
    """
    done, by_file = read_sources_by_file(data, root, walk=walk, files=files, known_names=known_names)
    return done, merge_reports(by_file.values())


def read_sources_by_file(
    data: CpgData,
    root: Path | None,
    *,
    walk: bool = False,
    files: Sequence[str] | None = None,
    known_names: Mapping[str, tuple[tuple[str, int], ...]] | None = None,
) -> tuple[CpgData, dict[str, SourceReport]]:
    """:func:`read_sources`, with the report of each file apart: what a file adds is a function
    of that file alone, so an index run may read some files only and keep the others' reports."""
    candidates = [n for n in data.nodes if needs_source(n)]
    bodiless: dict[str, int] = {}
    for n in candidates:
        if n.attr("source_text") is None:
            bodiless[n.file] = bodiless.get(n.file, 0) + 1
    on_disk = dict(data.renamed_files)  # escaped name -> the name that opens the file
    named = {n.file for n in data.nodes if n.file}
    missing: set[str] = set()
    walked = (files if files is not None else code_files(root)) if walk and root is not None else ()
    for found in walked:
        shown = valid_text(found)  # a name that is not UTF-8 is shown escaped, as the CPG reader does
        if shown not in named:
            missing.add(shown)
            if shown != found:
                on_disk[shown] = found
    facts = _FileFacts(bodiless, set(on_disk))
    if root is None or not (named or missing):
        return data, facts.reports()
    read = _read_all(root.resolve(), sorted(named | missing), on_disk, {n.file for n in candidates})
    facts.read = read
    done = with_sources(data, read.texts)
    outlines, facts.no_parser = _outlines(read.texts, missing)
    added = supplement(done.data, outlines, read.texts)
    new = set(added.new_files)
    per_file: dict[str, int] = {}
    for node in added.data.nodes:
        if node.file in new and node.attr("supplemented") is True and node.kind is not NodeKind.MODULE:
            per_file[node.file] = per_file.get(node.file, 0) + 1
    outlined = {
        o.file for o in outlines if o.calls or any(d.kind is not NodeKind.BLOCK for d in o.definitions)
    }
    facts.recovered = {f: (r, st) for f, r, st in done.per_file}
    facts.added = {f: (a, n) for f, a, n in added.per_file}
    facts.parsed = {f: per_file.get(f, 0) for f in new & outlined}
    facts.whole = new - outlined
    return with_top_names(with_module_text(added.data, read.texts), read.texts, known_names), facts.reports()


@attrs.define
class _FileFacts:
    """What reading the sources did, by file, while it is gathered."""

    bodiless: dict[str, int]  # definitions without source, by file
    renamed: set[str]  # files whose names are not UTF-8, as shown
    read: _Read | None = None
    no_parser: dict[str, str] = attrs.Factory(dict)  # file -> its extension, which no grammar reads
    recovered: dict[str, tuple[int, int]] = attrs.Factory(dict)  # file -> (recovered, stale)
    added: dict[str, tuple[tuple[tuple[str, int], ...], int]] = attrs.Factory(dict)  # (forms, unnamed)
    parsed: dict[str, int] = attrs.Factory(dict)  # skipped by treeloom, outlined: definitions added
    whole: set[str] = attrs.Factory(set)  # skipped by treeloom, nothing outlined: one module

    def reports(self) -> dict[str, SourceReport]:
        read = self.read
        unusual = dict(read.unusual) if read else {}
        not_utf8 = set(read.not_utf8) if read else set()
        unread = read.unread_names if read else frozenset()
        files = {*self.bodiless, *self.renamed, *self.no_parser, *self.recovered, *self.added}
        files |= {*self.parsed, *self.whole, *unusual, *not_utf8, *unread}
        out: dict[str, SourceReport] = {}
        for f in sorted(files):
            forms, unnamed = self.added.get(f, ((), 0))
            recovered, stale = self.recovered.get(f, (0, 0))
            needed = self.bodiless.get(f, 0)
            treeloom = suffix(f) in TREELOOM_SUFFIXES
            whole = f in self.whole
            out[f] = SourceReport(
                needed,
                recovered,
                int(f in unread),
                (f[f.rfind(".") :],) if needed else (),
                stale,
                (f,) if f in self.renamed else (),
                added=forms,
                unnamed=unnamed,
                parsed_files=((f, self.parsed[f]),) if f in self.parsed else (),
                whole_files=(f,) if whole and not treeloom else (),
                unparsed_files=(f,) if whole and treeloom else (),
                unusual=((f, unusual[f]),) if f in unusual else (),
                not_utf8=(f,) if f in not_utf8 else (),
                no_parser=(self.no_parser[f],) if f in self.no_parser else (),
            )
        return out


def merge_reports(reports: Iterable[SourceReport]) -> SourceReport:
    """One report of the reports of each file (in any order)."""
    parts = list(reports)
    forms: dict[str, int] = {}
    for r in parts:
        for form, n in r.added:
            forms[form] = forms.get(form, 0) + n

    def joined(field: str) -> tuple[Any, ...]:
        return tuple(sorted({item for r in parts for item in getattr(r, field)}))

    return SourceReport(
        sum(r.needed for r in parts),
        sum(r.recovered for r in parts),
        sum(r.unread_files for r in parts),
        joined("languages"),
        sum(r.stale for r in parts),
        joined("renamed"),
        added=tuple(sorted(forms.items())),
        unnamed=sum(r.unnamed for r in parts),
        parsed_files=joined("parsed_files"),
        whole_files=joined("whole_files"),
        unparsed_files=joined("unparsed_files"),
        unusual=joined("unusual"),
        not_utf8=joined("not_utf8"),
        no_parser=joined("no_parser"),
    )


@attrs.frozen
class _Read:
    texts: dict[str, str]
    unread_names: frozenset[str]  # files the CPG needs source from that could not be read
    unusual: tuple[tuple[str, str], ...]
    not_utf8: tuple[str, ...]


def _read_all(base: Path, names: list[str], on_disk: dict[str, str], wanted: set[str]) -> _Read:
    texts: dict[str, str] = {}
    unusual: list[tuple[str, str]] = []
    not_utf8: list[str] = []
    unread: set[str] = set()
    for name in names:
        raw, too_big = read_file(base, on_disk.get(name, name))
        if raw is None:
            if too_big is not None:
                unusual.append((name, too_big))
            if name in wanted and too_big is None:
                unread.add(name)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            not_utf8.append(name)
        why = unusual_file(text, raw)
        if why is not None:
            unusual.append((name, why))
            continue
        texts[name] = text
    return _Read(texts, frozenset(unread), tuple(unusual), tuple(n for n in not_utf8 if n in texts))


def _section(section: Section, lines: list[str]) -> FoundDefinition:
    start = (section.first, 0)
    return FoundDefinition(
        kind=NodeKind.BLOCK,
        form=Form.SECTION,
        name=section.title,
        start=start,
        end=(section.last, len(lines[section.last - 1].encode())),
        name_at=start,
        value_at=start,
    )


def _outlines(texts: dict[str, str], missing: set[str]) -> tuple[list[FileOutline], dict[str, str]]:
    """The outline of every file that needs one, and (file, extension) of those no grammar here
    parses."""
    outlines: list[FileOutline] = []
    no_parser: dict[str, str] = {}
    for name in sorted(texts):
        ext = suffix(name)
        wanted = ext in OUTLINED or (ext in RECOVERABLE and name in missing)
        if wanted and not available(name):
            no_parser[name] = ext
        outline = outline_file(name, texts[name].encode("utf-8")) if wanted else None
        if outline is None and name in missing:  # no parser: the module holds the text, in sections
            lines = texts[name].splitlines()
            outline = FileOutline(name, definitions=tuple(_section(s, lines) for s in sections(texts[name])))
        if outline is not None:
            outlines.append(outline)
    return outlines, no_parser
