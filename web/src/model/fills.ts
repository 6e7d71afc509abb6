// What a trader reads when the firm trades: "Sold 500 k DBR 2.30 2033 @
// 97.55". Nominals in the desk's shorthand (k, m), the instrument by its
// short name (the maturity's year only), the price without padding zeros.
import { type Dec, fixed, parse, round, shift, text } from "./decimal";
import * as f from "./format";
import { tradeSides } from "./trades";
import type { Trade } from "../client/types";

function trim(d: Dec): string {
  return text(parse(text(d))!);
}

/** shortNominal renders a nominal as a desk says it: 500 k, 1.5 m, 750. */
export function shortNominal(v: string | number | null | undefined): string {
  const d = parse(v);
  if (!d) return "–";
  const abs = d.c < 0n ? { c: -d.c, s: d.s } : d;
  const sgn = d.c < 0n ? "-" : "";
  const whole = abs.c / 10n ** BigInt(abs.s);
  if (whole >= 1_000_000n) return sgn + trim(round(shift(abs, -6), 6)) + " m";
  if (whole >= 1_000n) return sgn + trim(round(shift(abs, -3), 3)) + " k";
  return sgn + f.quantity(text(abs));
}

/** shortName is an instrument's name with its maturity as the year only: "DBR 2.30 15/02/2033" reads "DBR 2.30 2033". */
export function shortName(name: string): string {
  return name.replace(/\s\d{1,2}[/.-]\d{1,2}[/.-](\d{4})$/, " $1").replace(/\s(\d{4})-\d{2}-\d{2}$/, " $1");
}

/** shortPrice renders a price at most at the instrument's precision, without zeros past the second place: 97.55, 99.125. */
export function shortPrice(v: string | number | null | undefined, precision = 4): string {
  const d = parse(v);
  if (!d) return "–";
  const s = fixed(d, precision);
  if (!s.includes(".")) return s;
  const [i, frac = ""] = s.split(".");
  const kept = frac.replace(/0+$/, "").padEnd(2, "0");
  return i + "." + kept;
}

/**
 * tradeNotice is the notice a firm reads of its own trade, or null when
 * the firm (mine) is party to neither side.
 */
export function tradeNotice(t: Trade, mine: string | null | undefined, ins: { name: string; precision: number } | undefined): string | null {
  if (!mine) return null;
  const s = tradeSides(t, mine, () => "");
  if (s.side === "") return null;
  const what = ins ? shortName(ins.name) : "";
  return `${s.side} ${shortNominal(t.quantity)}${what ? " " + what : ""} @ ${shortPrice(t.price_per_unit, ins?.precision ?? 4)}`;
}

/** OrderSummary is what the confirmation restates before an order is sent. */
export interface OrderSummary {
  direction: string;
  quantity: string;
  instrument: string;
  price: string;
  precision: number;
  market: string;
  /** amount is the settlement amount (clean + accrued), null while not known. */
  amount: string | null;
  currency: string;
}

/** confirmLines restates an order in words: "Buy 1,000,000 DBR 2.30 15/02/2033 at 99.5000", where, and the settlement amount. */
export function confirmLines(o: OrderSummary): [string, string] {
  const head = `${f.side(o.direction)} ${f.quantity(o.quantity)} ${o.instrument} at ${f.price(o.price, o.precision)}`;
  const tail = `on ${o.market}, settlement amount ${o.amount === null ? "not known yet" : f.amount(o.amount) + " " + o.currency}`;
  return [head, tail];
}
