import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { Instrument as Ins } from "../client/types";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Section, useVenue } from "../ui/components";
import { Calculator } from "./Calculator";
import { Chart } from "./Chart";
import { DepthLadder } from "./DepthLadder";
import { Halts } from "./Halts";
import { OrderTicket } from "./OrderTicket";
import { StaticData } from "./StaticData";
import { TradeTape } from "./TradeTape";

/** Instrument is an instrument's page: its books, chart and tape; the order ticket, the operator's halts, the calculator and the static data beside. */
export function Instrument(props: { venue: Venue; id: string }) {
  const v = useVenue(props.venue);
  const [detail, setDetail] = useState<Ins | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    v.api
      .get<Ins>(`/instruments/${props.id}` + query({ market_depth: 1 }))
      .then((d) => !stale && setDetail(d))
      .catch((e: Error) => !stale && setError(e.message));
    void v.books.loadDepth(props.id); // the books, level by level, kept live by instrument.depth
    return () => {
      stale = true;
    };
  }, [props.id]);
  const ins = detail ?? v.instrument(props.id);
  if (error && !ins) return <p class="banner error" role="alert">{error}</p>;
  if (!ins) return <p class="muted">Loading…</p>;
  // The market that allows partial fills first: it is where most trading is.
  const markets = [...v.continuousMarkets].sort((x, y) => Number(y.is_partial_fill_allowed) - Number(x.is_partial_fill_allowed));
  // The chart opens on the market of the instrument's latest print, else the book's; the trader chooses any market, the RFQ market too.
  const latest = v.books.tape.find((p) => p.instrumentId === ins.id)?.marketId;
  const chartMarket = v.market(latest ?? "") ?? markets.find((m) => m.is_partial_fill_allowed) ?? markets[0];
  const chartMarkets = [...markets, ...v.rfqMarkets];
  const stale = f.stale(v.status);
  return (
    <div class={"instrument" + (stale ? " stale" : "")}>
      <header class="title">
        <div>
          <h1>{ins.name}</h1>
          {stale && (
            <p class="stale-marker" role="status">
              Prices may be stale: the stream is {v.status}
            </p>
          )}
          <p class="muted">
            <span class="mono">{ins.isin}</span> · {ins.issuer} · {f.coupon(ins.coupon)} {ins.coupon_frequency} · matures {f.date(ins.maturity)} · {ins.currency}
          </p>
        </div>
        <nav class="actions" aria-label="Instrument actions">
          <a class="button" href="#/market">
            Back to market
          </a>
          {v.canTrade && (
            <a class="button" href={`#/rfq?instrument=${ins.id}`}>
              Request quotes
            </a>
          )}
        </nav>
      </header>
      <div class="cols">
        <div class="col">
          {markets.map((m) => (
            <DepthLadder key={m.id} venue={v} ins={ins} marketId={m.id} title={m.name} partial={m.is_partial_fill_allowed} />
          ))}
          <Section title="OHLC chart">
            {chartMarket && <Chart key={ins.id} venue={v} instrumentId={ins.id} markets={chartMarkets} initialMarketId={chartMarket.id} precision={ins.precision} />}
          </Section>
          <TradeTape venue={v} ins={ins} />
        </div>
        <div class="col narrow">
          {v.canTrade ? <OrderTicket venue={v} ins={ins} /> : <p class="banner">Your role reads the market; trading needs a trader or admin credential.</p>}
          {v.isOperator && <Halts venue={v} ins={ins} markets={markets} />}
          <Calculator venue={v} ins={ins} />
          <StaticData ins={ins} />
        </div>
      </div>
    </div>
  );
}
