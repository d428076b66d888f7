"""Reading the source files a CPG names, so the core can recover what treeloom left out.

treeloom records source only for Python and Java (greploom.core.spans). A
CPG built from a directory names its files relative to that directory: given
it (``greploom index DIR`` knows it; a CPG file needs ``--source-root``),
the files are read once each and handed to :func:`greploom.core.spans.with_sources`.

Only files inside the root are read (a CPG naming ``../../x`` reads nothing),
only regular files up to ``MAX_FILE_BYTES``, decoded as UTF-8 with bad bytes
replaced. A file that cannot be read is counted, not fatal: its definitions
keep the summary they had, and the warning says how many. A file whose name
is not UTF-8 is shown escaped (greploom.shell.serde) and opened by the name
on disk the CPG data keeps for it.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from greploom.core.cpg import CpgData
from greploom.core.spans import needs_source, with_sources

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger files are generated or bundled code


@attrs.frozen
class SourceReport:
    """What reading the sources did: definitions recovered, and what could not be."""

    needed: int  # definitions treeloom gave no source for
    recovered: int
    unread_files: int  # files not found, not readable, too large or outside the root
    languages: tuple[str, ...]  # extensions of the files that needed it
    stale: int = 0  # definitions the files no longer hold where the CPG says
    renamed: tuple[str, ...] = ()  # files whose names are not UTF-8, as shown (escaped)

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
        if root is None and self.needed:
            out.append(
                f"{self.needed} definitions in {kinds} files have no source in the CPG (treeloom records "
                "it for Python and Java only); pass --source-root DIR, the directory treeloom built, "
                "to read it from the files"
            )
            return tuple(out)
        if self.unread_files:
            out.append(f"{self.unread_files} {kinds} files named by the CPG could not be read under {root}")
        if self.stale:
            out.append(
                f"{self.stale} definitions are not where the CPG puts them in the files under {root} "
                "(edited since treeloom built it?): rebuild the CPG; they have no source until then"
            )
        unexplained = without - self.stale
        if unexplained > 0 and not self.unread_files:
            out.append(f"{unexplained} of {self.needed} {kinds} definitions have no source: no end was found")
        return tuple(out)


def read_sources(data: CpgData, root: Path | None) -> tuple[CpgData, SourceReport]:
    """The CPG with source recovered from the files under ``root`` (unchanged without one)."""
    candidates = [n for n in data.nodes if needs_source(n)]
    wanted = {n.file for n in candidates}
    bodiless = [n.file for n in candidates if n.attr("source_text") is None]
    needed = len(bodiless)
    languages = tuple(sorted({f[f.rfind(".") :] for f in bodiless}))
    on_disk = dict(data.renamed_files)  # escaped name -> the name that opens the file
    renamed = tuple(sorted(on_disk))
    if root is None or not wanted:
        return data, SourceReport(needed, 0, 0, languages, renamed=renamed)
    base = root.resolve()
    files: dict[str, str] = {}
    for name in sorted(wanted):
        text = _read(base, on_disk.get(name, name))
        if text is not None:
            files[name] = text
    done = with_sources(data, files)
    return done.data, SourceReport(
        needed, done.recovered, len(wanted) - len(files), languages, done.stale, renamed
    )


def _read(base: Path, name: str) -> str | None:
    try:
        path = (base / name).resolve()
        if not path.is_relative_to(base) or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except (OSError, ValueError):  # ValueError: a NUL byte in a hand-written CPG's file name
        return None
