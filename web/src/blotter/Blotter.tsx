import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { add as addDec, cmp, mul, parse, shift, sub, text } from "../model/decimal";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { tradeSides } from "../model/trades";
import type { Offer, Trade } from "../client/types";
import { Action, Empty, Field, Num, Section, Time, limitPrice, useVenue } from "../ui/ui";
import { priceError, quantityError } from "../model/validate";

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
  const rows = [...v.deals.trades.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, props.limit ?? 200);
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
            <th scope="col">Public tape</th>
            {mine && <th scope="col">Allocation</th>}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && <Empty cols={mine ? 14 : 13}>No trades yet.</Empty>}
          {rows.map((t: Trade, i) => (
            <TradeRow key={t.id} venue={v} t={t} withYield={i < yieldRows} />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function TradeRow(props: { venue: Venue; t: Trade; withYield: boolean }) {
  const v = props.venue;
  const { t } = props;
  const mine = v.user?.participant_id;
  const s = tradeSides(t, mine, (id) => v.counterpartyName(id));
  const ins = v.instrument(t.instrument_id ?? t.bid_order.instrument_id ?? "");
  const accrued = accruedOf(t);
  const [allocating, setAllocating] = useState(false);
  const label = `${s.side} ${f.quantity(t.quantity)} ${ins?.name ?? ""} at ${f.price(t.price_per_unit, ins?.precision ?? 4)}`;
  return (
    <>
      <tr data-trade={t.id}>
        <td>
          <Time at={t.createdAt} />
        </td>
        {mine ? <td class={s.side === "Bought" ? "bid" : "ask"}>{s.side}</td> : <td>{s.buyer}</td>}
        <td>{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : ""}</td>
        <td>{mine ? s.counterparty : s.seller}</td>
        <Num>{f.price(t.price_per_unit, ins?.precision ?? 4)}</Num>
        <Num>{ins && props.withYield ? f.yieldPct(v.yieldAt(ins.id, t.price_per_unit, t.settlement_date)) : "–"}</Num>
        <Num>{f.quantity(t.quantity)}</Num>
        <Num>{f.amount(accrued)}</Num>
        <Num>{f.amount(t.price)}</Num>
        <td>{f.date(t.settlement_date)}</td>
        <td>{t.execution_type}</td>
        <td class="mono small tvtic" title={t.transaction_identification_code}>
          {t.transaction_identification_code}
        </td>
        <td class="small publication">
          <PublicationStatus t={t} now={v.now} />
        </td>
        {mine && (
          <td class="small allocation">
            <AllocationStatus venue={v} t={t} label={label} onAllocate={() => setAllocating(true)} allocating={allocating} />
          </td>
        )}
      </tr>
      {allocating && (
        <tr class="allocate">
          <td colSpan={14}>
            <AllocationForm venue={v} t={t} label={label} close={() => setAllocating(false)} />
          </td>
        </tr>
      )}
    </>
  );
}

/** PublicationStatus says when the public tape shows the trade: on it, its price with the size due later, or due. */
function PublicationStatus(props: { t: Trade; now: number }) {
  const p = props.t.publication;
  if (!p) return <span class="muted">–</span>;
  const due = (at: string) => Date.parse(at) <= props.now;
  if (p.published_volume_at || due(p.volume_due_at)) return <span title={"Deferral band " + p.deferral}>On tape</span>;
  if (p.published_price_at || due(p.price_due_at))
    return (
      <span title={"Deferral band " + p.deferral}>
        Price on tape; size at <Time at={p.volume_due_at} />
      </span>
    );
  return (
    <span title={"Deferral band " + p.deferral}>
      Deferred to <Time at={p.price_due_at} />
    </span>
  );
}

function AllocationStatus(props: { venue: Venue; t: Trade; label: string; allocating: boolean; onAllocate: () => void }) {
  const v = props.venue;
  const a = v.deals.allocations.get(props.t.id);
  if (a) {
    const accounts = a.allocations.map((x) => `${v.accountNumber(x.account_id)} ${f.quantity(x.quantity)} (${f.amount(x.price)})`).join("; ");
    return (
      <span title={accounts} class={a.late ? "late" : ""}>
        {a.allocations.length === 1 ? v.accountNumber(a.allocations[0]!.account_id) : `${a.allocations.length} accounts`}
        {a.late ? " · late" : ""}
      </span>
    );
  }
  if (!v.canTrade) return <span class="muted">Not allocated</span>;
  return (
    <button type="button" aria-label={"Allocate " + props.label} disabled={props.allocating} onClick={props.onAllocate}>
      Allocate
    </button>
  );
}

/** AllocationForm splits the firm's side of a trade to its accounts: all on the first by default. */
function AllocationForm(props: { venue: Venue; t: Trade; label: string; close: () => void }) {
  const v = props.venue;
  const { t } = props;
  const accounts = v.accounts;
  const [qty, setQty] = useState<Record<string, string>>(() => (accounts[0] ? { [accounts[0].id]: String(t.quantity) } : {}));
  const total = accounts.reduce((sum, a) => {
    const q = parse((qty[a.id] ?? "").trim() || "0");
    return q && sum ? addDec(sum, q) : null;
  }, parse("0") as ReturnType<typeof parse>);
  const matches = total !== null && cmp(total, parse(String(t.quantity))!) === 0;
  const submit = async () => {
    const parts = accounts.filter((a) => (qty[a.id] ?? "").trim() !== "" && (qty[a.id] ?? "").trim() !== "0").map((a) => ({ account_id: a.id, quantity: qty[a.id]!.trim() }));
    await v.api.call("POST", `/trades/${t.id}/allocations`, { allocations: parts }, newKey());
    props.close();
  };
  return (
    <form class="allocate" aria-label={"Allocation of " + props.label} onSubmit={(e) => e.preventDefault()}>
      <span class="muted small">Split {f.quantity(t.quantity)} to the firm's accounts (accrued and amounts are worked out to the cent):</span>
      {accounts.map((a) => (
        <Field key={a.id} label={"Quantity for account " + a.number}>
          <input class="num" value={qty[a.id] ?? ""} onInput={(e) => setQty({ ...qty, [a.id]: e.currentTarget.value })} />
        </Field>
      ))}
      <span class={matches ? "muted small" : "error small"}>
        {total === null ? "Quantities must be numbers" : `${f.quantity(text(total))} of ${f.quantity(t.quantity)}`}
      </span>
      <Action venue={v} type="submit" label={"Confirm allocation of " + props.label} disabled={!matches} run={submit} done="Trade allocated">
        Confirm
      </Action>
      <button type="button" aria-label="Discard allocation" onClick={props.close}>
        Discard
      </button>
    </form>
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
          {v.deals.risk.length === 0 && <Empty cols={4}>No risk limits.</Empty>}
          {v.deals.risk.map((r) => {
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
