// Checks of the order ticket, run as the trader types: the same rules the
// venue applies (it checks again; these only spare a round trip and say
// what is wrong next to the field).
import { type Dec, add, cmp, fixed, isMultipleOf, mul, parse, shift, sign, sub, text } from "./decimal";
import { limitName } from "./format";

export interface Terms {
  min_piece: string | number;
  min_increment: string | number;
  precision: number;
}

/**
 * commaError refuses a comma in a price or yield: parse would read it as a
 * thousands separator (97,50 as 9750) while the trader meant a decimal
 * comma. The venue takes a point only.
 */
export function commaError(input: string): string | null {
  if (!input.includes(",")) return null;
  const t = input.trim();
  if (/^[+-]?\d*,\d+$/.test(t)) return `Use a point for decimals: ${t.replace(",", ".")}`;
  return "Write the number without commas";
}

/** quantityError says what is wrong with a nominal quantity, or null when it is valid. */
export function quantityError(raw: string, t: Terms): string | null {
  if (raw.trim() === "") return "Enter a quantity";
  const input = expandQuantity(raw);
  // Commas group thousands in a quantity (1,000,000); any other comma is a decimal comma.
  if (input.includes(",") && !/^\s*\d{1,3}(,\d{3})+(\.\d+)?\s*$/.test(input)) return commaError(input);
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
  const comma = commaError(input);
  if (comma) return comma;
  const p = parse(input);
  if (!p) return "Price must be a number";
  if (sign(p) <= 0) return "Price must be greater than 0";
  if (p.s > t.precision) return `Price has at most ${t.precision} decimal places`;
  return null;
}

/** yieldError says what is wrong with a yield in percent, or null. */
export function yieldError(input: string): string | null {
  if (input.trim() === "") return "Enter a yield";
  const comma = commaError(input);
  if (comma) return comma;
  const y = parse(input);
  if (!y) return "Yield must be a number";
  if (cmp(y, parse("-100")!) <= 0) return "Yield must be above -100 %";
  return null;
}

/**
 * expandQuantity reads the desk's shorthand for a nominal: 500k, 1m, 1.5m,
 * 3mm (millions), 1bn, with or without a space, and thousands grouped by
 * commas, spaces or underscores; the digits it stands for, or the input as
 * it was (trimmed) when it is not shorthand, for quantityError to name.
 */
export function expandQuantity(input: string): string {
  const t = input.trim().toLowerCase().replace(/[\s_]/g, "");
  const m = /^(\d+(?:\.\d+)?)(k|m|mm|mn|bn|b)$/.exec(t);
  if (!m) return /^\d{1,3}(,\d{3})+$/.test(t) ? t.replace(/,/g, "") : input.trim().replace(/[\s_]/g, "");
  const [, num = "", unit = ""] = m;
  const places = unit === "k" ? 3 : unit === "bn" || unit === "b" ? 9 : 6;
  const d = parse(num)!;
  return text(parse(text(d) + "e" + places)!);
}

/**
 * stepQuantity steps a quantity up or down by a step that follows its
 * size, the power of ten of its leading digit (1,000,000 → 2,000,000;
 * 250,000 → 350,000), and down from a round figure by the next smaller one
 * (1,000,000 → 900,000); never finer than the increment, kept a multiple
 * of it and within min piece.
 */
export function stepQuantity(input: string, t: Terms, dir: 1 | -1): string {
  const inc = parse(t.min_increment) ?? parse("1")!;
  const min = parse(t.min_piece) ?? inc;
  const q: Dec | null = parse(expandQuantity(input));
  if (!q || cmp(q, min) < 0) return fixed(min, 0);
  const base = dir > 0 ? q : sub(q, parse("1")!);
  const digits = fixed(base, 0).replace("-", "").length;
  let step = parse("1e" + Math.max(digits - 1, 0))!;
  if (cmp(step, inc) < 0 || !isMultipleOf(step, inc)) step = inc;
  const next = dir > 0 ? add(q, step) : sub(q, step);
  return fixed(cmp(next, min) < 0 ? min : next, 0);
}

/** defaultQuantity is the ticket's first quantity: 1,000,000 (a round lot) where the instrument takes it, else its minimum piece. */
export function defaultQuantity(t: Terms): string {
  const lot = parse("1000000")!;
  const min = parse(t.min_piece);
  const inc = parse(t.min_increment);
  if (min && cmp(lot, min) < 0) return fixed(min, 0);
  if (inc && sign(inc) > 0 && !isMultipleOf(lot, inc)) return min ? fixed(min, 0) : "1000000";
  return "1000000";
}

/** A risk limit with its use, as GET /participant/risk-limits answers it. */
export interface LimitUse {
  name: string;
  value: string | number;
  used: string | number;
}

/**
 * limitError says which of the firm's risk limits an order of quantity at
 * price would breach, in words with the currency, or null: the venue's own
 * check (largest order, the firm's and the user's open orders, the
 * largest order value at the clean price), run before sending.
 */
