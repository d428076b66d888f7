"""Source spans of definitions treeloom gives no source for (doc comments: test_doc_comments.py).

Laws:

1. A definition ends at the brace closing its body, whatever braces its
   strings, comments, template literals, regex literals, raw strings, char
   literals and nested blocks hold, in every language family.
2. On any text the end is None or lies after the start and within the text;
   nothing loops or raises.
3. The recovered source starts with the definition's whole first line and
   ends with the line of its closing brace; its last line is the end line.
4. Python nodes, nodes of files not given and nodes that already have source
   keep it as it is.
5. A definition whose name is not at its line in the file (the file was
   edited after the CPG was built) gets no source, and is counted as stale.
"""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from greploom.core.cpg import CpgData, CpgNode, NodeKind, SourceLocation
from greploom.core.spans import definition_end, recover, with_sources

FAMILIES = ("js", "go", "rust", "c")
HEADERS = {
    "js": "function f(a, b = { x: 1 }) ",
    "go": "func (r *T) F(xs []int) (int, error) ",
    "rust": "pub fn f<'a>(x: &'a [i32]) -> Option<&'a i32> ",
    "c": "static int f(const char *s, int n)\n",
}
# Characters that would end a body if they were read as code.
TRAPS = st.text(alphabet="{}()[];/*'\"`$\\ab ", max_size=12)
WORDS = st.sampled_from(("x = 1;", "call(a, [b]);", "if (a) { b(); }", "a / b;", "t -= 2;"))


def _quoted(content: str, quote: str) -> str:
    return quote + content.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _uncomment(text: str, *, nested: bool) -> str:
    while "*/" in text or (nested and "/*" in text):
        text = text.replace("*/", "").replace("/*", "" if nested else "/*")
    return text


def _inert(family: str) -> st.SearchStrategy[str]:
    """Code that holds braces only inside literals and comments, for one family."""
    common = [
        WORDS,
        TRAPS.map(lambda t: _quoted(t, '"') + ";"),
        TRAPS.map(lambda t: "// " + t + "\n"),
        # Rust nests block comments: there a "/*" inside one opens another.
        TRAPS.map(lambda t: "/* " + _uncomment(t, nested=family == "rust") + " */"),
    ]
    specific = {
        "js": [
            TRAPS.map(lambda t: _quoted(t, "'") + ";"),
            TRAPS.map(
                lambda t: "`" + t.replace("\\", "").replace("`", "").replace("$", "") + "${a + {}.b}`;"
            ),
            st.just("r = /[{}]+\\/}/g;"),
            st.just("g = (v) => ({ v });"),
        ],
        "go": [
            TRAPS.map(lambda t: "`" + t.replace("`", "") + "`"),
            st.sampled_from(("'}'", "'{'", "'\\''")),
        ],
        "rust": [
            st.sampled_from(("'}'", "'{'", "'\\''", "'\\u{7d}'", "&'a x", "<'b>")),
            TRAPS.map(lambda t: 'r#"' + t.replace('"#', "") + '"#'),
            st.just("/* outer /* inner } */ still comment { */"),
        ],
        "c": [
            st.sampled_from(("'}'", "'{'", "'\\''")),
            TRAPS.map(lambda t: _quoted(t, "'")),
            # A C++ raw string: quotes and backslashes inside are not escapes.
            TRAPS.map(lambda t: 'R"x(' + t.replace(")x", "") + '"}\\)x";'),
        ],
    }[family]
    return st.one_of(*common, *specific)


def _body(family: str) -> st.SearchStrategy[str]:
    inert = _inert(family)
    return st.recursive(
        st.lists(inert, max_size=4).map(" ".join),
        lambda inner: st.lists(st.one_of(inert, inner.map(lambda b: "{ " + b + " }")), max_size=4).map(
            "\n".join
        ),
        max_leaves=12,
    )


