"""The call graph as the index stores it: each definition's callees, and who lists it as a caller.

Read for call paths (greploom.shell.tracing) straight from the ``structure``
column (the JSON of a :class:`~greploom.core.expand.StructuralContext`,
``greploom.shell.serde.structure_to_json``) with SQLite's JSON functions, so
a search over thousands of definitions reads their callee keys alone, not
their code or the rest of their context.
"""

from __future__ import annotations

from collections.abc import Iterable

import apsw

from greploom.shell.store_sql import in_chunks


def callees(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, list[str]]:
    """The stored callees of each key given, in stored order (a key without callees is absent)."""
    wanted = sorted(set(keys))
    out: dict[str, list[str]] = {}
    for chunk, marks in in_chunks(wanted):
        for key, callee in conn.execute(
            "SELECT n.key, json_extract(c.value, '$.key') "
            "FROM nodes n, json_each(n.structure, '$.callees') c "
            f"WHERE n.key IN ({marks}) ORDER BY n.key, c.id",
            chunk,
        ):
            if isinstance(callee, str):
                out.setdefault(str(key), []).append(callee)
    return out


def listed_as_caller(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, list[str]]:
    """For each key given, the keys whose stored callers list it: its callees as their side of
    each edge says (a key no one lists is absent).

    One scan of every row per call; asked only for definitions whose own callee
    lists are at their cap (greploom.core.context.MAX_NEIGHBOURS), where they
    may have left some out, a breadth-first level of the search at a time.
    """
    wanted = sorted(set(keys))
    out: dict[str, list[str]] = {}
    for chunk, marks in in_chunks(wanted):
        for caller, found in conn.execute(
            "SELECT DISTINCT json_extract(c.value, '$.key') AS caller, n.key "
            "FROM nodes n, json_each(n.structure, '$.callers') c "
            f"WHERE caller IN ({marks}) ORDER BY caller, n.key",
            chunk,
        ):
            out.setdefault(str(caller), []).append(str(found))
    return out


def calls_among(conn: apsw.Connection, keys: Iterable[str]) -> dict[str, list[str]]:
    """The calls between the given keys, each caller's callees sorted (a key calling none absent).

    An edge counts when either end stores it: the caller in its callees or
    the callee in its callers. Both lists are capped (MAX_NEIGHBOURS), so a
    definition calling more than the cap keeps, among the keys, the edges
    its callees remember. Two reads over the keys' own rows, a search's
    candidates at a time.
    """
    wanted = sorted(set(keys))
    among = set(wanted)
    edges: set[tuple[str, str]] = set()
    for chunk, marks in in_chunks(wanted):
        for side, reverse in (("callees", False), ("callers", True)):
            for key, other in conn.execute(
                "SELECT n.key, json_extract(c.value, '$.key') "
                f"FROM nodes n, json_each(n.structure, '$.{side}') c WHERE n.key IN ({marks})",
                chunk,
            ):
                if isinstance(other, str) and other in among and other != key:
                    edges.add((other, str(key)) if reverse else (str(key), other))
    out: dict[str, list[str]] = {}
    for caller, callee in sorted(edges):
        out.setdefault(caller, []).append(callee)
    return out
