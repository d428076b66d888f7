"""A tiny shop: carts, pricing and retrying HTTP checkout."""

from shop.cart import Cart
from shop.pricing import apply_discount

__all__ = ["Cart", "apply_discount"]
