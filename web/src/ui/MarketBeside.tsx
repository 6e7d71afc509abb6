import { query } from "../client/api";
import type { Bar, Num } from "../client/types";
import * as f from "../model/format";
import { type MarketView, marketView } from "../model/quotecheck";
import type { Venue } from "../state/venue";

/**
 * marketOf is an instrument's market as a dealer quoting it reads it:
 * best bid and ask over the continuous markets, mid, and the last trade
 * (the books' last price, else the close of its newest daily bar on any
 * market, read once: a trade before sign-in whose publication is
 * deferred is on no tape the screen read).
 */
export function marketOf(v: Venue, instrumentId: string): MarketView {
  const best = v.books.bestOf(instrumentId);
  return marketView({ ...best, lastPrice: best.lastPrice ?? lastClose(v, instrumentId) });
}

const closes = new Map<string, Num | null>();

/** lastClose is the close of the instrument's newest daily bar on any market: null until read, or without trades. */
function lastClose(v: Venue, instrumentId: string): Num | null {
  if (closes.has(instrumentId)) return closes.get(instrumentId) ?? null;
  closes.set(instrumentId, null); // asked once
  void v.api
    .get<Bar[]>(`/instruments/${instrumentId}/ohlc` + query({ interval: "1d" }))
    .then((bars) => {
      const newest = [...bars].sort((a, b) => a.open_time.localeCompare(b.open_time)).pop();
      if (newest) {
        closes.set(instrumentId, newest.close);
        v.changed();
      }
    })
    .catch(() => {}); // none: asked once all the same
  return null;
}

/** MarketBeside shows the market beside a dealer's quote input: best bid and ask, mid and last trade. */
export function MarketBeside(props: { m: MarketView; precision: number; label: string }) {
  const { m, precision } = props;
  const p = (x: string | number | null) => (x === null ? "–" : f.price(x, precision));
  return (
    <dl class="beside small" aria-label={props.label}>
      <dt>Bid</dt>
      <dd class="num bid">{p(m.bid)}</dd>
      <dt>Ask</dt>
      <dd class="num ask">{p(m.ask)}</dd>
      <dt>Mid</dt>
      <dd class="num">{p(m.mid)}</dd>
      <dt>Last</dt>
      <dd class="num">{p(m.last)}</dd>
    </dl>
  );
}

/** FarWarning asks the dealer to confirm a quote far from the market: send it anyway, or change it. */
export function FarWarning(props: { venue: Venue; text: string[]; send: () => Promise<unknown>; change: () => void; label: string; done: string }) {
  return (
    <div class="banner warn far" role="alert" aria-label={props.label}>
      {props.text.map((t) => (
        <p key={t}>{t}</p>
      ))}
      <div class="row">
        <button
          type="button"
          class="primary"
          onClick={async () => {
            try {
              await props.send();
              props.venue.notify("info", props.done);
            } catch (e) {
              props.venue.notify("error", (e as Error).message);
            }
          }}
        >
          Send anyway
        </button>
        <button type="button" onClick={props.change}>
          Change the price
        </button>
      </div>
    </div>
  );
}
