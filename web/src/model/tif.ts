// The order ticket's time in force, as the venue takes it on an offer:
// good till cancelled (validity gtc), good till a date and time (gtd with
// valid_until), or a market order (market_order: it takes the best
// prices at once and the venue cancels the rest: immediate or cancel).
// The venue has no fill-or-kill and no immediate-or-cancel limit order,
// so the ticket offers neither.
import { cmp, parse, sign, sub, text } from "./decimal";
import * as f from "./format";
import { localInstant } from "./validate";

export type TimeInForce = "gtc" | "gtd" | "market";

/** timesInForce are the ticket's choices, in its order. */
export const timesInForce: [TimeInForce, string][] = [
  ["gtc", "Good till cancelled"],
  ["gtd", "Good till date"],
  ["market", "Market (immediate or cancel)"],
];

/**
 * tifError names what is wrong with the ticket's time in force, or null:
 * a good-till-date order needs its time (local, YYYY-MM-DD HH:MM, the
 * screen's one format), in the future.
 */
export function tifError(tif: TimeInForce, until: string, now: number): string | null {
  if (tif !== "gtd") return null;
  if (!until.trim()) return "Enter the time the offer expires";
  const iso = localInstant(until);
  if (!iso) return "Use YYYY-MM-DD HH:MM";
  const at = Date.parse(iso);
  if (at <= now) return "The expiry must be in the future";
  return null;
}

/** tifFields are an offer's fields for the time in force: a market order sends no price. */
export function tifFields(tif: TimeInForce, until: string): Record<string, unknown> {
  switch (tif) {
    case "market":
      return { market_order: true };
    case "gtd":
      return { validity: "gtd", valid_until: localInstant(until) };
    default:
      return { validity: "gtc" };
  }
}

/** marketDone says what became of a market order: filled, partly filled with the rest cancelled, or cancelled with nothing to trade against. */
export function marketDone(direction: string, o: { quantity: string | number; filled_quantity: string | number }): string {
  const what = direction === "bid" || direction === "buy" ? "Market bid" : "Market ask";
  const q = parse(o.quantity);
  const done = parse(o.filled_quantity);
  if (!q || !done || sign(done) <= 0) return `${what}: nothing to trade against, cancelled`;
  if (cmp(done, q) >= 0) return `${what} filled: ${f.quantity(text(done))}`;
  return `${what}: ${f.quantity(text(done))} done, the rest (${f.quantity(text(sub(q, done)))}) cancelled`;
}
