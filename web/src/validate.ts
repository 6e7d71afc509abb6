// Checks of the order ticket, run as the trader types: the same rules the
// venue applies (it checks again; these only spare a round trip and say
// what is wrong next to the field).
import { type Dec, add, cmp, fixed, isMultipleOf, parse, sign, sub, text } from "./decimal";

export interface Terms {
  min_piece: string | number;
  min_increment: string | number;
  precision: number;
}

/** quantityError says what is wrong with a nominal quantity, or null when it is valid. */
export function quantityError(input: string, t: Terms): string | null {
  if (input.trim() === "") return "Enter a quantity";
  const q = parse(input);
  if (!q) return "Quantity must be a number";
  if (sign(q) <= 0) return "Quantity must be greater than 0";
  if (q.s > 0) return "Quantity must be a whole amount";
  const minPiece = parse(t.min_piece);
  const inc = parse(t.min_increment);
  if (minPiece && cmp(q, minPiece) < 0) return `Minimum piece is ${fixed(minPiece, 0, true)}`;
  if (inc && sign(inc) > 0 && !isMultipleOf(q, inc)) return `Quantity must be a multiple of ${fixed(inc, 0, true)}`;
  return null;
}

/** priceError says what is wrong with a clean price in percent of par, or null. */
export function priceError(input: string, t: Pick<Terms, "precision">): string | null {
  if (input.trim() === "") return "Enter a price";
  const p = parse(input);
  if (!p) return "Price must be a number";
  if (sign(p) <= 0) return "Price must be greater than 0";
  if (p.s > t.precision) return `Price has at most ${t.precision} decimal places`;
  return null;
}

/** yieldError says what is wrong with a yield in percent, or null. */
export function yieldError(input: string): string | null {
  if (input.trim() === "") return "Enter a yield";
  const y = parse(input);
  if (!y) return "Yield must be a number";
  if (cmp(y, parse("-100")!) <= 0) return "Yield must be above -100 %";
  return null;
}

/** stepQuantity steps a quantity up or down by the increment, kept within min piece. */
export function stepQuantity(input: string, t: Terms, dir: 1 | -1): string {
  const inc = parse(t.min_increment) ?? parse("1")!;
  const min = parse(t.min_piece) ?? inc;
  const q: Dec | null = parse(input);
  if (!q || cmp(q, min) < 0) return fixed(min, 0);
  const next = dir > 0 ? add(q, inc) : sub(q, inc);
  return fixed(cmp(next, min) < 0 ? min : next, 0);
}

/** settlementDateError checks a YYYY-MM-DD settlement date is well-formed and not a weekend. */
export function settlementDateError(v: string, today: string): string | null {
  if (v === "") return null; // the market's default lag applies
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return "Use YYYY-MM-DD";
  const d = new Date(v + "T00:00:00Z");
  if (isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) return "Not a date";
  if (v < today) return "Settlement date is in the past";
  const wd = d.getUTCDay();
  if (wd === 0 || wd === 6) return "Settlement date falls on a weekend";
  return null;
}

/** The band of the venue's price collar, as GET …/price-collar answers it. */
export interface Collar {
  reference_price: string | number | null;
  reference_source: string | null;
  price_collar_percent: string;
  low: string | number | null;
  high: string | number;
}

/**
 * collarWarning says why the venue will refuse a clean price as outside its
 * price collar, or null when the price is inside it (or not a price).
 */
export function collarWarning(input: string, c: Collar | null): string | null {
  const p = parse(input);
  if (!c || !p) return null;
  const high = parse(c.high);
  const low = c.low === null ? null : parse(c.low);
  if (!high) return null;
  if (low === null || c.reference_price === null) {
    if (sign(p) > 0 && cmp(p, high) <= 0) return null;
    return `Price is outside the price collar: with no reference price the market takes up to ${text(high)}`;
  }
  if (!low || (cmp(p, low) >= 0 && cmp(p, high) <= 0)) return null;
  return `Price is outside the price collar: ±${c.price_collar_percent}% around ${String(c.reference_price)} (${c.reference_source ?? "reference"}), ${text(low)} to ${text(high)}`;
}
