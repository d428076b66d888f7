"""The rows of a source directory's docs and config files, linked to its code.

An index run of a directory reads its Markdown, reStructuredText and config
files (the walk chose them: greploom.shell.source_files) beside the code:

1. each file is read (a secret file never is: the walk skipped it), larger
   ones than its format's bound, binary and minified ones skipped and
   counted;
2. secret-shaped values are masked before anything else sees the text
   (greploom.core.secrets), so no parser, search column, vector or stored
   source ever holds them;
3. its parser finds the headings and code spans (greploom.shell.doc_parse)
   and the core cuts it into sections (greploom.core.doc_sections), each a
   row of kind ``doc`` or ``config`` with its stable key, summary and hash;
4. the names each section holds are linked to the code's definitions and
   the config's sections (greploom.core.mentions): ``mentions`` on the
   section, ``documented_by`` on what it names.

Docs are re-read by every run that is not skipped as unchanged: they are
small beside the code (flask's 81 reStructuredText files: see the note in
``DocReport``), and their hashes keep the embeddings of sections that did
not change, as for code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from greploom.core.doc_files import (
    CONFIG_KIND,
    DOC_KIND,
    DocFormat,
    doc_format,
    doc_kind,
    document_name,
    max_bytes,
)
from greploom.core.doc_sections import (
    SEPARATOR,
    DocSection,
    doc_sections,
    section_keys,
    text_lines,
)
from greploom.core.doc_summary import doc_summary
from greploom.core.expand import NodeRef, StructuralContext
from greploom.core.hashing import content_hash
from greploom.core.mentions import Target, documented_by, named_in, resolve_mentions
from greploom.core.secrets import mask_secrets
from greploom.core.summary import Tier
from greploom.shell.doc_cache import DocParseCache, content_of
from greploom.shell.doc_parse import ParsedDoc, parse_doc
from greploom.shell.schema import NodeRow
from greploom.shell.source_files import read_file, unusual_file
from greploom.shell.sources import listed

# A config file of at most this many lines answers as one section: a 30-line
# docker-compose.yml is one answer, not six pieces of five lines.
WHOLE_CONFIG_LINES = 40


@attrs.frozen
class DocReport:
    """What reading the docs and config did, for the run's notes and warnings."""

    files: int = 0  # read and indexed
    sections: int = 0
    masked: int = 0  # secret-shaped values masked
    too_large: tuple[str, ...] = ()
    unusual: tuple[tuple[str, str], ...] = ()  # (file, why): binary, minified
    refused: tuple[str, ...] = ()  # their parser refused them: indexed whole
    linked: int = 0  # sections that name code or config

    def notes(self, secret_files: int = 0) -> tuple[str, ...]:
        """One line on the docs and config indexed and what was kept out of them."""
        if not self.files and not secret_files and not self.too_large:
            return ()
        parts = [f"indexed {self.sections} sections of {self.files} doc and config files"]
        if self.linked:
            parts.append(f"{self.linked} naming code or config")
        if self.masked:
            parts.append(f"masked {self.masked} secret-shaped values")
        if secret_files:
            parts.append(f"skipped {secret_files} secret files (.env, keys, credentials), unread")
        if self.too_large:
            parts.append(f"skipped {len(self.too_large)} too large: {listed(self.too_large)}")
        return ("; ".join(parts),)

    def warnings(self) -> tuple[str, ...]:
        """Files their parser refused (indexed whole) and files left out unread as unusual."""
        out = []
        if self.refused:
            out.append(
                f"{len(self.refused)} doc or config files did not parse and are indexed whole: "
                + listed(self.refused)
            )
        if self.unusual:
            out.append(
                f"{len(self.unusual)} doc or config files left out: "
                + listed(f"{f} ({why})" for f, why in self.unusual)
            )
        return tuple(out)


@attrs.frozen
class _Section:
    key: str
    kind: str
    file: str
    section: DocSection
    text: str
    spans: tuple[str, ...]


@attrs.frozen
class CodeTarget:
    """A definition of the code, as the docs' links see it (its row's name, kind and place)."""

    key: str
    name: str
    kind: str
    qualname: str
    file: str
    line: int

    @classmethod
    def of_row(cls, row: NodeRow) -> CodeTarget:
        return cls(row.key, row.name, row.kind, row.qualname, row.file, row.line)


