// What each side of a request for quote reads of it: the requester's
// outcome (open, traded, declined, expired, cancelled) and the dealer's
// (may quote, quoted, declined, done, not done). Pure, so tested alone.
import * as f from "./format";
import type { Offer, PortfolioRFQ, Trade } from "../client/types";
import { cmp, parse } from "./decimal";
import { limitPrice } from "./offers";

export type RfqState = "open" | "quoted" | "traded" | "declined" | "expired" | "cancelled" | "lost" | "closed";

export interface Outcome {
  state: RfqState;
  /** label is the few words the screen shows for the state. */
  label: string;
}

export interface DealerOutcome extends Outcome {
  canQuote: boolean;
  canDecline: boolean;
}

/** tradeOf is the trade that filled any of the given offers (an RFQ, a quote), or null. */
export function tradeOf(ids: (string | null | undefined)[], trades: Iterable<Trade>): Trade | null {
  const want = new Set(ids.filter((x): x is string => !!x));
  if (want.size === 0) return null;
  for (const t of trades) if (want.has(t.bid_order.offer_id) || want.has(t.ask_order.offer_id)) return t;
  return null;
}

function traded(t: Trade, precision: number): string {
  return `traded ${f.quantity(t.quantity)} at ${f.price(t.price_per_unit, precision)}`;
}

/**
 * requestOutcome is what the requester reads of its RFQ; dealers is how
 * many were asked (the RFQ's counterparties) and name names a participant.
 */
export function requestOutcome(r: Offer, trades: Iterable<Trade>, precision: number, name: (id: string) => string): Outcome {
  const t = tradeOf([r.id, ...(r.matched_offers ?? []).map((q) => q.id)], trades);
  if (t) {
    const dealer = t.bid_order.offer_id === r.id ? t.ask_order : t.bid_order;
    const who = dealer.participant?.name ?? name(dealer.participant_id);
    const done = (r.matched_offers ?? []).find((q) => q.outcome === "done");
    const cover = done?.cover_price != null ? ` · cover ${f.price(done.cover_price, precision)}` : "";
    return { state: "traded", label: traded(t, precision) + (who ? ` with ${who}` : "") + cover };
  }
  const n = r.counterparties?.length ?? 0;
  switch (r.status) {
    case "created": {
      const k = r.declined_counterparties?.length ?? 0;
      return { state: "open", label: k > 0 ? `open · ${k} of ${n} dealer${n === 1 ? "" : "s"} declined` : "open" };
    }
    case "rejected":
      return { state: "declined", label: n > 1 ? `declined by all ${n} dealers` : "declined by the dealer" };
    case "expired":
      return { state: "expired", label: "expired" };
    case "cancelled":
      return { state: "cancelled", label: "cancelled" };
    default:
      return { state: "closed", label: f.status(r.status) };
  }
}

/**
 * dealerOutcome is what a dealer reads of an RFQ sent to it, given its
 * latest quote record (a decline is one, without price) and whether it
 * declined in this tab before the record arrived; canTrade is its role's
 * right to act. An ended quote's outcome, set by the venue, says how it
 * went.
 */
