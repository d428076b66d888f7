"""Doc comments: the comment that touches a definition documents it.

Laws:

1. The comment above a definition is its doc comment only when it touches
   the definition (a blank line detaches it), except a JSDoc ``/** */`` block,
   which may stand one blank line above (the CommonJS style); attribute and
   annotation lines in between do not detach it; a banner of slashes
   (``//////// Parse ////////``) is never documentation.
2. In TypeScript a definition's own overload signatures may stand between it
   and its doc comment, as may a bundler annotation (``/*#__PURE__*/``);
   another name's signatures, a call of the name and an unnamed lookup leave
   the comment to what it touches.
3. The other targets of a chained assignment, each on its own line above the
   definition's (``req.get =``), stand between it and its comment as
   attributes do.
4. A block comment's lines that start with ``*`` belong to it whatever they
   hold: an example saying ``text/*`` does not open the block; and a block
   never reaches past an earlier comment's end.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.doc_comments import doc_comment

DOCS = st.text(alphabet="abc xyz.", min_size=1, max_size=20).filter(str.strip)


@given(DOCS, st.sampled_from(("jsdoc", "block", "lines")), st.booleans(), st.booleans())
def test_doc_comment_touches_its_definition(doc: str, style: str, blank: bool, attribute: bool) -> None:
    """A comment right above (attributes aside) documents; one a blank line away does not,
    unless it is a JSDoc block with nothing between it and the blank line."""
    comment = {"jsdoc": f"/** {doc} */", "block": f"/* {doc} */", "lines": f"// {doc}"}[style]
    lines = ["int before;", comment, *([""] if blank else []), *(["#[inline]"] if attribute else [])]
    text = "\n".join([*lines, "fn f() {}"])
    found = doc_comment(text, len(lines) + 1)
    detached = blank and style != "jsdoc"
    assert found == (None if detached else doc.strip())


SIGNATURE_FORMS = st.sampled_from(
    ("function", "export function", "export declare function", "  public", "  static")
)


@given(DOCS, st.lists(st.tuples(SIGNATURE_FORMS, st.booleans(), st.booleans()), min_size=1, max_size=3))
def test_overload_signatures_stand_between_a_definition_and_its_doc_comment(
    doc: str, overloads: list[tuple[str, bool, bool]]
) -> None:
    """In TypeScript a definition's overload signatures may stand between its doc comment and its
    body (one line each or split over several, ``;`` or not): the comment documents it. Passed
    over only for the definition's own name: another name's signatures, a call of the name and
    an unnamed lookup leave the comment to what it touches."""
    lines = [f"/** {doc} */", "/*#__PURE__*/"]
    for form, split, semicolon in overloads:
        end = ";" if semicolon else ""
        if split:
            lines += [f"{form} observe<T>(", "    value: T,", "    listener: (x: T) => void", f"): void{end}"]
        else:
            lines.append(f"{form} observe(value: string): () => void{end}")
    text = "\n".join([*lines, "export function observe(value) {", "}"])
    line = len(lines) + 1
    assert doc_comment(text, line, "observe") == doc.strip()
    assert doc_comment(text, line, "observer") is None
    assert doc_comment(text, line) is None
    for call in ("observe(value)", "observe(value, { deep: true })", "observe(a ? b : c);",
                 "observe((x: number) => x)", "function observe(a: string): number { return 1 }"):
        text = "\n".join([f"/** {doc} */", call, "function observe(value: number) {", "}"])
        assert doc_comment(text, 3, "observe") is None, call


@given(DOCS)
def test_a_banner_is_not_documentation(title: str) -> None:
    """A run of ``//`` lines holding a banner of slashes documents nothing."""
    text = "\n".join(["//////////////", f"/////// {title} ///////", "//////////////", "fn f() {}"])
    assert doc_comment(text, 4) is None


EXAMPLES = st.sampled_from(("text/*", "req.is('text/*')", "/* nested", "plain"))


@given(DOCS, st.lists(EXAMPLES, max_size=4))
def test_a_jsdoc_line_holding_a_comment_opener_stays_inside_the_block(doc: str, examples: list[str]) -> None:
    """express's req.is documents ``req.is('text/*')``: the block still opens at ``/**``."""
    block = ["/**", f" * {doc}", *(f" *     {e}" for e in examples), " */"]
    lines = [*block, "", "req.is = function is(types) {"]
    found = doc_comment("\n".join(lines), len(lines))
    assert found is not None and found.startswith(doc.strip())


@given(DOCS, st.lists(st.sampled_from(("req.get =", "exports.get =", "  $alias = ")), min_size=1, max_size=3))
def test_a_chained_assignment_shares_the_comment_above_it(doc: str, targets: list[str]) -> None:
    """express documents ``req.get =`` / ``req.header = function header(name) {`` once."""
    lines = [f"/** {doc} */", *targets, "req.header = function header(name) {"]
    assert doc_comment("\n".join(lines), len(lines)) == doc.strip()
    # A statement, not a target, between them: the comment is not the definition's.
    cut = [f"/** {doc} */", "req.get = get;", "req.header = function header(name) {"]
    assert doc_comment("\n".join(cut), len(cut)) is None


@given(DOCS, DOCS)
def test_a_block_opened_after_code_never_reaches_an_earlier_comment(earlier: str, note: str) -> None:
    """C code continued on a line starting with ``*`` then a comment opened mid-line: not
    documentation, and the earlier comment and the code between are not its text."""
    lines = [f"/* {earlier} */", "int x = a", f"    * b; /* {note}", "   by b */", "int f(void) {"]
    assert doc_comment("\n".join(lines), len(lines)) is None
