import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { partiesBody } from "../client/requests";
import type { Offer } from "../client/types";
import * as f from "../model/format";
import { limitPrice } from "../model/offers";
import { bestRfqQuote, requestOutcome } from "../model/rfq";
import type { Venue } from "../state/venue";
import { Action, Empty, Num } from "../ui/components";
import { ExecutionRecordView } from "./ExecutionRecord";

/** RfqRequest is one of the firm's requests with its dealers' quotes, the best highlighted, each to accept while open. */
export function RfqRequest(props: { venue: Venue; r: Offer }) {
  const v = props.venue;
  const { r } = props;
  const ins = v.instrument(r.instrument_id);
  const quotes = (r.matched_offers ?? []).filter((q) => q.type === "quote" || q.matched_offer_id === r.id);
  const live = quotes.filter((q) => q.status === "created" && (!q.valid_until || new Date(q.valid_until).getTime() > v.now));
  const best = bestRfqQuote(r, live);
  const open = r.status === "created";
  const outcome = requestOutcome(r, v.deals.trades.values(), ins?.precision ?? 4, (id) => v.counterpartyName(id));
  const title = `${f.side(r.direction)} ${f.quantity(r.quantity)} ${ins?.name ?? ""}`;
  const asked = r.counterparties?.length ?? 0;
  const [record, setRecord] = useState(false);
  return (
    <article class={"request " + outcome.state} aria-label={"Request " + title} data-rfq={r.id}>
      <header>
        <strong>{title}</strong>
        <span class="muted">
          {" "}
          · <span class="outcome">{outcome.label}</span>
          {open && <> · expires in {f.countdown(r.valid_until, v.now)}</>}
        </span>
        {open && (
          <Action venue={v} label={"Cancel request " + title} run={() => v.api.call("DELETE", `/participant/rfq/${r.id}`)} done="Request cancelled">
            Cancel request
          </Action>
        )}
        <button type="button" aria-expanded={record} aria-label={"Execution record of " + title} onClick={() => setRecord(!record)}>
          Execution record
        </button>
      </header>
      <table class="grid" aria-label={"Quotes for " + title}>
        <thead>
          <tr>
            <th scope="col">Dealer</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Yield</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {quotes.length === 0 && (
            <Empty cols={7}>
              {open
                ? `Waiting for quotes from ${asked === 1 ? "1 dealer" : asked + " dealers"}…` +
                  (r.declined_counterparties?.length ? ` (${r.declined_counterparties.length} declined)` : "")
                : outcome.state === "declined" || outcome.state === "traded"
                  ? outcome.label[0]!.toUpperCase() + outcome.label.slice(1) + "."
                  : "No quotes."}
            </Empty>
          )}
          {quotes.map((q) => {
            const isBest = best?.id === q.id;
            const dealer = q.participant?.name ?? v.counterpartyName(q.participant_id);
            return (
              <tr key={q.id} class={isBest ? "best" : ""} data-quote={q.id}>
                <td>
                  {dealer}
                  {isBest && <span class="tag">best</span>}
                </td>
                <Num>{f.price(limitPrice(q), ins?.precision ?? 4)}</Num>
                <Num>{f.yieldPct(v.yieldAt(r.instrument_id, limitPrice(q)))}</Num>
                <Num>{f.quantity(q.quantity)}</Num>
                <td>{q.status === "created" ? f.countdown(q.valid_until, v.now) : ""}</td>
                <td>{q.outcome ? f.outcomeLabel(q.outcome) : f.status(q.status)}</td>
                <td>
                  {open && q.status === "created" && v.canTrade && (
                    <Action venue={v} label={`Accept quote from ${dealer}`} run={() => v.api.call("PUT", `/participant/offers/${q.id}/accept`, partiesBody(v.parties), newKey())} done="Quote accepted: trade done">
                      Accept
                    </Action>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {record && <ExecutionRecordView venue={v} rfqId={r.id} title={title} version={`${r.status}/${r.updatedAt}/${quotes.length}`} />}
    </article>
  );
}
