import * as f from "../model/format";
import { fillFrom, isOwn } from "../model/levels";
import type { Instrument, Limit } from "../client/types";
import type { Venue } from "../state/venue";
import { Empty, Flash, Num, Own, Section } from "../ui/components";

/** DepthLadder is one market's book, level by level: a trader clicks a level to fill the ticket with the other side of it. */
export function DepthLadder(props: { venue: Venue; ins: Instrument; marketId: string; title: string; partial: boolean }) {
  const { ins } = props;
  const book = props.venue.books.depth.get(ins.id)?.get(props.marketId);
  const bids = book?.bid ?? [];
  const asks = book?.ask ?? [];
  const rows = Math.max(bids.length, asks.length, 1);
  const haltedHere = props.venue.books.haltOf(ins.id, props.marketId) !== null;
  const cp = (l: Limit) => {
    const yes = l.is_counterparty_enabled && !haltedHere;
    const why = haltedHere ? "Trading is halted on this market" : l.is_counterparty_enabled ? "You can trade with this entry" : "Not your counterparty";
    return (
      <td class={"cp " + (yes ? "yes" : "no")} title={why}>
        {yes ? "✓" : "–"}
        <span class="sr">{yes ? "tradeable" : haltedHere ? "halted" : "not tradeable"}</span>
      </td>
    );
  };
  const v = props.venue;
  const halt = v.books.haltOf(ins.id, props.marketId);
  // A trader clicks a level to fill the ticket with the other side of it.
  const level = (side: "bid" | "ask", l: Limit) =>
    v.canTrade && halt === null ? (
      <button
        type="button"
        class="level"
        title={`${side === "ask" ? "Buy" : "Sell"} at ${f.price(l.limit, ins.precision)}: fill the ticket`}
        onClick={() => v.books.fillTicket({ instrumentId: ins.id, marketId: props.marketId, ...fillFrom(side, l, ins) })}
      >
        {f.price(l.limit, ins.precision)}
      </button>
    ) : (
      f.price(l.limit, ins.precision)
    );
  const mine = v.user?.participant_id;
  const who = (l: Limit) => (
    <td class="who">
      {isOwn(l, mine) && <Own />}
      {l.participant_name ?? "anonymous"}
    </td>
  );
  const blank = (
    <>
      <td /> <td /> <td /> <td />
    </>
  );
  return (
    <Section
      title={`Depth · ${props.title}`}
      class={"depth" + (halt !== null ? " halted" : "")}
      actions={
        <>
          {halt !== null && (
            <span class="tag halt" role="status">
              Halted{halt ? `: ${halt}` : ""}
            </span>
          )}
          <span class="muted small">{props.partial ? "partial fills" : "all-or-none"}</span>
        </>
      }
    >
      <table class="grid" aria-label={`Depth on ${props.title}`}>
        <thead>
          <tr>
            <th scope="col" title="Counterparty enabled">Cpty</th>
            <th scope="col">Bidder</th>
            <th scope="col" class="num">Bid size</th>
            <th scope="col" class="num">Bid</th>
            <th scope="col" class="num">Ask</th>
            <th scope="col" class="num">Ask size</th>
            <th scope="col">Seller</th>
            <th scope="col" title="Counterparty enabled">Cpty</th>
          </tr>
        </thead>
        <tbody>
          {bids.length === 0 && asks.length === 0 ? (
            <Empty cols={8}>No orders on this market.</Empty>
          ) : (
            Array.from({ length: rows }, (_, i) => {
              const b = bids[i];
              const a = asks[i];
              return (
                <tr key={i}>
                  {b ? (
                    <>
                      {cp(b)}
                      {who(b)}
                      <Num>{f.quantity(b.quantity)}</Num>
                      <Num class="bid">
                        <Flash value={b.limit}>{level("bid", b)}</Flash>
                      </Num>
                    </>
                  ) : (
                    blank
                  )}
                  {a ? (
                    <>
                      <Num class="ask">
                        <Flash value={a.limit}>{level("ask", a)}</Flash>
                      </Num>
                      <Num>{f.quantity(a.quantity)}</Num>
                      {who(a)}
                      {cp(a)}
                    </>
                  ) : (
                    blank
                  )}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </Section>
  );
}
