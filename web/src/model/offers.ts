// What the screen reads of an offer, a quote or an RFQ record.

/** limitPrice reads an offer's clean price whatever its shape. */
export function limitPrice(o: { price_per_unit: unknown; price_per_unit_clean?: unknown }): string | number | null {
  const p = o.price_per_unit;
  if (p && typeof p === "object" && "limit_price" in p) return (p as { limit_price: string | number }).limit_price;
  if (typeof p === "string" || typeof p === "number") return p;
  const c = o.price_per_unit_clean;
  return typeof c === "string" || typeof c === "number" ? c : null;
}
