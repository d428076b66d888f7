"""Which definition a name names (greploom.core.names).

Laws:

1. Every key named has a qualified name equal to the name or ending with
   ``.`` + the name: whole components, never part of one.
2. When some qualified name equals the name, exactly those are named.
3. Otherwise every dotted-suffix match is named.
4. The answer does not depend on the order of the candidates.
5. The one-line list of candidates shows at most ten keys, then how many more.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from greploom.core.names import MAX_LISTED, candidates_line, is_dotted_suffix, named

parts = st.sampled_from(("shop", "net", "cart", "Cart", "total", "send_order", "tot", "al"))
qualnames = st.lists(parts, min_size=1, max_size=4).map(".".join)
candidates = st.lists(st.tuples(st.uuids().map(str), qualnames), max_size=12, unique_by=lambda c: c[0])


@given(qualnames, candidates, st.randoms())
def test_a_name_names_whole_components(name: str, pool: list[tuple[str, str]], rnd) -> None:  # type: ignore[no-untyped-def]
    """Laws 1-4."""
    keys = named(name, pool)
    quals = dict(pool)
    assert all(quals[k] == name or quals[k].endswith("." + name) for k in keys)
    exact = {k for k, q in pool if q == name}
    suffix = {k for k, q in pool if q.endswith("." + name)}
    assert set(keys) == (exact or suffix)
    shuffled = list(pool)
    rnd.shuffle(shuffled)
    assert named(name, shuffled) == keys


def test_part_of_a_component_is_not_a_match() -> None:
    """`total` does not name `subtotal`; `Cart.total` names `shop.cart.Cart.total`."""
    assert not is_dotted_suffix("total", "shop.cart.subtotal")
    pool = [("k1", "shop.cart.Cart.total"), ("k2", "shop.cart.GiftCart.total")]
    assert named("Cart.total", pool) == ("k1",)
    assert named("", [("k", "a")]) == ()


@given(st.lists(st.uuids().map(str), unique=True, max_size=30))
def test_the_list_of_candidates_is_short(keys: list[str]) -> None:
    """Law 5: an error line stays one readable line."""
    line = candidates_line(tuple(keys))
    shown = keys[:MAX_LISTED]
    assert line.startswith(", ".join(shown))
    assert line.endswith(f"+{len(keys) - MAX_LISTED} more") == (len(keys) > MAX_LISTED)
