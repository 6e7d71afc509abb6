// What the screen makes of a book's levels: the ticket a click on a level
// fills, the spread and mid of a best bid and ask, which way a price
// moved, and whether a level is the firm's own. Pure, so tested alone.
import { type Dec, add, cmp, parse, shift, sub, text } from "./decimal";
import type { Limit } from "../client/types";

export type Side = "bid" | "ask";

export interface Terms {
  min_piece: string | number;
  min_increment: string | number;
}

/** TicketFill is what a click on a level puts into the order ticket. */
export interface TicketFill {
  instrumentId: string;
  marketId: string;
  direction: Side;
  price: string;
  quantity: string;
}

function scaled(a: Dec, s: number): bigint {
  return a.c * 10n ** BigInt(s - a.s);
}

/**
 * ticketQuantity is a level's quantity as the ticket takes it: down to a
 * multiple of the increment, and never below the minimum piece.
 */
export function ticketQuantity(levelQty: string | number, t: Terms): string {
  const q = parse(levelQty);
  const min = parse(t.min_piece);
  const inc = parse(t.min_increment);
  if (!q) return min ? text(min) : "";
  let out: Dec = q;
  if (inc && inc.c > 0n) {
    const s = Math.max(q.s, inc.s);
    const step = scaled(inc, s);
    out = { c: (scaled(q, s) / step) * step, s };
  }
  if (min && cmp(out, min) < 0) out = min;
  return text(out);
}

/** fillFrom is the ticket for a clicked level: the opposite side (an ask clicked is bought), at its price, for its quantity. */
export function fillFrom(clicked: Side, level: Pick<Limit, "limit" | "quantity">, t: Terms): Pick<TicketFill, "direction" | "price" | "quantity"> {
  const p = parse(level.limit);
  return { direction: clicked === "ask" ? "bid" : "ask", price: p ? text(p) : String(level.limit), quantity: ticketQuantity(level.quantity, t) };
}

/** spreadOf is ask − bid, exactly, or null without both. */
export function spreadOf(bid: string | number | null | undefined, ask: string | number | null | undefined): string | null {
  const b = parse(bid);
  const a = parse(ask);
  return b && a ? text(sub(a, b)) : null;
}

/** midOf is (bid + ask) / 2, exactly, or null without both. */
export function midOf(bid: string | number | null | undefined, ask: string | number | null | undefined): string | null {
  const b = parse(bid);
  const a = parse(ask);
  if (!b || !a) return null;
  const sum = add(a, b);
  // Halving: × 5 / 10, exact in decimals.
  return text(shift({ c: sum.c * 5n, s: sum.s }, -1));
}

/** moved says which way a price went: "up", "down", or "" when it did not move or either is not a price. */
export function moved(prev: string | number | null | undefined, next: string | number | null | undefined): "up" | "down" | "" {
  const a = parse(prev);
  const b = parse(next);
  if (!a || !b) return "";
  const c = cmp(b, a);
  return c > 0 ? "up" : c < 0 ? "down" : "";
}

/** isOwn says whether a level is the firm's own order. */
export function isOwn(l: Pick<Limit, "participant_id"> | null | undefined, mine: string | null | undefined): boolean {
  return !!l && !!mine && l.participant_id === mine;
}

/** Pair is the grid's reading of a best bid and ask: spread and mid, and whether they come from different markets. */
export interface Pair {
  spread: string | null;
  mid: string | null;
  /** across is true when the best bid and the best ask rest on different markets: no one market's spread. */
  across: boolean;
}

/**
 * pairOf reads a best bid and ask, each with its market: on one market,
 * its spread and mid; on two, the spread across them (it may be negative,
 * a bid above another market's ask) and no mid, since no one book has it.
 */
export function pairOf(bid: Pick<Limit, "limit" | "market_id"> | null | undefined, ask: Pick<Limit, "limit" | "market_id"> | null | undefined): Pair {
  const across = !!bid && !!ask && !!bid.market_id && !!ask.market_id && bid.market_id !== ask.market_id;
  const spread = spreadOf(bid?.limit, ask?.limit);
  return { spread, mid: across ? null : midOf(bid?.limit, ask?.limit), across };
}