def doc_rows(
    root: Path,
    files: Sequence[str],
    tier: Tier,
    code: Sequence[CodeTarget],
    cache: DocParseCache | None = None,
) -> tuple[dict[str, NodeRow], dict[str, str], dict[str, tuple[NodeRef, ...]], DocReport]:
    """The docs' rows, linked both ways to the code's definitions, and their embed texts; and,
    for each definition a doc names, the sections that do (its row's ``documented_by``:
    :func:`documented`). ``cache``: the parses kept beside the index
    (greploom.shell.doc_cache), used and kept up to date."""
    found: list[_Section] = []
    report = _Counts()
    for name in files:
        fmt = doc_format(name)
        if fmt is None:
            continue
        read = _read(root, name, fmt, report)
        if read is not None:
            text, content = read
            parsed = cache.get(name, content) if cache is not None else None
            if parsed is None:
                parsed = parse_doc(fmt, text)
                if cache is not None:
                    cache.put(name, content, parsed)
            found.extend(_sections(name, fmt, text, parsed, report))
    if cache is not None:
        cache.save(files)
    links = _links(found, code)
    back = documented_by(links)
    refs = {s.key: _ref(s) for s in found}
    code_refs = {t.key: NodeRef(t.key, t.name, t.kind, t.file, t.line) for t in code}
    every = {**code_refs, **refs}
    rows: dict[str, NodeRow] = {}
    embed_texts: dict[str, str] = {}
    for s in found:
        summary, embed = doc_summary(s.kind, s.section.name, s.section.path[-1], s.text)
        mentioned = tuple(every[k] for k in links.get(s.key, ()) if k in every)
        named_by = tuple(refs[k] for k in back.get(s.key, ()) if k in refs)
        rows[s.key] = NodeRow(
            key=s.key,
            node_id=s.key,
            kind=s.kind,
            name=s.section.path[-1],
            qualname=s.section.name,
            file=s.file,
            line=s.section.first,
            end_line=s.section.last,
            summary=summary,
            content_hash=content_hash(embed, s.text, tier),
            source=s.text,
            structure=StructuralContext(mentions=mentioned, documented_by=named_by),
        )
        embed_texts[s.key] = embed
    named = {key: tuple(refs[d] for d in docs) for key, docs in back.items() if key in code_refs}
    return rows, embed_texts, named, report.done(len(found), len(links))


def documented(row: NodeRow, by: Mapping[str, tuple[NodeRef, ...]]) -> NodeRow:
    """A code row with the doc sections naming it (:func:`doc_rows`), when there are any."""
    docs = by.get(row.key)
    if docs is None:
        return row
    return attrs.evolve(row, structure=attrs.evolve(row.structure, documented_by=docs))


@attrs.define
class _Counts:
    files: int = 0
    masked: int = 0
    too_large: list[str] = attrs.Factory(list)
    unusual: list[tuple[str, str]] = attrs.Factory(list)
    refused: list[str] = attrs.Factory(list)

    def done(self, sections: int, linked: int) -> DocReport:
        return DocReport(
            self.files,
            sections,
            self.masked,
            tuple(self.too_large),
            tuple(self.unusual),
            tuple(self.refused),
            linked,
        )


def _read(root: Path, name: str, fmt: DocFormat, counts: _Counts) -> tuple[str, str] | None:
    """The file's text with its secret-shaped values masked and the key of its content (for the
    parse cache), or None (counted) when skipped."""
    raw, why = read_file(root, name)
    if raw is None:
        if why is not None:
            counts.too_large.append(name)
        return None
    limit = max_bytes(fmt)
    if len(raw) > limit:
        counts.too_large.append(name)
        return None
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff").replace("\r\n", "\n")
    unusual = unusual_file(text, raw)
    if unusual is not None:
        counts.unusual.append((name, unusual))
        return None
    masked, count = mask_secrets(text, prose=doc_kind(fmt) == DOC_KIND)
    counts.masked += count
    counts.files += 1
    return masked, content_of(raw)


def _sections(name: str, fmt: DocFormat, text: str, parsed: ParsedDoc, counts: _Counts) -> list[_Section]:
    if parsed.refused:
        counts.refused.append(name)
    kind = doc_kind(fmt)
    whole = WHOLE_CONFIG_LINES if kind == CONFIG_KIND else 0
    cut = doc_sections(text, parsed.headings, document_name(name), whole_lines=whole)
    keys = section_keys(kind, name, cut)
    lines = text_lines(text)
    out = []
    for key, section in zip(keys, cut, strict=True):
        body = "\n".join(lines[section.first - 1 : section.last])
        spans = tuple(s for line, s in parsed.code_spans if section.first <= line <= section.last)
        out.append(_Section(key, kind, name, section, body, spans))
    return out


def _ref(s: _Section) -> NodeRef:
    return NodeRef(s.key, s.section.name, s.kind, s.file, s.section.first)


def _links(found: Sequence[_Section], code: Sequence[CodeTarget]) -> dict[str, tuple[str, ...]]:
    """Each section's links to the definitions and config sections it names."""
    if not found:
        return {}  # no docs: nothing to link (19,000 targets cost numpy's run 0.3 s for nothing)
    targets = [Target(t.key, t.qualname, t.file, t.kind == "module") for t in code]
    # A config section is named by its keys' path: `services.worker`, `tool.ruff`.
    targets.extend(
        Target(s.key, ".".join(s.section.path[1:]), s.file)
        for s in found
        if s.kind == CONFIG_KIND and len(s.section.path) > 1
    )
    named = [(s.key, named_in(s.text, s.spans)) for s in found]
    return resolve_mentions(named, targets)


__all__ = ["SEPARATOR", "CodeTarget", "DocReport", "doc_rows", "documented"]