export function dealerOutcome(
  r: Offer,
  myQuote: Offer | undefined,
  declined: boolean,
  trades: Iterable<Trade>,
  precision: number,
  canTrade: boolean,
): DealerOutcome {
  const none = { canQuote: false, canDecline: false };
  const t = myQuote ? tradeOf([myQuote.id], trades) : null;
  if (t) {
    const cover = myQuote?.cover_price != null ? ` · cover ${f.price(myQuote.cover_price, precision)}` : "";
    return { state: "traded", label: "done · " + traded(t, precision) + cover, ...none };
  }
  if (declined || myQuote?.outcome === "declined" || r.status === "rejected") return { state: "declined", label: "declined", ...none };
  switch (myQuote?.outcome) {
    case "done":
      return { state: "traded", label: "done", ...none };
    case "cover":
      return { state: "lost", label: "not done: you were cover", ...none };
    case "tied":
      return { state: "lost", label: "not done: tied with the done price", ...none };
    case "done_away":
      return { state: "lost", label: "not done: traded away", ...none };
    case "expired":
      if (r.status !== "created") return { state: "expired", label: "expired", ...none };
      break;
    case "cancelled":
      return { state: "cancelled", label: "cancelled by the requester", ...none };
  }
  if (r.status === "created") {
    const live = myQuote?.status === "created";
    if (live) return { state: "quoted", label: `quoted ${f.price(limitOf(myQuote), precision)}`, canQuote: false, canDecline: false };
    const again = myQuote?.outcome === "passed" ? "passed: quote again" : myQuote?.outcome === "withdrawn" ? "withdrawn" : "open";
    return { state: "open", label: again, canQuote: canTrade, canDecline: canTrade };
  }
  if (r.status === "closed") return { state: "lost", label: myQuote ? "not done: traded elsewhere" : "traded elsewhere", ...none };
  if (r.status === "expired") return { state: "expired", label: "expired", ...none };
  if (r.status === "cancelled") return { state: "cancelled", label: "cancelled by the requester", ...none };
  return { state: "closed", label: f.status(r.status), ...none };
}

function limitOf(o: Offer | undefined): string | number | null {
  const p = o?.price_per_unit;
  if (p && typeof p === "object" && "limit_price" in p) return p.limit_price;
  if (typeof p === "string" || typeof p === "number") return p;
  const c = o?.price_per_unit_clean;
  return typeof c === "string" || typeof c === "number" ? c : null;
}

/**
 * awaitingQuote counts the RFQs addressed to the firm (mine) that still
 * wait for its quote: open, not expired at now, neither quoted (a live
 * quote of the firm) nor declined by it.
 */
export function awaitingQuote(
  rfqs: Iterable<Offer>,
  quotes: Iterable<Offer>,
  mine: string | null | undefined,
  declined: ReadonlySet<string>,
  now: number,
): number {
  if (!mine) return 0;
  const latest = new Map<string, Offer>();
  for (const q of quotes) {
    if (q.type !== "quote" || !q.matched_offer_id) continue;
    const prev = latest.get(q.matched_offer_id);
    if (!prev || q.createdAt > prev.createdAt) latest.set(q.matched_offer_id, q);
  }
  let n = 0;
  for (const r of rfqs) {
    if (r.participant_id === mine || r.status !== "created" || declined.has(r.id)) continue;
    if (r.valid_until && new Date(r.valid_until).getTime() <= now) continue;
    if (dealerOutcome(r, latest.get(r.id), false, [], 4, true).state === "open") n++;
  }
  return n;
}

/**
 * awaitingListAnswer counts the lists addressed to the firm (mine) that
 * wait for its answer: open, not expired at now, and neither quoted nor
 * declined by it (a dealer reads only its own quotes).
 */
export function awaitingListAnswer(lists: Iterable<PortfolioRFQ>, mine: string | null | undefined, now: number): number {
  if (!mine) return 0;
  let n = 0;
  for (const l of lists) {
    if (l.participant_id === mine || l.status !== "created") continue;
    if (new Date(l.valid_until).getTime() <= now) continue;
    if (l.quotes.some((q) => q.participant_id === mine)) continue;
    n++;
  }
  return n;
}

/** bestRfqQuote is the requester's best of the live quotes: the lowest price to buy, the highest to sell (the first of equal ones). */
export function bestRfqQuote(r: Offer, live: Offer[]): Offer | null {
  const buying = r.direction === "bid" || r.direction === "buy";
  let best: Offer | null = null;
  for (const q of live) {
    const p = parse(limitPrice(q));
    const b = best ? parse(limitPrice(best)) : null;
    if (p && (!b || (buying ? cmp(p, b) < 0 : cmp(p, b) > 0))) best = q;
  }
  return best;
}
