import { useEffect, useState } from "preact/hooks";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import type { Instrument } from "../client/types";
import { Empty, Field, Flash, Num, Own, Section, useVenue } from "../ui/components";
import { fillFrom, isOwn, midOf, pairOf, spreadOf } from "../model/levels";
import type { Limit } from "../client/types";
import { type Sort, nextSort, sortRows } from "./sort";

/** SortHeader is a column's header: a button that sorts the grid by it, the order said by aria-sort. */
function SortHeader(props: { column: string; label: string; sort: Sort; onSort: (s: Sort) => void; num?: boolean }) {
  const { column, sort } = props;
  const on = sort.column === column;
  return (
    <th scope="col" class={props.num ? "num" : undefined} aria-sort={on ? sort.dir : "none"}>
      <button type="button" class="sort" onClick={() => props.onSort(nextSort(sort, column))}>
        {props.label}
        <span aria-hidden="true">{on ? (sort.dir === "ascending" ? " ▲" : " ▼") : ""}</span>
      </button>
    </th>
  );
}

/** Level is a best bid or ask; a trader clicks it to open the instrument with the ticket filled for the other side. */
function Level(props: { venue: Venue; ins: Instrument; side: "bid" | "ask"; l: Limit }) {
  const { venue: v, ins, side, l } = props;
  const shown = f.price(l.limit, ins.precision);
  if (!v.canTrade) return <>{shown}</>;
  const click = () => {
    v.books.fillTicket({ instrumentId: ins.id, marketId: l.market_id ?? "", ...fillFrom(side, l, ins) });
    location.hash = `#/instrument/${ins.id}`;
  };
  return (
    <button type="button" class="level" title={`${side === "ask" ? "Buy" : "Sell"} at ${shown}: open the ticket`} onClick={click}>
      {shown}
    </button>
  );
}

