"""What replaces a deprecated candidate: the definitions its deprecation note names, looked up.

The ranking (greploom.core.ranking) demotes a deprecated candidate below its
successor when that successor is among the candidates; this module reads the
notes (greploom.core.deprecation) and finds the successors in the index.

Where a note is read from:

- the candidate's own rows: a definition's overloads are one definition, and
  the mark sits on the implementation (pydantic's ``validate_arguments``: two
  ``@overload`` stubs, then the ``@deprecated`` one), so every row with the
  candidate's qualified name in its file is read;
- for a candidate in a legacy-looking tree (``v1/``, ``deprecated/``:
  greploom.core.legacy.suspect) that has no note of its own, a namesake
  elsewhere marked deprecated: the old API kept twice (``v1/decorator.py``
  and ``deprecated/decorator.py`` both define ``validate_arguments``; only
  the second says to use ``validate_call``) is replaced by the same
  successor. Only when every such namesake's note names the same successors.
"""

from __future__ import annotations

from greploom.core.deprecation import PREFIX as DEPRECATED
from greploom.core.deprecation import note_of, successor_names
from greploom.core.file_evidence import MODULE_KIND
from greploom.core.legacy import suspect
from greploom.shell.store import IndexStore
from greploom.shell.store_sql import in_chunks

SUCCESSOR_LOOKUPS = 64  # definitions looked up for the successors deprecated candidates name

Described = dict[str, tuple[str, str, str, str]]  # key -> (name, qualname, file, kind)


def successors(store: IndexStore, described: Described) -> dict[str, tuple[str, ...]]:
    """For each candidate its code marks deprecated, the definitions its note names as its
    successors, added to ``described``: those in its own file, else the one definition of
    that name in the code base. Most queries have no deprecated candidate and read nothing
    more than their summaries' mark."""
    notes = _own_notes(store, described)
    notes.update(_namesakes_notes(store, described, set(notes)))
    if not notes:
        return {}
    wanted = sorted({n for names in notes.values() for n in names})
    found = store.describe(store.definitions_named(wanted, SUCCESSOR_LOOKUPS))
    out: dict[str, tuple[str, ...]] = {}
    for key, names in notes.items():
        file = described[key][2]
        for name in names:
            # A module named like the successor is its file, not it (pkg/validate_call.py).
            named = [k for k, d in found.items() if d[0] == name and k != key and d[3] != MODULE_KIND]
            # One definition per qualified name and file: its overloads stand for it once.
            first: dict[tuple[str, str], str] = {}
            for k in sorted(named):
                first.setdefault((found[k][1], found[k][2]), k)
            named = sorted(first.values())
            local = [k for k in named if found[k][2] == file]
            chosen = local or (named if len(named) == 1 else [])
            if chosen:
                out[key] = (*out.get(key, ()), *chosen)
    # Only the successors chosen join the candidates (the others were looked up, not found).
    described.update((k, found[k]) for chosen in out.values() for k in chosen if k not in described)
    return out


def _own_notes(store: IndexStore, described: Described) -> dict[str, tuple[str, ...]]:
    """The successor names each candidate's own deprecation note gives (any of its overloads')."""
    by_place: dict[tuple[str, str], list[str]] = {}
    for key, (_name, qualname, file, _kind) in described.items():
        by_place.setdefault((qualname, file), []).append(key)
    notes: dict[str, tuple[str, ...]] = {}
    for chunk, marks in in_chunks(sorted({file for _qualname, file in by_place})):
        rows = store.conn.execute(  # by file: the index on (file, line) answers it
            f"SELECT qualname, file, summary FROM nodes WHERE file IN ({marks}) "
            "AND instr(summary, ?) > 0 ORDER BY key",
            (*chunk, "\n" + DEPRECATED),
        )
        for qualname, file, summary in rows:
            note = note_of(summary)
            if note is None:
                continue
            for key in by_place.get((qualname, file), ()):
                if names := successor_names(note, described[key][0]):
                    notes[key] = tuple(dict.fromkeys((*notes.get(key, ()), *names)))
    return notes


def _namesakes_notes(
    store: IndexStore, described: Described, noted: set[str]
) -> dict[str, tuple[str, ...]]:
    """For candidates in legacy-looking trees without a note: the successors their deprecated
    namesakes' notes agree on."""
    legacy = {k: d for k, d in described.items() if k not in noted and suspect(d[2])}
    if not legacy:
        return {}
    legacy_names = {d[0] for d in legacy.values()}
    names = sorted(legacy_names)
    marked: dict[str, list[tuple[str, tuple[str, ...]]]] = {}  # name -> (file, successor names)
    for chunk, marks in in_chunks(names):
        rows = store.conn.execute(
            f"SELECT name, file, summary FROM nodes WHERE name COLLATE NOCASE IN ({marks}) "
            "AND instr(summary, ?) > 0 ORDER BY key",
            (*chunk, "\n" + DEPRECATED),
        )
        for name, file, summary in rows:
            note = note_of(summary)
            if note is not None and name in legacy_names:  # the index folds case; names do not
                marked.setdefault(name, []).append((file, successor_names(note, name)))
    out: dict[str, tuple[str, ...]] = {}
    for key, (name, _qualname, file, _kind) in legacy.items():
        others = {names for f, names in marked.get(name, ()) if f != file}
        if len(others) == 1 and (agreed := next(iter(others))):
            out[key] = agreed
    return out
