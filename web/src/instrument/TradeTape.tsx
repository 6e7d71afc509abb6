import { ownDeferred, tapeNote } from "../model/deferral";
import * as f from "../model/format";
import type { Instrument } from "../client/types";
import type { Venue } from "../state/venue";
import { Empty, Num, Section, Time } from "../ui/components";

/**
 * TradeTape is the instrument's newest prints on the public tape; a
 * deferred size says when it is due, and trades whose price is deferred
 * are said to be, with when the firm's own are due.
 */
export function TradeTape(props: { venue: Venue; ins: Instrument }) {
  const v = props.venue;
  const all = v.books.tape.filter((p) => p.instrumentId === props.ins.id);
  const prints = all.slice(0, 30);
  // Trades the screen knows of (a last price on a market, a bar on the chart) that the public tape does not show yet.
  const traded = v.books.charted.has(props.ins.id) || [...(v.books.best.get(props.ins.id)?.values() ?? [])].some((b) => b.lastPrice !== null);
  const note = tapeNote(all.length, ownDeferred(v.user?.participant_id ? v.deals.trades.values() : [], props.ins.id, v.now), traded, (iso) => f.time(iso, new Date(v.now)));
  return (
    <Section title="Trade tape">
      {note && (
        <p class="banner deferred small" role="note">
          {note}
        </p>
      )}
      <table class="grid" aria-label="Trade tape">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Market</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Quantity</th>
          </tr>
        </thead>
        <tbody>
          {prints.length === 0 && <Empty cols={4}>{traded ? "No trade published yet." : "No trades yet."}</Empty>}
          {prints.map((p) => (
            <tr key={p.tradeId}>
              <td>
                <Time at={p.at} />
              </td>
              <td>{v.market(p.marketId)?.name ?? ""}</td>
              <Num>{f.price(p.price, props.ins.precision)}</Num>
              {p.quantity === null ? (
                <td class="num muted small deferred" title="The size is deferred under the venue's transparency rules">
                  size at <Time at={p.sizeDueAt} />
                </td>
              ) : (
                <Num>{f.quantity(p.quantity)}</Num>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
