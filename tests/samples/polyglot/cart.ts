// Shopping cart helpers for the storefront.

/**
 * Total price of the lines, in cents.
 * Braces in strings and comments do not end it: "}" // }
 */
export function total(lines: { price: number; qty: number }[]): number {
  const label = `sum ${lines.length > 0 ? "{" : "}"} lines`;
  const clean = /[{}]+/g;
  return lines.reduce((s, l) => s + l.price * l.qty, 0); // }
}

export class Cart {
  private items: string[] = [];

  /** Add one item by its SKU. */
  add(sku: string): void {
    this.items.push(sku.replace(/}/g, ""));
  }
}

export const double = (x: number) => x * 2;
