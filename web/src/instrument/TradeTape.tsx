import * as f from "../model/format";
import type { Instrument } from "../client/types";
import type { Venue } from "../state/venue";
import { Empty, Num, Section, Time } from "../ui/components";

/** TradeTape is the instrument's newest prints on the public tape; a deferred size says when it is due. */
export function TradeTape(props: { venue: Venue; ins: Instrument }) {
  const v = props.venue;
  const prints = v.books.tape.filter((p) => p.instrumentId === props.ins.id).slice(0, 30);
  return (
    <Section title="Trade tape">
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
          {prints.length === 0 && <Empty cols={4}>No trades yet.</Empty>}
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
