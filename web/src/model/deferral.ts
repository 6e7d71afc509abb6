// What the instrument's tape says when the public tape holds none of the
// trades the screen knows of: the venue defers a large trade's publication
// (docs/guide.md, "The public tape"), while its members see every price at
// once in the books' last price and the chart. Pure, so tested alone.
import type { Trade } from "../client/types";

/** OwnDeferred is one of the firm's trades whose price is not on the public tape yet. */
export interface OwnDeferred {
  at: string;
  priceDueAt: string;
}

/** ownDeferred are the firm's trades of the instrument whose price the public tape shows later than now, the soonest due first. */
export function ownDeferred(trades: Iterable<Trade>, instrumentId: string, now: number): OwnDeferred[] {
  const out: OwnDeferred[] = [];
  for (const t of trades) {
    const p = t.publication;
    if (t.instrument_id !== instrumentId || !p || p.published_price_at) continue;
    if (new Date(p.price_due_at).getTime() > now) out.push({ at: t.createdAt, priceDueAt: p.price_due_at });
  }
  return out.sort((a, b) => a.priceDueAt.localeCompare(b.priceDueAt));
}

/**
 * tapeNote is what the tape says of trades it does not show yet: the
 * firm's own deferred trades and when the soonest is due; or, with no
 * print published and trades known to the screen (a last price, a bar),
 * that they are deferred; null when there is nothing to say. time renders
 * an instant as the screen shows times.
 */
export function tapeNote(published: number, own: OwnDeferred[], traded: boolean, time: (iso: string) => string): string | null {
  const first = own[0];
  if (first) {
    const which = own.length === 1 ? `Your trade of ${time(first.at)} is` : `${own.length} of your trades are`;
    return `${which} deferred under the venue's transparency rules: on the public tape from ${time(first.priceDueAt)}.`;
  }
  if (published === 0 && traded) {
    return "Trades deferred: this instrument's trades are not on the public tape yet under the venue's transparency rules; members see their prices at once in Last and on the chart.";
  }
  return null;
}
