"""Collections config validation and index roots (greploom.core.collections).

Laws:

1. A valid table reads back as the values written (paths, patterns, embedder settings).
2. Any key a collection does not take is a one-line usage error naming the file and the key.
3. A value of the wrong type is a one-line usage error naming the file and the key.
4. Asking for collections by name keeps the order asked; an unknown name lists the known ones.
5. One path is its own index root; several are indexed from a folder above each of them,
   and the paths within it lead back to the paths.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.collections import KEYS, Collection, index_root, read_collections
from greploom.core.errors import UsageError

PROVIDERS = ("local", "ollama", "openai", "none")
SOURCE = "/proj/greploom.toml"
names = st.text(alphabet="abc-_1", min_size=1, max_size=6).map(lambda s: "c" + s)
patterns = st.lists(st.sampled_from(["*.py", "gen/", "**/gen/**", "/scripts", "*.pb.go"]), max_size=3)
folders = st.lists(
    st.sampled_from(["src", "lib", "deploy", "src/app", "."]), min_size=1, max_size=3, unique=True
)
tables = st.fixed_dictionaries(
    {"paths": folders},
    optional={
        "include": patterns,
        "exclude": patterns,
        "provider": st.sampled_from(PROVIDERS),
        "tier": st.sampled_from(["fast", "enhanced"]),
        "include_vendored": st.booleans(),
        "model": st.sampled_from(["nomic-embed-text", "bge-small"]),
    },
)
configs = st.dictionaries(names, tables, min_size=1, max_size=4)
segments = st.lists(st.sampled_from(["a", "b", "src", "x"]), min_size=0, max_size=3)


def _read(data: dict[str, object]) -> tuple[Collection, ...]:
    return read_collections(data, SOURCE, providers=PROVIDERS).collections


@given(configs)
def test_a_valid_table_reads_back(tables_by_name: dict[str, dict[str, object]]) -> None:
    """What the file says is what the index runs get: nothing dropped, nothing invented."""
    read = {c.name: c for c in _read({"collections": tables_by_name})}
    assert sorted(read) == sorted(tables_by_name)
    for name, table in tables_by_name.items():
        c = read[name]
        assert c.paths == tuple(dict.fromkeys(table["paths"]))  # type: ignore[call-overload]
        assert c.include == tuple(table.get("include", ()))  # type: ignore[call-overload]
        assert c.exclude == tuple(table.get("exclude", ()))  # type: ignore[call-overload]
        assert c.provider == table.get("provider")
        assert c.include_vendored == table.get("include_vendored", False)
        assert c.db_file == f".greploom/{name}.db"


@given(names, st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10))
def test_an_unknown_key_names_file_and_key(name: str, key: str) -> None:
    """A misspelt key (`exlcude`) would silently index what the user meant to leave out."""
    if key in KEYS:
        return
    with pytest.raises(UsageError) as caught:
        _read({"collections": {name: {"path": "src", key: 1}}})
    message = str(caught.value)
    assert SOURCE in message and f"collections.{name}.{key}" in message and "\n" not in message


@given(names, st.sampled_from(["path", "paths", "include", "exclude", "provider", "include_vendored"]))
def test_a_wrong_type_names_file_and_key(name: str, key: str) -> None:
    """A number where a list or a string belongs is reported where it is, on one line."""
    table: dict[str, object] = {"path": "src"} if key != "path" else {}
    table[key] = 42
    with pytest.raises(UsageError) as caught:
        _read({"collections": {name: table}})
    message = str(caught.value)
    assert SOURCE in message and f"collections.{name}.{key}" in message and "\n" not in message


@given(configs, st.data())
def test_named_keeps_the_order_asked(
    tables_by_name: dict[str, dict[str, object]], data: st.DataObject
) -> None:
    """`-c b -c a` asks for b then a; an unknown name is an error listing every known one."""
    read = read_collections({"collections": tables_by_name}, SOURCE, providers=PROVIDERS)
    asked = data.draw(st.lists(st.sampled_from(sorted(tables_by_name)), min_size=1, unique=True))
    assert [c.name for c in read.named(asked)] == asked
    assert read.named(()) == read.collections
    with pytest.raises(UsageError) as caught:
        read.named([*asked, "zz-unknown"])
    assert all(name in str(caught.value) for name in tables_by_name)


@given(st.lists(segments, min_size=1, max_size=4))
def test_index_root_contains_every_path(parts: list[list[str]]) -> None:
    """One index holds all of a collection's paths, and the walk is kept to exactly them."""
    paths = list(dict.fromkeys(PurePosixPath("/proj", *p) for p in parts))
    root_parts, within = index_root([p.parts for p in paths])
    root = PurePosixPath(*root_parts)
    assert all(p == root or root in p.parents for p in paths)
    if len(paths) == 1:
        assert (root, within) == (paths[0], ())
    elif within:
        assert sorted(root / w for w in within) == sorted(paths)
    else:
        assert root in paths  # a path that is the root makes the whole root the collection's
