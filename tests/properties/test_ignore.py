"""Which files an index leaves out (greploom.core.ignore).

Laws:

1. A path no rule names is kept.
2. An ``--exclude`` match is left out whatever the ignore files say.
3. A deeper folder's ignore file wins over a shallower one's, and at one level
   ``.greploomignore`` wins over ``.gitignore``.
4. A ``!`` rule keeps a vendored path; without one, vendored paths are left out
   unless the run includes them.
5. The left-out line counts every file once, and says nothing when nothing is left out.
6. With ``include`` patterns a kept file matches one of them; one matching none is left out
   as not included, while a file an earlier rule leaves out keeps that rule's reason.
7. With ``within`` (a collection's paths), a path outside them is outside, never counted as
   left out by a rule; a folder on the way to one is entered.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.ignore import GITIGNORE, GREPLOOMIGNORE, IgnoreRules, Reason, left_out_line

PLAIN = st.sampled_from(("app", "src", "web", "lib", "pkg", "docs"))  # no rule below names these
FILES = st.sampled_from(("core.py", "main.js", "util.go", "x.rs"))
PATHS = st.builds(lambda dirs, name: "/".join([*dirs, name]), st.lists(PLAIN, max_size=4), FILES)
VENDORED_DIRS = st.sampled_from(("vendor", "third_party", "node_modules", "dist", "build"))


@given(PATHS, st.booleans())
def test_a_path_no_rule_names_is_kept(path: str, include_vendored: bool) -> None:
    """Law 1."""
    rules = IgnoreRules.create(["*.tmp", "gen/"], include_vendored=include_vendored)
    rules = rules.with_file("", GITIGNORE, "# nothing here\n*.log\n/out/\n")
    assert rules.reason(path, is_dir=False) is None
    for depth in range(1, path.count("/") + 1):
        assert rules.reason("/".join(path.split("/")[:depth]), is_dir=True) is None


@given(PATHS)
def test_an_exclude_match_always_wins(path: str) -> None:
    """Law 2."""
    name = path.rsplit("/", 1)[-1]
    rules = IgnoreRules.create([name]).with_file("", GREPLOOMIGNORE, f"!{name}\n")
    assert rules.reason(path, is_dir=False) is Reason.EXCLUDE


@given(st.lists(PLAIN, min_size=1, max_size=3), FILES, st.booleans())
def test_the_deeper_file_wins(dirs: list[str], name: str, deeper_ignores: bool) -> None:
    """Law 3."""
    deep = "/".join(dirs)
    rules = IgnoreRules.create()
    rules = rules.with_file("", GITIGNORE, f"{'!' if deeper_ignores else ''}{name}\n")
    rules = rules.with_file(deep, GITIGNORE, f"{'' if deeper_ignores else '!'}{name}\n")
    found = rules.reason(f"{deep}/{name}", is_dir=False)
    assert found is (Reason.GITIGNORE if deeper_ignores else None)
    level = rules.with_file(deep, GREPLOOMIGNORE, f"{'!' if deeper_ignores else ''}{name}\n")
    assert level.reason(f"{deep}/{name}", is_dir=False) is (None if deeper_ignores else Reason.GREPLOOMIGNORE)


@given(VENDORED_DIRS, st.lists(PLAIN, max_size=2), st.booleans())
def test_vendored_paths_unless_included_or_kept(folder: str, above: list[str], include: bool) -> None:
    """Law 4."""
    path = "/".join([*above, folder])
    rules = IgnoreRules.create(include_vendored=include)
    assert rules.reason(path, is_dir=True) is (None if include else Reason.VENDORED)
    assert rules.reason(f"{path}.py", is_dir=False) is None  # a file named like one is not a folder
    kept = IgnoreRules.create().with_file("", GREPLOOMIGNORE, f"!{folder}/\n")
    assert kept.reason(path, is_dir=True) is None
    assert IgnoreRules.create().reason("/".join([*above, "app.min.js"]), is_dir=False) is Reason.VENDORED


@given(st.dictionaries(st.sampled_from(list(Reason)), st.integers(0, 50)), st.lists(PLAIN, max_size=5))
def test_the_left_out_line_counts_every_file(counts: dict[Reason, int], vendored: list[str]) -> None:
    """Law 5."""
    line = left_out_line(counts, vendored)
    total = sum(counts.values())
    if not total:
        assert line is None
        return
    assert line is not None and line.startswith(f"left out {total} file")
    parts = line.split(": ", 1)[1]
    assert sum(int(part.split(" ", 1)[0]) for part in parts.split(", ") if part[:1].isdigit()) == total
    assert ("--include-vendored" in line) == bool(counts.get(Reason.VENDORED))


@given(PATHS)
def test_include_keeps_only_matching_files(path: str) -> None:
    """Law 6: ``include = ["*.py"]`` indexes Python files alone, and folders are still walked."""
    rules = IgnoreRules.create(["*.rs"], include=["*.py"])
    why = rules.reason(path, is_dir=False)
    if path.endswith(".rs"):
        assert why is Reason.EXCLUDE
    elif path.endswith(".py"):
        assert why is None
    else:
        assert why is Reason.NOT_INCLUDED
    for depth in range(1, path.count("/") + 1):
        assert rules.reason("/".join(path.split("/")[:depth]), is_dir=True) is None


@given(PATHS, st.lists(PLAIN, min_size=1, max_size=2))
def test_within_keeps_the_walk_to_the_paths(path: str, place: list[str]) -> None:
    """Law 7: a collection of `src` and `lib` sees nothing of the folders beside them."""
    within = "/".join(place)
    rules = IgnoreRules.create(within=[within, "zz"])
    inside = path.startswith(within + "/")
    assert (rules.reason(path, is_dir=False) is None) == inside
    if not inside:
        assert rules.reason(path, is_dir=False) is Reason.OUTSIDE
    for depth in range(1, len(place)):
        assert rules.reason("/".join(place[:depth]), is_dir=True) is None
