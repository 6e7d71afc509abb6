import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import type { Offer } from "../client/types";
import { type BlotterFilter, cancelEach, cancelledText, csv, keeps, sideOf } from "../model/blotter";
import * as f from "../model/format";
import { limitPrice } from "../model/offers";
import { priceError, quantityError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Action, Empty, Num, Section, Time } from "../ui/components";
import { saveCsv } from "./download";
import { yieldRows } from "./rows";

/** narrowed says whether the filter keeps less than the open offers. */
function narrowed(f: BlotterFilter): boolean {
  return f.instrumentId !== "" || f.side !== "" || f.from !== "" || f.to !== "" || f.status !== "created";
}

/** entryDate is the day an offer was entered, in the trader's zone. */
function entryDate(o: Offer): string {
  return f.localDate(new Date(o.createdAt));
}

/** OfferBlotter lists the firm's offers and quotes as the filters keep them (open ones at first); an open one is amended or cancelled in its row, or all at once. */
export function OfferBlotter(props: { venue: Venue; filter: BlotterFilter }) {
  const v = props.venue;
  const rows = [...v.orders.offers.values()]
    .filter((o) => keeps(props.filter, { instrumentId: o.instrument_id, side: sideOf(o.direction), status: o.status, date: entryDate(o) }))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, 200);
  const exportCsv = async () => saveCsv(`offers-${f.dayKey(new Date())}.csv`, offersCsv(v, rows));
  return (
    <Section
      title="My offers and quotes"
      actions={
        <span class="row">
          <Action venue={v} label="Export offers shown (CSV)" disabled={rows.length === 0} run={exportCsv}>
            Export CSV
          </Action>
          {v.canTrade && <CancelAll venue={v} />}
        </span>
      }
    >
      <table class="grid" aria-label="My offers and quotes">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Side</th>
            <th scope="col">Instrument</th>
            <th scope="col">Market</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Yield</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col" class="num">Filled</th>
            <th scope="col">Settles</th>
            <th scope="col">Validity</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && <Empty cols={14}>{narrowed(props.filter) ? "No offers match the filters." : "No open offers."}</Empty>}
          {rows.map((o, i) => (
            <OfferRow key={o.id} venue={v} o={o} withYield={i < yieldRows} />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** offersCsv is the offers shown as CSV: exact numbers, dates YYYY-MM-DD, instants in UTC. */
function offersCsv(v: Venue, rows: Offer[]): string {
  const header = ["Date", "Time (UTC)", "Type", "Side", "Instrument", "ISIN", "Market", "Price", "Quantity", "Filled", "Settles", "Validity", "Valid until (UTC)", "Status"];
  return csv(
    header,
    rows.map((o) => {
      const ins = v.instrument(o.instrument_id);
      const price = limitPrice(o);
      return [
        entryDate(o), o.createdAt, o.type, f.side(o.direction), ins?.name ?? o.instrument_id, ins?.isin ?? "", v.market(o.market_id)?.name ?? "",
        price === null || price === undefined ? "" : String(price), String(o.quantity), String(o.filled_quantity), o.settlement_date ?? "",
        o.validity, o.valid_until ?? "", f.offerStatus(o),
      ];
    }),
  );
}

/** CancelAll cancels every open offer of the firm, one by one, once the trader confirms; it says how many it cancelled. */
function CancelAll(props: { venue: Venue }) {
  const v = props.venue;
  const [asking, setAsking] = useState(false);
  const open = [...v.orders.offers.values()].filter((o) => o.type === "offer" && o.status === "created");
  const n = open.length;
  const run = async () => {
    setAsking(false);
    const r = await cancelEach(
      open.map((o) => o.id),
      (id) => v.api.call("DELETE", `/participant/offers/${id}`),
    );
    v.notify(r.failed.length > 0 ? "error" : "info", cancelledText(r));
  };
  if (!asking) {
    return (
      <button type="button" aria-label="Cancel all open offers" disabled={n === 0} onClick={() => setAsking(true)}>
        Cancel all
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label="Confirm cancelling all open offers" onKeyDown={(e) => e.key === "Escape" && setAsking(false)}>
      <span>Cancel all {n === 1 ? "1 open offer" : `${n} open offers`} of the firm?</span>
      <Action venue={v} label={`Confirm cancelling ${n} open offers`} run={run}>
        Cancel {n}
      </Action>
      <button type="button" aria-label="Keep the offers" autoFocus onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}

function OfferRow(props: { venue: Venue; o: Offer; withYield: boolean }) {
  const v = props.venue;
  const { o } = props;
  const ins = v.instrument(o.instrument_id);
  const prec = ins?.precision ?? 4;
  const [editing, setEditing] = useState(false);
  const [price, setPrice] = useState(String(limitPrice(o) ?? ""));
  const [qty, setQty] = useState(String(o.quantity));
  const open = o.status === "created";
  const label = `${f.side(o.direction)} ${f.quantity(o.quantity)} ${ins?.name ?? ""} at ${f.price(limitPrice(o), prec)}`;
  const pErr = editing ? priceError(price, { precision: prec }) : null;
  const qErr = editing && ins ? quantityError(qty, ins) : null;
  const amend = async () => {
    if (pErr || qErr) throw new Error(pErr ?? qErr ?? "");
    await v.api.call("PUT", `/participant/offers/${o.id}`, { entity: { price_per_unit: price.trim(), quantity: qty.trim() } }, newKey());
    setEditing(false);
  };
  // Enter in an amended field saves, as the Save button does; Escape discards.
  const keys = (e: KeyboardEvent) => {
    if (e.key === "Escape") setEditing(false);
    if (e.key !== "Enter") return;
    e.preventDefault();
    (e.currentTarget as HTMLElement).closest("tr")?.querySelector<HTMLButtonElement>("button.save")?.click();
  };
  return (
    <tr data-offer={o.id} class={o.status}>
      <td class="entry-date">{entryDate(o)}</td>
      <td>
        <Time at={o.createdAt} full />
      </td>
      <td>{o.type}</td>
      <td class={o.direction === "bid" || o.direction === "buy" ? "bid" : "ask"}>{f.side(o.direction)}</td>
      <td>{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : o.instrument_id}</td>
      <td>{v.market(o.market_id)?.name ?? ""}</td>
      {editing ? (
        <>
          <td class="num">
            <input class="num" aria-label={"New price for " + label} value={price} onInput={(e) => setPrice(e.currentTarget.value)} onKeyDown={keys} />
            {pErr && <span class="error">{pErr}</span>}
          </td>
          <Num>{props.withYield ? f.yieldPct(v.yieldAt(o.instrument_id, limitPrice(o), o.settlement_date)) : "–"}</Num>
          <td class="num">
            <input class="num" aria-label={"New quantity for " + label} value={qty} onInput={(e) => setQty(e.currentTarget.value)} onKeyDown={keys} />
            {qErr && <span class="error">{qErr}</span>}
          </td>
        </>
      ) : (
        <>
          <Num>{f.price(limitPrice(o), prec)}</Num>
          <Num>{props.withYield ? f.yieldPct(v.yieldAt(o.instrument_id, limitPrice(o), o.settlement_date)) : "–"}</Num>
          <Num>{f.quantity(o.quantity)}</Num>
        </>
      )}
      <Num>{f.quantity(o.filled_quantity)}</Num>
      <td>{o.settlement_date ? f.date(o.settlement_date) : "default"}</td>
      <td>
        {o.validity}
        {o.valid_until && (
          <>
            {" "}
            <Time at={o.valid_until} />
          </>
        )}
      </td>
      <td>{f.offerStatus(o)}</td>
      <td class="actions">
        {open && v.canTrade && !editing && (
          <>
            <button type="button" aria-label={"Amend " + label} onClick={() => setEditing(true)}>
              Amend
            </button>
            <Action venue={v} label={"Cancel " + label} run={() => v.api.call("DELETE", `/participant/offers/${o.id}`)} done="Offer cancelled">
              Cancel
            </Action>
          </>
        )}
        {editing && (
          <>
            <Action venue={v} class="save" label={"Save " + label} run={amend} done="Offer amended">
              Save
            </Action>
            <button type="button" aria-label="Discard changes" onClick={() => setEditing(false)}>
              Discard
            </button>
          </>
        )}
      </td>
    </tr>
  );
}
