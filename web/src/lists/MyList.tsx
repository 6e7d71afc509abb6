import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { partiesBody } from "../client/requests";
import type { PortfolioQuote, PortfolioRFQ } from "../client/types";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Action, Empty, Num } from "../ui/components";
import { bestQuote, dealerStates } from "./lines";

/** listTitle names a list for people: its size and its sides. */
function listTitle(v: Venue, l: PortfolioRFQ): string {
  const buys = l.lines.filter((x) => x.direction === "bid").length;
  return `List of ${l.lines.length} (${buys} buy, ${l.lines.length - buys} sell) sent ${f.time(l.createdAt, new Date(v.now))}`;
}

/** listState is what the requester reads of its list. */
function listState(l: PortfolioRFQ, name: (id: string) => string): string {
  switch (l.status) {
    case "closed": {
      const done = l.quotes.find((q) => q.outcome === "done");
      return done ? `traded ${l.lines.length} lines with ${name(done.participant_id)}` : "traded";
    }
    case "rejected":
      return "declined by every dealer";
    default:
      return f.status(l.status);
  }
}

/** MyList is one of the firm's lists with its dealers' quotes, the best marked, each to accept while open; its lines compared on request. */
export function MyList(props: { venue: Venue; l: PortfolioRFQ }) {
  const v = props.venue;
  const { l } = props;
  const [compare, setCompare] = useState(false);
  const open = l.status === "created";
  const priced = l.quotes.filter((q) => q.outcome !== "declined");
  const declined = l.quotes.filter((q) => q.outcome === "declined").length;
  const best = bestQuote(l.quotes);
  const title = listTitle(v, l);
  const currency = f.oneCurrency(l.lines.map((x) => v.instrument(x.instrument_id)?.currency));
  const dealer = (q: PortfolioQuote) => v.counterpartyName(q.participant_id);
  return (
    <article class={"request list " + l.status} aria-label={title} data-list={l.id}>
      <header>
        <strong>{title}</strong>
        <span class="muted">
          {" "}
          · <span class="outcome">{listState(l, (id) => v.counterpartyName(id))}</span>
          {open && <> · expires in {f.countdown(l.valid_until, v.now)}</>}
        </span>
        {open && v.canTrade && (
          <Action venue={v} label={"Cancel " + title} run={() => v.api.call("DELETE", `/participant/portfolio-rfq/${l.id}`)} done="List cancelled">
            Cancel list
          </Action>
        )}
      </header>
      <p class="list-dealers small" aria-label={"Dealers of " + title}>
        {dealerStates(l).map((d) => (
          <span key={d.participantId} class={"dealer-state " + d.state.replace(" ", "-")}>
            {v.counterpartyName(d.participantId)}: {d.state}
          </span>
        ))}
      </p>
      <table class="grid" aria-label={"Quotes for " + title}>
        <thead>
          <tr>
            <th scope="col">Dealer</th>
            <th scope="col" class="num">Net proceeds</th>
            <th scope="col">Status</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {priced.length === 0 && (
            <Empty cols={4}>
              {open ? `Waiting for quotes from ${l.counterparties.length} dealer${l.counterparties.length === 1 ? "" : "s"}…` : "No quotes."}
              {declined > 0 ? ` (${declined} declined)` : ""}
            </Empty>
          )}
          {priced.map((q) => (
            <tr key={q.id} class={best?.id === q.id ? "best" : ""} data-quote={q.id}>
              <td>
                {dealer(q)}
                {best?.id === q.id && <span class="tag">best</span>}
              </td>
              <Num>{f.money(q.net_proceeds, currency)}</Num>
              <td>{q.outcome ? f.outcomeLabel(q.outcome) : f.status(q.status)}</td>
              <td>
                {open && q.status === "created" && v.canTrade && (
                  <Action
                    venue={v}
                    label={`Accept list quote from ${dealer(q)}`}
                    run={() => v.api.call("PUT", `/participant/portfolio-rfq/${l.id}/quotes/${q.id}/accept`, partiesBody(v.parties), newKey())}
                    done="List traded"
                  >
                    Accept
                  </Action>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {priced.length > 0 && (
        <button type="button" class="link" aria-expanded={compare} onClick={() => setCompare(!compare)}>
          {compare ? "Hide the lines" : "Compare the lines"}
        </button>
      )}
      {compare && <Compare venue={v} l={l} quotes={priced} />}
    </article>
  );
}

/** Compare sets each dealer's price beside each line. */
function Compare(props: { venue: Venue; l: PortfolioRFQ; quotes: PortfolioQuote[] }) {
  const v = props.venue;
  const { l, quotes } = props;
  return (
    <table class="grid compare" aria-label={"Lines of " + listTitle(v, l)}>
      <thead>
        <tr>
          <th scope="col">Line</th>
          <th scope="col">Instrument</th>
          <th scope="col">Side</th>
          <th scope="col" class="num">Nominal</th>
          {quotes.map((q) => (
            <th key={q.id} scope="col" class="num">
              {v.counterpartyName(q.participant_id)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {l.lines.map((line, i) => {
          const ins = v.instrument(line.instrument_id);
          return (
            <tr key={line.line_id}>
              <td>{line.line_id}</td>
              <td class="wrap">{ins?.name ?? line.instrument_id}</td>
              <td>{f.side(line.direction)}</td>
              <Num>{f.quantity(line.quantity)}</Num>
              {quotes.map((q) => (
                <Num key={q.id}>{f.price(q.lines[i]?.price_per_unit, ins?.precision ?? 4)}</Num>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
