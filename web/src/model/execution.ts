// How an RFQ's best-execution record reads on the screen: each dealer's
// response time, and what the requester saved against the cover.
import { type Dec, dec, fixed, parse, sign, sub } from "./decimal";
import * as f from "./format";

/** responseTime renders a response time given in microseconds: 850 ms, 2.345 s, 3 min 05 s; a dash without an answer. */
export function responseTime(us: number | null | undefined): string {
  if (us === null || us === undefined || us < 0) return "–";
  const ms = Math.round(us / 1000);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(3)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/** saving says what the done price saved against the cover: per 100 of nominal and in money, or why there is nothing to say. */
export function saving(perHundred: string | number | null, amount: string | number | null, currency: string, precision: number): string {
  const p = parse(perHundred);
  if (!p) return "no cover to compare with";
  const a = parse(amount);
  const word = sign(p) < 0 ? "cost" : "saved";
  const abs = (d: Dec) => (sign(d) < 0 ? sub(dec("0"), d) : d);
  return `${word} ${fixed(abs(p), precision)} per 100` + (a ? ` (${f.amount(fixed(abs(a), 2))} ${currency})` : "") + " against the cover";
}
