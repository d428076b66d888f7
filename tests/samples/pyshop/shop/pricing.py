"""Prices, discounts and taxes for cart lines."""

import math

TAX_RATE = 0.2


def apply_discount(price: float, percent: float = 0.0) -> float:
    """Return the price after taking off a percentage discount."""
    if percent < 0 or percent > 100:
        raise ValueError("percent must be between 0 and 100")
    return round(price * (1 - percent / 100), 2)


def add_tax(amount: float) -> float:
    """Add value-added tax to an amount."""
    return math.floor(amount * (1 + TAX_RATE) * 100) / 100


def total_price(prices: list[float], percent: float) -> float:
    """Sum the discounted prices and add tax."""
    subtotal = sum(apply_discount(p, percent) for p in prices)
    return add_tax(subtotal)
