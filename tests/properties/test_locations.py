"""Places in a query: the definition a ``path:line`` points at.

Laws:

1. A ``path:line`` (or ``path:line:column``) written anywhere in a query is
   found with its line, whatever brackets, quotes, commas or sentence
   punctuation surround it.
2. Python traceback frames come innermost first: Python prints the most
   recent call last.
3. A word with neither ``.`` nor ``/`` is never a place.
4. A path matches only files it is a suffix of, or that are a suffix of
   it, or that agree with it on two trailing components at least; never
   one that agrees on fewer components than another match; and a file
   whose folder differs right above the name is never a match.
5. The located definition contains the line, and no other definition that
   contains it starts later (none is nested inside the one found); a
   module contains every line of its file, so a line in a file always
   locates something when the file's module is indexed.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.locations import Location, Span, contains, innermost, match_files, query_locations

segments = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
file_names = st.tuples(segments, st.sampled_from(("py", "js", "go", "rs", "ts"))).map(".".join)
paths = st.tuples(st.lists(segments, max_size=3), file_names).map(lambda t: "/".join([*t[0], t[1]]))
lines = st.integers(1, 5000)
wrappers = st.sampled_from(
    ("{}", "({})", "[{}]", '"{}"', "{},", "at f ({})", "<{}>", "({})?", "{}.", "`{}`:")
)
prose = st.sampled_from(("", "why does this fail at ", "error in ", "see "))


@given(prose, paths, lines, st.none() | st.integers(1, 120), wrappers)
def test_a_path_and_line_are_found(before: str, path: str, line: int, column: int | None, wrap: str) -> None:
    """``adapters.py:412``, ``(lib/cmd.js:10:3)``, ``"a.py:1",``: the path and the line."""
    written = f"{path}:{line}" + (f":{column}" if column else "")
    found = query_locations(before + wrap.format(written) + " please")
    assert Location(path, line) in found


@given(st.lists(st.tuples(paths, lines), min_size=1, max_size=5, unique=True))
def test_traceback_frames_come_innermost_first(frames: list[tuple[str, int]]) -> None:
    """The last frame printed is where the error happened: it comes first."""
    text = "Traceback (most recent call last):\n" + "".join(
        f'  File "/site-packages/{p}", line {n}, in f\n    call()\n' for p, n in frames
    )
    found = query_locations(text + "ValueError: bad")
    expected = [Location(f"/site-packages/{p}", n) for p, n in reversed(frames)]
    assert list(found[: len(expected)]) == list(dict.fromkeys(expected))


@given(st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_ ]{0,12}", fullmatch=True), max_size=6))
def test_plain_words_are_no_place(words: list[str]) -> None:
    """Words and identifiers without a dot or a slash name no file."""
    assert query_locations(" ".join(words)) == ()


def agree(a: str, b: str) -> int:
    n = 0
    for x, y in zip(reversed(a.split("/")), reversed(b.split("/")), strict=False):
        if x != y:
            break
        n += 1
    return n


def suffix(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


@given(paths, st.lists(paths, min_size=1, max_size=8, unique=True))
def test_a_path_matches_the_files_agreeing_most(path: str, files: list[str]) -> None:
    """Trailing components agree; no match agrees on fewer components than another match."""
    matching = [f for f in files if suffix(path, f) or agree(path, f) >= 2]
    matched = match_files(path, files)
    assert set(matched) <= set(matching)
    if matching:
        best = max(agree(path, f) for f in matching)
        assert matched and all(agree(path, f) == best for f in matched)
    else:
        assert matched == ()


@given(segments, segments, segments, file_names)
def test_another_folder_is_another_file(root: str, package: str, other: str, name: str) -> None:
    """An installed copy's path names the indexed file, not a namesake in another folder."""
    if package != other:
        installed = f"/venv/site-packages/{package}/{name}"
        assert match_files(installed, [name, f"{other}/{name}"]) == (name,)
        assert match_files(installed, [f"{root}/{package}/{name}", f"{other}/{name}"]) == (
            f"{root}/{package}/{name}",
        )
        assert match_files(f"{package}/{name}", [f"{other}/{name}"]) == ()
        assert match_files(name, [f"{package}/{name}", f"{other}/{name}"]) == tuple(
            sorted((f"{package}/{name}", f"{other}/{name}"))
        )


@st.composite
def nested_spans(draw: st.DrawFn) -> list[Span]:
    """A module and definitions that nest (each inside the previous one or after it)."""
    spans = [Span("module", "module", 1, draw(st.none() | st.just(400)))]
    open_ranges = [(1, 400)]
    start = 1
    for i in range(draw(st.integers(0, 8))):
        lo, hi = open_ranges[-1]
        start = draw(st.integers(max(start + 1, lo + 1), hi)) if start + 1 <= hi else None
        if start is None:
            break
        end = draw(st.integers(start, hi))
        kind = draw(st.sampled_from(("function", "class")))
        spans.append(Span(f"d{i}", kind, start, draw(st.just(end) | st.none())))
        if draw(st.booleans()):
            open_ranges.append((start, end))
    return spans


@given(nested_spans(), st.integers(1, 400))
def test_the_located_definition_is_the_innermost_around_the_line(spans: list[Span], line: int) -> None:
    found = innermost(spans, line)
    assert found is not None  # the module is there
    assert contains(found, line)
    if found.kind != "module":
        assert not any(contains(s, line) and s.kind != "module" and s.line > found.line for s in spans)
    else:
        assert not any(contains(s, line) for s in spans if s.kind != "module")


@given(nested_spans())
def test_a_file_alone_locates_its_module(spans: list[Span]) -> None:
    found = innermost(spans, None)
    assert found is not None and found.kind == "module"