@st.composite
def definitions(draw: st.DrawFn) -> tuple[str, str, int]:
    """(family, text, offset just past the body) of one definition followed by more code."""
    family = draw(st.sampled_from(FAMILIES))
    text = HEADERS[family] + "{\n" + draw(_body(family)) + "\n}"
    return family, text + draw(st.sampled_from(("", "\n", "\n\nint g() { }", " } }\n{"))), len(text)


@given(definitions())
def test_the_closing_brace_ends_a_definition(case: tuple[str, str, int]) -> None:
    """Braces in literals, comments and nested blocks never move the end."""
    family, text, end = case
    assert definition_end(text, 0, family) == end


@given(st.sampled_from(FAMILIES), st.text(alphabet="{}()[];/*'\"`$\\\nabr#=> ", max_size=60), st.data())
def test_any_text_ends_within_it_or_not_at_all(family: str, text: str, data: st.DataObject) -> None:
    """Garbage in: an end inside the text, or None; never an exception or a loop."""
    start = data.draw(st.integers(0, len(text)))
    end = definition_end(text, start, family)
    assert end is None or start < end <= len(text)


@given(definitions(), st.integers(0, 3), st.sampled_from(("", "    ", "export ")))
def test_source_is_whole_lines_from_start_to_end(case: tuple[str, str, int], above: int, indent: str) -> None:
    """The source begins with the definition's line and its last line is the end line."""
    family, text, end = case
    whole = "x;\n" * above + indent + text
    got = recover(whole, above + 1, len(indent.encode()), family)
    assert got is not None
    assert got.end_line == above + 1 + text[:end].count("\n")
    assert got.source == "\n".join(whole.split("\n")[above : got.end_line])


FILES_OF = st.sampled_from(("a.py", "b.js", "c.go", "d.java", "e.ts"))


@given(st.lists(st.tuples(FILES_OF, st.booleans()), max_size=6), st.sets(FILES_OF))
def test_python_given_and_other_files_are_left_alone(
    spec: list[tuple[str, bool]], given_files: set[str]
) -> None:
    """Only bodiless definitions in brace languages whose file is given change."""
    nodes = tuple(
        CpgNode(
            id=f"function:{file}:{i}",
            kind=NodeKind.FUNCTION,
            name="f",
            location=SourceLocation(file, 1, 0),
            attrs=(("source_text", "kept"),) if has_source else (),
        )
        for i, (file, has_source) in enumerate(spec)
    )
    files = dict.fromkeys(given_files, "function f() { return 1; }\n")
    done = with_sources(CpgData(nodes=nodes, edges=()), files)
    out, recovered = done.data, done.recovered
    assert len(out.nodes) == len(nodes) and done.stale == 0
    changed = 0
    for before, after in zip(nodes, out.nodes, strict=True):
        eligible = before.file in given_files and not before.file.endswith(".py")
        if not eligible:
            assert after == before
        elif before.attr("source_text") == "kept":
            assert after.attr("source_text") == "kept" and after.end_location == before.end_location
        else:
            changed += 1
            assert after.attr("source_text") == "function f() { return 1; }" and after.end_line == 1
        assert attrs.evolve(after, attrs=before.attrs, end_location=before.end_location) == before
    assert recovered == changed


@given(st.integers(0, 4), st.sampled_from(("b.js", "c.go", "d.java")))
def test_a_file_edited_since_the_cpg_gives_no_source(shift: int, file: str) -> None:
    """The CPG says line 1; lines inserted above move the definition: its source is not taken."""
    node = CpgNode(
        id="function:x:1", kind=NodeKind.FUNCTION, name="handler", location=SourceLocation(file, 1, 0)
    )
    text = "// a new header line\n" * shift + "function handler() { return 1; }\n"
    done = with_sources(CpgData(nodes=(node,), edges=()), {file: text})
    if shift == 0:
        assert done.stale == 0 and done.data.nodes[0].attr("source_text") is not None
    elif shift > 2:
        assert done.stale == 1 and done.data.nodes == (node,)
