"""Stable node keys.

Laws:

1. Keys are unique within one CPG.
2. Renumbering treeloom's ids and shifting lines leaves every key unchanged.
3. Renaming a definition changes its key.
4. Moving a file's code to another file changes the keys of its definitions.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgGraph
from greploom.core.keys import node_identities
from tests.properties.strategies import FILES, Program, build_cpg, def_paths, programs


def _keys(program: Program, id_offset: int = 0, shifts: dict[str, int] | None = None) -> list[str]:
    return [i.key for i in node_identities(CpgGraph(build_cpg(program, id_offset, shifts)))]


@given(programs)
def test_keys_are_unique(program: Program) -> None:
    """Two nodes never share a key, or the index would overwrite one with the other."""
    keys = _keys(program)
    assert len(keys) == len(set(keys))


@given(programs, st.integers(1, 10_000), st.dictionaries(st.sampled_from(FILES), st.integers(0, 50)))
def test_keys_survive_renumbering_and_line_shifts(
    program: Program, offset: int, shifts: dict[str, int]
) -> None:
    """Inserting a line renumbers ids everywhere; the keys must not notice (metamorphic)."""
    assert _keys(program) == _keys(program, offset, shifts)


@given(programs, st.data())
def test_renaming_changes_the_key(program: Program, data: st.DataObject) -> None:
    """A renamed definition is a different definition to the index."""
    paths = def_paths(program)
    if not paths:
        return
    path = data.draw(st.sampled_from(paths))
    before = set(_keys(program))
    after = set(_keys(program.rename(path, "renamed_fn")))
    assert after != before
    assert any("renamed_fn" in k for k in after - before)


@given(programs)
def test_moving_to_another_file_changes_keys(program: Program) -> None:
    """The file is part of a key: code moved elsewhere is new code to the index."""
    moved = Program(tuple((f"moved/{name}", defs) for name, defs in program.files))
    assert set(_keys(program)).isdisjoint(_keys(moved))
