"""Docs linked to code (greploom.core.mentions).

Laws:

1. A link's target is among the targets, and never the section itself.
2. A name two targets answer to links neither: no link is a guess.
3. A name one target answers to (its dotted name or a dotted suffix of it,
   written in the text or in a code span) links it.
4. A section links each target at most once, in order of first mention,
   at most ``MAX_MENTIONS``.
5. Every reverse link is a link read backwards, and a target named by at
   most ``MAX_DOCUMENTED_BY`` sections has them all.
6. A name resolves alike in the tables of every target's suffixes and in those
   kept for the names the sections hold only (what a run builds).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.mentions import (
    MAX_DOCUMENTED_BY,
    MAX_MENTIONS,
    Target,
    _lookup,
    _resolve,
    documented_by,
    named_in,
    resolve_mentions,
)

PARTS = st.sampled_from(("shop", "cart", "Cart", "total", "send_order", "net", "Session", "send", "pricing"))


@st.composite
def targets(draw: st.DrawFn) -> list[Target]:
    dotted = draw(st.lists(st.lists(PARTS, min_size=1, max_size=3).map(".".join), unique=True, max_size=8))
    return [Target(f"function:f.py:{d}", d, "f.py") for d in dotted]


@st.composite
def sections(draw: st.DrawFn, names: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    pool = st.sampled_from(names) if names else st.just("nothing_here")
    count = draw(st.integers(0, 4))
    return [(f"doc:README.md:S{i}", tuple(draw(st.lists(pool, max_size=12)))) for i in range(count)]


def _answering(name: str, found: list[Target]) -> list[Target]:
    return [t for t in found if t.dotted == name or t.dotted.endswith("." + name)]


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Target], list[tuple[str, tuple[str, ...]]]]:
    found = draw(targets())
    names = sorted({".".join(t.dotted.split(".")[i:]) for t in found for i in range(3)} - {""})
    return found, draw(sections(names))


Case = tuple[list[Target], list[tuple[str, tuple[str, ...]]]]


@given(cases())
def test_links_are_to_targets_and_never_guesses(case: Case) -> None:
    """Laws 1, 2 and 3."""
    found, secs = case
    keys = {t.key for t in found}
    links = resolve_mentions(secs, found)
    for key, names in secs:
        linked = links.get(key, ())
        assert set(linked) <= keys and key not in linked
        expected: list[str] = []
        for name in names:
            answering = _answering(name, found)
            if len(answering) == 1 and len(name.replace(".", "")) >= 3 and answering[0].key not in expected:
                expected.append(answering[0].key)
        assert list(linked) == expected[:MAX_MENTIONS]


@given(cases())
def test_each_target_once_in_order(case: Case) -> None:
    """Law 4."""
    found, secs = case
    for linked in resolve_mentions(secs, found).values():
        assert len(set(linked)) == len(linked) <= MAX_MENTIONS


@given(cases())
def test_reverse_links_are_the_links(case: Case) -> None:
    """Law 5."""
    found, secs = case
    links = resolve_mentions(secs, found)
    back = documented_by(links)
    pairs = {(doc, t) for doc, ts in links.items() for t in ts}
    assert {(doc, t) for t, docs in back.items() for doc in docs} <= pairs
    for target in {t for _, t in pairs}:
        naming = {doc for doc, t in pairs if t == target}
        if len(naming) <= MAX_DOCUMENTED_BY:
            assert set(back[target]) == naming


@given(cases())
def test_the_most_focused_docs_come_first(case: Case) -> None:
    """Law 5: a section naming fewer targets is listed before one naming more."""
    found, secs = case
    links = resolve_mentions(secs, found)
    for docs in documented_by(links).values():
        sizes = [len(links[d]) for d in docs]
        assert sizes == sorted(sizes)


@given(
    st.sampled_from(("Session.send", "shop.cart.Cart.add", "send_order", "Cart")),
    st.sampled_from(("{}", "{}()", "{}(item, qty=2)", "x = {}(a)")),
    st.booleans(),
)
def test_names_in_text_and_code_spans(name: str, form: str, in_span: bool) -> None:
    """What a section names: a code span's name or the dotted names of its expression, and in
    prose what cannot be a word; never the pieces of a command-line flag."""
    text = f"Read this: {'it' if in_span else name}() in the docs."
    spans = [form.format(name), "--max-retries"] if in_span else []
    found = named_in(text, spans)
    if in_span and " " in form and "." not in name:
        assert name not in found  # a bare word in an expression is a word
    else:
        assert name in found
    assert not {"Read", "docs", "max", "retries"} & set(found)


_NAMES = st.one_of(
    st.lists(PARTS, min_size=1, max_size=3).map(".".join),
    st.lists(PARTS, min_size=1, max_size=3).map(lambda p: "/".join(p) + ".py"),
    PARTS.map(lambda p: p + "()"),
    PARTS.map(lambda p: "./" + p + ".py"),
)


@given(
    targets(),
    st.lists(PARTS, min_size=1, max_size=3).map(lambda p: "/".join(p) + ".py"),
    st.lists(_NAMES, max_size=6),
)
def test_tables_kept_for_the_names_held_resolve_alike(
    found: list[Target], file: str, names: list[str]
) -> None:
    """Law 6: 19,000 definitions' suffixes cost a run 0.2 s for the few names its docs hold."""
    found = [
        *found,
        Target("module:" + file, file.removesuffix(".py").replace("/", "."), file, is_module=True),
    ]
    whole, kept = _lookup(found), _lookup(found, names)
    for name in names:
        assert _resolve(name, kept) == _resolve(name, whole)