export function Market(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const [search, setSearch] = useState("");
  const [currency, setCurrency] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [bucket, setBucket] = useState("");
  const [marketId, setMarketId] = useState("");
  const [sort, setSort] = useState<Sort>({ column: "", dir: "ascending" });
  // Buckets change by the firm's admin without an event: read them when the market is shown.
  useEffect(() => void v.loadBuckets(), []);
  const currencies = [...new Set(v.instruments.map((i) => i.currency))].sort();
  const inBucket = bucket ? new Set(v.buckets.find((b) => b.id === bucket)?.instruments.map((i) => i.id) ?? []) : null;
  const q = search.trim().toLowerCase();
  const mine = v.user?.participant_id;
  const filtered = v.instruments.filter(
    (i: Instrument) =>
      (!q || i.name.toLowerCase().includes(q) || i.isin.toLowerCase().includes(q) || i.issuer.toLowerCase().includes(q)) &&
      (!currency || i.currency === currency) &&
      (!from || i.maturity.slice(0, 4) >= from) &&
      (!to || i.maturity.slice(0, 4) <= to) &&
      (!inBucket || inBucket.has(i.id)),
  );
  // What each column sorts by: the value it shows, exactly.
  const valueOf = (i: Instrument, column: string): string | number | null | undefined => {
    const b = v.books.bestOf(i.id, marketId || undefined);
    switch (column) {
      case "name":
        return i.name;
      case "isin":
        return i.isin;
      case "coupon":
        return i.coupon;
      case "maturity":
        return i.maturity;
      case "bidSize":
        return b.bid?.quantity;
      case "bid":
        return b.bid?.limit;
      case "ask":
        return b.ask?.limit;
      case "askSize":
        return b.ask?.quantity;
      case "spread":
        return spreadOf(b.bid?.limit, b.ask?.limit);
      case "mid":
        return midOf(b.bid?.limit, b.ask?.limit);
      case "last":
        return b.lastPrice;
      default:
        return null;
    }
  };
  const rows = sortRows(filtered, sort, valueOf);
  const stale = f.stale(v.status);
  const head = (column: string, label: string, num = false) => <SortHeader column={column} label={label} sort={sort} onSort={setSort} num={num} />;
  return (
    <Section
      title="Market"
      class={"market" + (stale ? " stale" : "")}
      actions={stale ? <span class="stale-marker" role="status">Prices may be stale: the stream is {v.status}</span> : undefined}
    >
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search">
          <input type="search" placeholder="Name, ISIN or issuer" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </Field>
        <Field label="Currency">
          <select value={currency} onChange={(e) => setCurrency(e.currentTarget.value)}>
            <option value="">All</option>
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Maturity from (year)">
          <input inputMode="numeric" size={6} value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </Field>
        <Field label="Maturity to (year)">
          <input inputMode="numeric" size={6} value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </Field>
        <Field label="Bucket">
          <select value={bucket} onChange={(e) => setBucket(e.currentTarget.value)}>
            <option value="">All</option>
            {v.buckets.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Market">
          <select value={marketId} onChange={(e) => setMarketId(e.currentTarget.value)}>
            <option value="">All continuous</option>
            {v.continuousMarkets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <table class="grid" aria-label="Instruments">
        <thead>
          <tr>
            {head("name", "Instrument")}
            {head("isin", "ISIN")}
            {head("coupon", "Coupon", true)}
            {head("maturity", "Maturity")}
            {head("bidSize", "Bid size", true)}
            {head("bid", "Bid", true)}
            {head("ask", "Ask", true)}
            {head("askSize", "Ask size", true)}
            {head("spread", "Spread", true)}
            {head("mid", "Mid", true)}
            <th scope="col" class="num">Bid yield</th>
            <th scope="col" class="num">Ask yield</th>
            <th scope="col" class="num">Indicative</th>
            {head("last", "Last", true)}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && <Empty cols={14}>No instrument matches the filters.</Empty>}
          {rows.map((i) => {
            const b = v.books.bestOf(i.id, marketId || undefined);
            const ind = v.books.indicativeOf(i.id);
            const bidYield = b.bid ? v.yieldAt(i.id, b.bid.limit) : null;
            const askYield = b.ask ? v.yieldAt(i.id, b.ask.limit) : null;
            const { spread, mid, across } = pairOf(b.bid, b.ask);
            // The best bid and ask from two markets: each says its market.
            const from = (l: Limit | null) => (across && l ? <span class="mkt">{v.market(l.market_id ?? "")?.name ?? ""}</span> : null);
            const halted = v.books.haltedOn(i.id, marketId ? [marketId] : v.continuousMarkets.map((m) => m.id));
            return (
              <tr key={i.id} data-isin={i.isin} class={halted.length > 0 ? "halted" : undefined}>
                <th scope="row">
                  <a href={`#/instrument/${i.id}`}>{i.name}</a>
                  {halted.length > 0 && (
                    <span class="tag halt" title={halted.map((m) => `${v.market(m)?.name ?? ""}: ${v.books.haltOf(i.id, m) ?? ""}`).join("; ")}>
                      halted{marketId || halted.length === v.continuousMarkets.length ? "" : " on " + halted.map((m) => v.market(m)?.name ?? "").join(", ")}
                    </span>
                  )}
                </th>
                <td class="mono">{i.isin}</td>
                <Num>{f.coupon(i.coupon)}</Num>
                <td>{f.date(i.maturity)}</td>
                <Num>
                  {isOwn(b.bid, mine) && <Own />}
                  {b.bid ? f.compact(b.bid.quantity) : ""}
                </Num>
                <Num class="bid" label={`Best bid ${i.name}`}>
                  <Flash value={b.bid?.limit}>{b.bid ? <Level venue={v} ins={i} side="bid" l={b.bid} /> : "–"}</Flash>
                  {from(b.bid)}
                </Num>
                <Num class="ask" label={`Best ask ${i.name}`}>
                  <Flash value={b.ask?.limit}>{b.ask ? <Level venue={v} ins={i} side="ask" l={b.ask} /> : "–"}</Flash>
                  {from(b.ask)}
                </Num>
                <Num>
                  {b.ask ? f.compact(b.ask.quantity) : ""}
                  {isOwn(b.ask, mine) && <Own />}
                </Num>
                <Num label={`Spread ${i.name}`}>
                  {across ? (
                    <span class="across" title="The best bid and the best ask rest on different markets: no one market's spread">
                      {f.price(spread, i.precision)} <span class="mkt">across markets</span>
                    </span>
                  ) : (
                    f.price(spread, i.precision)
                  )}
                </Num>
                <Num label={`Mid ${i.name}`}>
                  <Flash value={mid}>{f.price(mid, i.precision)}</Flash>
                </Num>
                <Num>{b.bid ? f.yieldPct(bidYield) : "–"}</Num>
                <Num>{b.ask ? f.yieldPct(askYield) : "–"}</Num>
                <Num class="muted">
                  {ind.bid || ind.ask ? `${f.price(ind.bid?.bid_price, i.precision)} / ${f.price(ind.ask?.ask_price, i.precision)}` : "–"}
                </Num>
                <Num>{b.lastPrice !== null ? f.price(b.lastPrice, i.precision) : "–"}</Num>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}
