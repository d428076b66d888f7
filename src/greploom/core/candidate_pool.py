"""Which candidates a question is ranked over, when non-product code crowds a backend's list.

The ranking demotes tests, examples, doc sections and the like when a question does not
ask for them (greploom.core.ranking), but it can only reorder the candidates
it is given: on starlette, 9 of the 13 candidates for "limit how many files
and fields a multipart form may contain" were tests, and the parser that
does it was not among them. When more than :data:`CROWDED` of a backend's
list is tests or examples, the shell fetches that backend deeper and :func:`deepen`
keeps the first ``limit`` product candidates in their order, plus the
non-product ones the shallow list held (still demoted, never dropped).

Old code crowds a list the same way: on pydantic, whose ``v1/`` and ``deprecated/`` trees
hold near copies of the 1.x API, the ten vector candidates for "decorator to check one
field of a model with a custom function" were all copies in those trees, and the current
decorator was not among them. Code in a legacy tree (greploom.core.legacy: ``trees`` are
those the caller read from the files it knows) counts as not asked for unless the question
names the tree or asks about old code (:data:`greploom.core.legacy.ASKS_FOR_OLD`).

Laws (tests/properties/test_candidate_pool.py): a list is crowded only when
tests, examples or old code the question does not ask for are more than CROWDED of it;
deepening keeps the backend's order, keeps every candidate of the shallow
list, adds only product code, and adds no more than ``limit`` of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from greploom.core.code_categories import asked_for, candidate_category
from greploom.core.legacy import asks_for_old, names_tree, suspect, trees_of

CROWDED = 0.5  # share of a list that is not asked for (tests, docs, old code...) before it is read deeper
DEEPER = 3  # how much deeper it is asked
# Tests and examples only: they are other code about the same names. A compat module
# or a stub is the product's own (click's _compat.py answers its stream questions:
# deepening past it cost click 0.019 NDCG@10, attrs' .pyi stubs 0.010).
# Doc and config sections too (kinds doc, config: greploom.core.doc_files): a question in
# words matches prose well, and ten of a backend's ten candidates can be a guide's sections.
CROWDING = frozenset({"test", "example", "doc", "config"})


def non_product(
    file: str, words: frozenset[str], kind: str = "", trees: frozenset[str] = frozenset()
) -> bool:
    """Whether a definition (of ``kind``, in ``file``) is a test, an example or a doc section the
    question does not ask for, or lies in one of the legacy ``trees`` the question neither names
    nor asks about."""
    category = candidate_category(file, kind)
    if category in CROWDING and not asked_for(category, words):
        return True
    mine = trees_of(file, trees) if trees else ()
    return bool(mine) and not names_tree(words, mine) and not asks_for_old(words)


def crowded(
    files: Sequence[str],
    words: frozenset[str],
    kinds: Sequence[str] = (),
    trees: frozenset[str] = frozenset(),
) -> bool:
    """Whether more than :data:`CROWDED` of a list's files are non-product code not asked for.
    ``kinds``: the candidates' kinds, in the order of ``files`` (none: code); ``trees``: the
    legacy trees known (greploom.core.legacy.legacy_trees)."""
    return _over(files, kinds, lambda f, k: non_product(f, words, k, trees))


def may_be_crowded(files: Sequence[str], words: frozenset[str], kinds: Sequence[str] = ()) -> bool:
    """Whether the list could be :func:`crowded` given the legacy trees of any files, its own
    among them: as if every file that may lie in one (greploom.core.legacy.suspect) lay in one
    the question does not name. False: reading deeper to learn the trees is not needed."""
    old = not asks_for_old(words)

    def may_count(file: str, kind: str) -> bool:
        return non_product(file, words, kind) or (old and suspect(file))

    return _over(files, kinds, may_count)


def _over(files: Sequence[str], kinds: Sequence[str], counts: Callable[[str, str], bool]) -> bool:
    """Whether more than :data:`CROWDED` of the list counts (``kinds``: in the order of ``files``)."""
    if not files:
        return False
    of = list(kinds) + [""] * (len(files) - len(kinds))
    return sum(counts(f, k) for f, k in zip(files, of, strict=True)) > CROWDED * len(files)


def deepen(
    shallow: Sequence[str],
    deep: Sequence[tuple[str, str]],
    limit: int,
    words: frozenset[str],
    kinds: Mapping[str, str] | None = None,
    *,
    trees: frozenset[str] = frozenset(),
) -> list[str]:
    """The shallow list's keys, and the deeper list's product keys after them, in the deep order,
    until ``limit`` product keys are held. ``deep``: (key, file), best first; ``kinds``: by key
    (absent: code); ``trees``: as for :func:`crowded`."""
    kind = kinds or {}
    kept = set(shallow)

    def product_code(key: str, file: str) -> bool:
        return not non_product(file, words, kind.get(key, ""), trees)

    product = sum(1 for key, file in deep if key in kept and product_code(key, file))
    out: list[str] = []
    for key, file in deep:
        if key in kept:
            out.append(key)
        elif product < limit and product_code(key, file):
            out.append(key)
            product += 1
    out.extend(key for key in shallow if key not in {k for k, _ in deep})  # the deep list lost none
    return out
