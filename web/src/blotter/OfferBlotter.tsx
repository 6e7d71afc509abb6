import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import type { Offer } from "../client/types";
import * as f from "../model/format";
import { limitPrice } from "../model/offers";
import { priceError, quantityError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Action, Empty, Num, Section, Time } from "../ui/components";
import { yieldRows } from "./rows";

/** OfferBlotter lists the firm's offers and quotes, open ones by default; an open one is amended or cancelled in its row. */
export function OfferBlotter(props: { venue: Venue }) {
  const v = props.venue;
  const [all, setAll] = useState(false);
  const rows = [...v.orders.offers.values()]
    .filter((o) => all || o.status === "created")
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, 200);
  return (
    <Section
      title="My offers and quotes"
      actions={
        <label class="inline">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> Show closed
        </label>
      }
    >
      <table class="grid" aria-label="My offers and quotes">
        <thead>
          <tr>
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
          {rows.length === 0 && <Empty cols={13}>{all ? "No offers yet." : "No open offers."}</Empty>}
          {rows.map((o, i) => (
            <OfferRow key={o.id} venue={v} o={o} withYield={i < yieldRows} />
          ))}
        </tbody>
      </table>
    </Section>
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
