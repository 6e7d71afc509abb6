import { useState } from "preact/hooks";
import type { Trade } from "../client/types";
import { type BlotterFilter, csv, keeps } from "../model/blotter";
import * as f from "../model/format";
import { accruedOf, tradeDate, tradeSides } from "../model/trades";
import type { Venue } from "../state/venue";
import { Action, Empty, Num, Section, Time } from "../ui/components";
import { AllocationForm, AllocationStatus } from "./Allocation";
import { saveCsv } from "./download";
import { yieldRows } from "./rows";

/** dateOf is a trade's trade date: its market's business day. */
function dateOf(v: Venue, t: Trade): string {
  return tradeDate(t.createdAt, v.market(t.market_id)?.timezone);
}

/** TradeBlotter lists the firm's trades (every trade, buyer and seller, for the operator) as the filters keep them, with their publication and allocation. */
export function TradeBlotter(props: { venue: Venue; limit?: number; filter?: BlotterFilter }) {
  const v = props.venue;
  const mine = v.user?.participant_id;
  // The operator is party to no trade: it reads both sides.
  const title = mine ? "My trades" : "Trades";
  const { filter } = props;
  // A busy venue's operator reads hundreds of trades, rendered on every
  // event: only a filter that narrows the trades reads their sides and dates.
  const narrows = !!filter && (filter.instrumentId !== "" || filter.side !== "" || filter.from !== "" || filter.to !== "");
  const rows = [...v.deals.trades.values()]
    .filter((t) => {
      if (!filter || !narrows) return true;
      const side = filter.side ? tradeSides(t, mine, () => "").side : "";
      const date = filter.from || filter.to ? dateOf(v, t) : "";
      return keeps(filter, { instrumentId: instrumentOf(t), side: side === "Bought" ? "buy" : side === "Sold" ? "sell" : null, status: null, date });
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, props.limit ?? 200);
  const exportCsv = async () => saveCsv(`trades-${f.dayKey(new Date())}.csv`, tradesCsv(v, rows));
  return (
    <Section
      title={title}
      actions={
        <Action venue={v} label="Export trades shown (CSV)" disabled={rows.length === 0} run={exportCsv}>
          Export CSV
        </Action>
      }
    >
      <table class="grid trades" aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Trade date</th>
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
          {rows.length === 0 && <Empty cols={mine ? 15 : 14}>{v.deals.trades.size === 0 ? "No trades yet." : "No trades match the filters."}</Empty>}
          {rows.map((t: Trade, i) => (
            <TradeRow key={t.id} venue={v} t={t} withYield={i < yieldRows} />
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function instrumentOf(t: Trade): string {
  return t.instrument_id ?? t.bid_order.instrument_id ?? "";
}

/** tradesCsv is the trades shown as CSV: exact numbers, dates YYYY-MM-DD, instants in UTC. */
function tradesCsv(v: Venue, rows: Trade[]): string {
  const mine = v.user?.participant_id;
  const header = ["Trade date", "Time (UTC)", mine ? "Side" : "Buyer", "Instrument", "ISIN", mine ? "Counterparty" : "Seller", "Market", "Price", "Quantity", "Accrued", "Settlement amount", "Settles", "Type", "TVTIC"];
  return csv(
    header,
    rows.map((t) => {
      const s = tradeSides(t, mine, (id) => v.counterpartyName(id));
      const ins = v.instrument(instrumentOf(t));
      return [
        dateOf(v, t), t.createdAt, mine ? s.side : s.buyer, ins?.name ?? "", ins?.isin ?? "", mine ? s.counterparty : s.seller, v.market(t.market_id)?.name ?? "",
        String(t.price_per_unit), String(t.quantity), accruedOf(t) ?? "", String(t.price), t.settlement_date, t.execution_type, t.transaction_identification_code,
      ];
    }),
  );
}

function TradeRow(props: { venue: Venue; t: Trade; withYield: boolean }) {
  const v = props.venue;
  const { t } = props;
  const mine = v.user?.participant_id;
  const s = tradeSides(t, mine, (id) => v.counterpartyName(id));
  const ins = v.instrument(instrumentOf(t));
  const accrued = accruedOf(t);
  const [allocating, setAllocating] = useState(false);
  const label = `${s.side} ${f.quantity(t.quantity)} ${ins?.name ?? ""} at ${f.price(t.price_per_unit, ins?.precision ?? 4)}`;
  return (
    <>
      <tr data-trade={t.id}>
        <td>
          <Time at={t.createdAt} full />
        </td>
        <td class="trade-date">{f.date(dateOf(v, t))}</td>
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
          <td colSpan={15}>
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
