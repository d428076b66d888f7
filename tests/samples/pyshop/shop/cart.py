"""Shopping cart holding items and their quantities."""

from dataclasses import dataclass

from shop.pricing import total_price


@dataclass
class Item:
    """One product line in a cart."""

    sku: str
    price: float


class Cart:
    """A cart of items that can be priced with a discount."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.items: list[Item] = []

    def add_item(self, item: Item, quantity: int = 1) -> None:
        """Put an item into the cart, quantity times."""
        for _ in range(quantity):
            self.items.append(item)

    def total(self, percent: float = 0.0) -> float:
        """Price every item in the cart, discounted, with tax."""
        return total_price([i.price for i in self.items], percent)

    @property
    def size(self) -> int:
        return len(self.items)


class GiftCart(Cart):
    """A cart whose total is always discounted by ten percent."""

    def total(self, percent: float = 10.0) -> float:
        return super().total(percent)
