import { useState } from "preact/hooks";
import { newKey } from "../api";
import { cmp, mul, parse, shift, sub, text } from "../decimal";
import * as f from "../format";
import type { Venue } from "../store";
import { tradeSides } from "../trades";
import type { Offer, Trade } from "../types";
import { Action, Empty, Field, Num, Section, Time, limitPrice, useVenue } from "../ui";
import { priceError, quantityError } from "../validate";

export function Blotter(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  return (
    <div class="blotter">
      <Offers venue={v} />
      <Trades venue={v} />
      <Risk venue={v} />
    </div>
  );
}

function Offers(props: { venue: Venue }) {
  const v = props.venue;
  const [all, setAll] = useState(false);
  const rows = [...v.offers.values()]
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
        <Time at={o.createdAt} />
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

export function Trades(props: { venue: Venue; limit?: number }) {
  const v = props.venue;
  const mine = v.user?.participant_id;
  // The operator is party to no trade: it reads both sides.
  const title = mine ? "My trades" : "Trades";
  const rows = [...v.trades.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, props.limit ?? 200);
  return (
    <Section title={title}>
      <table class="grid" aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">{mine ? "Side" : "Buyer"}</th>
            <th scope="col">Instrument</th>
            <th scope="col">{mine ? "Counterparty" : "Seller"}</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Yield</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col" class="num">Accrued</th>
            <th scope="col" class="num">Settlement amount</th>
            <th scope="col">Settles</th>
            <th scope="col">Type</th>
            <th scope="col">TVTIC</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && <Empty cols={12}>No trades yet.</Empty>}
          {rows.map((t: Trade, i) => {
            const s = tradeSides(t, mine, (id) => v.counterpartyName(id));
            const ins = v.instrument(t.instrument_id ?? t.bid_order.instrument_id ?? "");
            const accrued = accruedOf(t);
            return (
              <tr key={t.id} data-trade={t.id}>
                <td>
                  <Time at={t.createdAt} />
                </td>
                {mine ? <td class={s.side === "Bought" ? "bid" : "ask"}>{s.side}</td> : <td>{s.buyer}</td>}
                <td>{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : ""}</td>
                <td>{mine ? s.counterparty : s.seller}</td>
                <Num>{f.price(t.price_per_unit, ins?.precision ?? 4)}</Num>
                <Num>{ins && i < yieldRows ? f.yieldPct(v.yieldAt(ins.id, t.price_per_unit, t.settlement_date)) : "–"}</Num>
                <Num>{f.quantity(t.quantity)}</Num>
                <Num>{f.amount(accrued)}</Num>
                <Num>{f.amount(t.price)}</Num>
                <td>{f.date(t.settlement_date)}</td>
                <td>{t.execution_type}</td>
                <td class="mono small tvtic" title={t.transaction_identification_code}>
                  {t.transaction_identification_code}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}

/** yieldRows is how many of the newest rows show a yield: each distinct price and date asks the venue once. */
const yieldRows = 50;

/** accruedOf is a trade's accrued interest: the field when sent, else settlement amount − quantity × clean / 100, exactly. */
export function accruedOf(t: Trade): string | null {
  if (t.accrued_interest !== undefined && t.accrued_interest !== null) return String(t.accrued_interest);
  const amount = parse(t.price);
  const q = parse(t.quantity);
  const p = parse(t.price_per_unit);
  if (!amount || !q || !p) return null;
  return text(sub(amount, shift(mul(q, p), -2)));
}

function Risk(props: { venue: Venue }) {
  const v = props.venue;
  return (
    <Section title="Risk limits">
      <table class="grid" aria-label="Risk limits">
        <thead>
          <tr>
            <th scope="col">Limit</th>
            <th scope="col" class="num">Value</th>
            <th scope="col" class="num">Used</th>
            <th scope="col">Use</th>
          </tr>
        </thead>
        <tbody>
          {v.risk.length === 0 && <Empty cols={4}>No risk limits.</Empty>}
          {v.risk.map((r) => {
            const val = parse(r.value);
            const used = parse(r.used);
            const pct = val && used && val.c !== 0n ? Number((used.c * 10n ** BigInt(val.s) * 1000n) / (val.c * 10n ** BigInt(used.s))) / 10 : 0;
            const over = val && used ? cmp(used, val) > 0 : false;
            return (
              <tr key={r.id} data-limit={r.name}>
                <th scope="row">{r.name}</th>
                <Num>{f.quantity(r.value)}</Num>
                <Num>{f.quantity(r.used)}</Num>
                <td>
                  <meter min={0} max={100} low={70} high={90} optimum={0} value={Math.min(pct, 100)} aria-label={`${r.name} use ${pct.toFixed(1)} percent`} class={over ? "over" : ""} />
                  <span class="small muted"> {pct.toFixed(1)} %</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}
