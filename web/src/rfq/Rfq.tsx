import { useState } from "preact/hooks";
import { ApiError, newKey } from "../client/api";
import { cmp, parse } from "../model/decimal";
import * as f from "../model/format";
import { dealerOutcome, requestOutcome } from "../model/rfq";
import type { Venue } from "../state/venue";
import type { Offer } from "../client/types";
import { Action, DealerPicker, Empty, Field, Num, Section, SideRadios, Time, limitPrice, useVenue } from "../ui/ui";
import { priceError, quantityError } from "../model/validate";

export function Rfq(props: { venue: Venue; instrumentId?: string }) {
  const v = useVenue(props.venue);
  const mine = v.user?.participant_id;
  const sent = [...v.orders.rfqs.values()].filter((r) => r.participant_id === mine).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const received = [...v.orders.rfqs.values()].filter((r) => r.participant_id !== mine).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <div class="rfq cols">
      <div class="col">
        {v.canTrade && <NewRfq venue={v} instrumentId={props.instrumentId} />}
        <Section
          title="My requests"
          actions={
            sent.length > 0 && (
              <Action venue={v} label="Download today's execution records (CSV)" run={() => downloadExecutions(v)}>
                Execution records (CSV)
              </Action>
            )
          }
        >
          {sent.length === 0 && <p class="muted">No requests yet.</p>}
          {sent.slice(0, 30).map((r) => (
            <Request key={r.id} venue={v} r={r} />
          ))}
        </Section>
      </div>
      <div class="col">
        <Section title="Incoming requests">
          <table class="grid" aria-label="Incoming requests">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">From</th>
                <th scope="col">Side</th>
                <th scope="col">Instrument</th>
                <th scope="col" class="num">Quantity</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">My quote</th>
              </tr>
            </thead>
            <tbody>
              {received.length === 0 && <Empty cols={8}>No requests for quotes.</Empty>}
              {received.slice(0, 50).map((r) => (
                <Incoming key={r.id} venue={v} r={r} />
              ))}
            </tbody>
          </table>
        </Section>
      </div>
    </div>
  );
}

function NewRfq(props: { venue: Venue; instrumentId?: string | undefined }) {
  const v = props.venue;
  const [instrumentId, setInstrumentId] = useState(props.instrumentId ?? v.instruments[0]?.id ?? "");
  const ins = v.instrument(instrumentId);
  const [direction, setDirection] = useState<"bid" | "ask">("bid");
  const [qty, setQty] = useState(String(ins?.min_piece ?? ""));
  const [minutes, setMinutes] = useState("5");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const qErr = ins ? quantityError(qty, ins) : "Pick an instrument";
  const mErr = /^\d+$/.test(minutes) && Number(minutes) >= 1 && Number(minutes) <= 1440 ? null : "Between 1 and 1440 minutes";
  const market = v.rfqMarkets[0];
  const send = async () => {
    if (qErr || mErr) throw new Error(qErr ?? mErr ?? "");
    if (!market) throw new Error("No RFQ market is open");
    if (picked.size === 0) throw new Error("Pick at least one dealer");
    const until = new Date(Date.now() + Number(minutes) * 60000).toISOString();
    await v.api.call(
      "POST",
      "/participant/rfq",
      {
        instrument_id: instrumentId,
        market_id: market.id,
        account_id: v.accountId,
        direction,
        quantity: qty.trim(),
        validity: "gtd",
        valid_until: until,
        counterparties: [...picked],
      },
      newKey(),
    );
  };
  return (
    <Section title="Request quotes">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Request quotes">
        <Field label="Instrument">
          <select
            value={instrumentId}
            onChange={(e) => {
              setInstrumentId(e.currentTarget.value);
              const i = v.instrument(e.currentTarget.value);
              if (i) setQty(String(i.min_piece));
            }}
          >
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.isin})
              </option>
            ))}
          </select>
        </Field>
        <SideRadios label="I want to" value={direction} onChange={setDirection} buy="Buy" sell="Sell" />
        <div class="row">
          <Field label="RFQ quantity (nominal)" error={qErr}>
            <input inputMode="numeric" class="num" value={qty} onInput={(e) => setQty(e.currentTarget.value.replace(/[,\s_]/g, ""))} />
          </Field>
          <Field label="Valid for (minutes)" error={mErr}>
            <input inputMode="numeric" class="num" size={5} value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
          </Field>
        </div>
        <DealerPicker venue={v} picked={picked} onChange={setPicked} />
        <Action venue={v} type="submit" class="primary" label="Send request" run={send} done="Request sent" />
      </form>
    </Section>
  );
}