export function limitError(quantity: string, price: string, limits: readonly LimitUse[], currency: string): string | null {
  const q = parse(quantity);
  if (!q || sign(q) <= 0) return null;
  const p = parse(price);
  const cur = currency ? " " + currency : "";
  for (const l of limits) {
    const value = parse(l.value);
    const used = parse(l.used) ?? parse("0")!;
    if (!value) continue;
    let want: Dec | null = null;
    if (l.name === "MAX_OFFER") want = q;
    else if (l.name === "ALL_OFFER_SUM" || l.name === "ALL_OFFER_USER_SUM") want = add(used, q);
    else if (l.name === "MAX_OFFER_VALUE" && p) want = shift(mul(q, p), -2);
    if (!want || cmp(want, value) <= 0) continue;
    const name = limitName(l.name);
    if (l.name === "MAX_OFFER" || l.name === "MAX_OFFER_VALUE")
      return `Over the limit ${name}: at most ${fixed(value, 0, true)}${cur}, this order is ${fixed(want, 2, true).replace(/\.00$/, "")}${cur}`;
    const room = sub(value, used);
    return `Over the limit ${name}: ${fixed(value, 0, true)}${cur}, ${fixed(used, 0, true)}${cur} in use, room for ${fixed(sign(room) > 0 ? room : parse("0")!, 0, true)}${cur}`;
  }
  return null;
}

/** A settlement calendar's holidays (YYYY-MM-DD → name), as GET /calendars/{calendar}/holidays lists them. */
export interface SettlementCalendar {
  calendar: string;
  holidays: Map<string, string>;
}

/** settlementDateError checks a YYYY-MM-DD settlement date is well-formed, not past, and a business day of the calendar. */
export function settlementDateError(v: string, today: string, cal?: SettlementCalendar): string | null {
  if (v === "") return null; // the market's default lag applies
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return "Use YYYY-MM-DD";
  const d = new Date(v + "T00:00:00Z");
  if (isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) return "Not a date";
  if (v < today) return "Settlement date is in the past";
  const wd = d.getUTCDay();
  if (wd === 0 || wd === 6) return "Settlement date falls on a weekend";
  const holiday = cal?.holidays.get(v);
  if (cal && holiday !== undefined) {
    return `${v} is a holiday on ${cal.calendar}${holiday ? ` (${holiday})` : ""}: the next business day is ${nextBusinessDay(v, cal.holidays)}`;
  }
  return null;
}

/** nextBusinessDay is the date itself when it is a business day, else the first business day after it. */
export function nextBusinessDay(v: string, holidays: Map<string, string>): string {
  const d = new Date(v + "T00:00:00Z");
  for (let i = 0; i < 30; i++) {
    const s = d.toISOString().slice(0, 10);
    const wd = d.getUTCDay();
    if (wd !== 0 && wd !== 6 && !holidays.has(s)) return s;
    d.setUTCDate(d.getUTCDate() + 1);
  }
  return v;
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

/** validLEI reports whether s is an LEI whose check digits hold (ISO 17442: ISO 7064 MOD 97-10, letters A=10 … Z=35). */
export function validLEI(s: string): boolean {
  if (!/^[A-Z0-9]{18}[0-9]{2}$/.test(s)) return false;
  let rem = 0;
  for (const c of s) {
    const v = c >= "A" && c <= "Z" ? c.charCodeAt(0) - 55 : c.charCodeAt(0) - 48;
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** clientIdError says what is wrong with a client id (an LEI, AGGR, PNAL or a short code), or null; empty is none given. */
export function clientIdError(input: string): string | null {
  const s = input.trim();
  if (s === "") return null;
  if (/^[A-Z0-9]{18}[0-9]{2}$/.test(s)) return validLEI(s) ? null : "This LEI's check digits are wrong";
  if (!/^[A-Za-z0-9]{1,50}$/.test(s)) return "An LEI, AGGR, PNAL or a short code of up to 50 letters and digits";
  return null;
}

/** decisionMakerError says what is wrong with a decision maker's id (a short code or an algorithm's id), or null; empty is none given. */
export function decisionMakerError(input: string): string | null {
  const s = input.trim();
  if (s === "" || /^[A-Za-z0-9._-]{1,50}$/.test(s)) return null;
  return "A short code or an algorithm's id: up to 50 letters, digits, '.', '_' or '-'";
}

/** localInstant reads "YYYY-MM-DD HH:MM" in the browser's zone as an ISO instant, or null when it is not one. */
export function localInstant(input: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/.exec(input.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const t = new Date(y, mo - 1, d, h, mi);
  if (t.getFullYear() !== y || t.getMonth() !== mo - 1 || t.getDate() !== d || t.getHours() !== h || t.getMinutes() !== mi) return null;
  return t.toISOString();
}

/** validUntilError says what is wrong with a good-till-date time typed as YYYY-MM-DD HH:MM (the screen's one date format), or null. */
export function validUntilError(input: string): string | null {
  if (input.trim() === "") return "Enter the time the offer expires";
  return localInstant(input) ? null : "Use YYYY-MM-DD HH:MM";
}
