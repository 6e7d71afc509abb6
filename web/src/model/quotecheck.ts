// What a dealer sees of the market beside its quote: the best bid and
// ask, their mid and the last trade, and whether the price it is about to
// send is far from them. Pure, so tested alone.
import type { Limit, Num } from "../client/types";
import { type Dec, cmp, mul, parse, sign, sub, text } from "./decimal";
import { price as priceText } from "./format";
import { midOf } from "./levels";

/** warnPercent is how far from the market, in percent of its price, a quote asks the dealer to confirm it (when the market's collar is not tighter). */
export const warnPercent = "1";

/** MarketView is the market beside a dealer's quote. */
export interface MarketView {
  bid: Num | null;
  ask: Num | null;
  mid: string | null;
  last: Num | null;
}

/** marketView is an instrument's best bid and ask (over the continuous markets), their mid and its last trade. */
export function marketView(best: { bid: Pick<Limit, "limit"> | null; ask: Pick<Limit, "limit"> | null; lastPrice: Num | null }): MarketView {
  const bid = best.bid?.limit ?? null;
  const ask = best.ask?.limit ?? null;
  return { bid, ask, mid: midOf(bid, ask), last: best.lastPrice };
}

function abs(d: Dec): Dec {
  return sign(d) < 0 ? { c: -d.c, s: d.s } : d;
}

/**
 * farFromMarket says, when a quote's price is more than percent (default
 * warnPercent; the market's price collar when tighter) away from the mid,
 * or from the last trade without a mid, how far it is, for the dealer to
 * confirm; null when it is near, or there is nothing to compare with.
 */
export function farFromMarket(price: string, m: MarketView, percent: Num = warnPercent, precision = 4): string | null {
  const p = parse(price);
  const pct = parse(percent);
  const refText = m.mid ?? m.last;
  const ref = parse(refText);
  if (!p || !pct || !ref || sign(ref) <= 0) return null;
  const gap = sub(p, ref);
  // |p − ref| × 100 > pct × ref, exactly.
  if (cmp(mul(abs(gap), parse("100")!), mul(pct, ref)) <= 0) return null;
  const what = m.mid !== null ? "the mid" : "the last trade";
  const pr = (d: Dec) => priceText(text(d), precision);
  return `${pr(p)} is ${pr(abs(gap))} ${sign(gap) > 0 ? "above" : "below"} ${what} ${pr(ref)}, more than ${text(pct)}% away: send it?`;
}

/** warnLimit is the percent a quote may stray before the dealer confirms: warnPercent, or the market's price collar when tighter. */
export function warnLimit(collarPercent: Num | null | undefined): string {
  const c = parse(collarPercent);
  const w = parse(warnPercent)!;
  return c && sign(c) > 0 && cmp(c, w) < 0 ? text(c) : text(w);
}