function Request(props: { venue: Venue; r: Offer }) {
  const v = props.venue;
  const { r } = props;
  const ins = v.instrument(r.instrument_id);
  const quotes = (r.matched_offers ?? []).filter((q) => q.type === "quote" || q.matched_offer_id === r.id);
  const live = quotes.filter((q) => q.status === "created" && (!q.valid_until || new Date(q.valid_until).getTime() > v.now));
  const buying = r.direction === "bid" || r.direction === "buy";
  let best: Offer | null = null;
  for (const q of live) {
    const p = parse(limitPrice(q));
    const b = best ? parse(limitPrice(best)) : null;
    if (p && (!b || (buying ? cmp(p, b) < 0 : cmp(p, b) > 0))) best = q;
  }
  const open = r.status === "created";
  const outcome = requestOutcome(r, v.deals.trades.values(), ins?.precision ?? 4, (id) => v.counterpartyName(id));
  const title = `${f.side(r.direction)} ${f.quantity(r.quantity)} ${ins?.name ?? ""}`;
  const asked = r.counterparties?.length ?? 0;
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
                    <Action venue={v} label={`Accept quote from ${dealer}`} run={() => v.api.call("PUT", `/participant/offers/${q.id}/accept`, undefined, newKey())} done="Quote accepted: trade done">
                      Accept
                    </Action>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </article>
  );
}

function Incoming(props: { venue: Venue; r: Offer }) {
  const v = props.venue;
  const { r } = props;
  const ins = v.instrument(r.instrument_id);
  const mine = [...v.orders.offers.values()].filter((o) => o.matched_offer_id === r.id && o.type === "quote");
  const myQuote = mine.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const [price, setPrice] = useState("");
  const [qty, setQty] = useState(String(r.quantity));
  const outcome = dealerOutcome(r, myQuote, v.orders.declined.has(r.id), v.deals.trades.values(), ins?.precision ?? 4, v.canTrade);
  const open = r.status === "created" && outcome.state !== "declined";
  const quoting = outcome.canQuote;
  const requester = r.participant?.name ?? v.counterpartyName(r.participant_id);
  const title = `${requester} ${f.side(r.direction).toLowerCase()}s ${f.quantity(r.quantity)} ${ins?.name ?? ""}`;
  const pErr = price ? priceError(price, { precision: ins?.precision ?? 4 }) : null;
  const quote = async () => {
    const e = priceError(price, { precision: ins?.precision ?? 4 }) ?? (ins ? quantityError(qty, ins) : null);
    if (e) throw new Error(e);
    await v.api.call(
      "POST",
      "/participant/offers",
      {
        instrument_id: r.instrument_id,
        market_id: r.market_id,
        account_id: v.accountId,
        direction: r.direction === "bid" || r.direction === "buy" ? "ask" : "bid",
        price_per_unit: price.trim(),
        quantity: qty.trim(),
        matched_offer_id: r.id,
        validity: "gtd",
        valid_until: r.valid_until,
      },
      newKey(),
    );
  };
  const decline = async () => {
    try {
      await v.api.call("PUT", `/participant/rfq/${r.id}/reject`);
    } catch (e) {
      // Declined already (from another screen): show it so.
      if (!(e instanceof ApiError && e.status === 409)) throw e;
    }
    v.orders.markDeclined(r.id);
  };
  return (
    <>
      <tr data-rfq={r.id} class={outcome.state}>
        <td>
          <Time at={r.createdAt} />
        </td>
        <td class="wrap">{requester}</td>
        <td>{f.side(r.direction) === "Buy" ? "buys" : "sells"}</td>
        <td class="wrap">{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : ""}</td>
        <Num>{f.quantity(r.quantity)}</Num>
        <td>{open ? f.countdown(r.valid_until, v.now) : ""}</td>
        <td class="outcome">{outcome.label}</td>
        <Num>{myQuote ? f.price(limitPrice(myQuote), ins?.precision ?? 4) : ""}</Num>
      </tr>
      {quoting && (
        <tr class="quote-form">
          <td colSpan={8}>
            <form class="row" onSubmit={(e) => e.preventDefault()} aria-label={"Quote " + title}>
              <Field label="Quote price (%)" error={pErr}>
                <input inputMode="decimal" class="num" aria-label={"Quote price for " + title} value={price} onInput={(e) => setPrice(e.currentTarget.value)} />
              </Field>
              <Field label="Quote quantity">
                <input inputMode="numeric" class="num" aria-label={"Quote quantity for " + title} value={qty} onInput={(e) => setQty(e.currentTarget.value)} />
              </Field>
              <Action venue={v} type="submit" class="primary" label={"Send quote for " + title} run={quote} done="Quote sent">
                Quote
              </Action>
              {outcome.canDecline && (
                <Action venue={v} label={"Decline " + title} run={decline} done="Request declined">
                  Decline
                </Action>
              )}
            </form>
          </td>
        </tr>
      )}
    </>
  );
}

/** downloadExecutions saves the best-execution records of the RFQs the firm sent today (local day) as CSV. */
async function downloadExecutions(v: Venue): Promise<void> {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const end = new Date(start.getTime() + 86_400_000);
  const csv = await v.api.csv(`/participant/rfq/execution-records?from=${start.toISOString()}&to=${end.toISOString()}`);
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `execution-records-${f.dayKey(start)}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
