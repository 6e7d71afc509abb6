import type { IChartApi, ISeriesApi, UTCTimestamp } from "lightweight-charts";
import { useEffect, useRef, useState } from "preact/hooks";
import { query } from "../client/api";
import { gapTimes, spaced } from "../model/bars";
import { chartTime } from "../model/format";
import type { Venue } from "../state/venue";
import type { Bar, Market } from "../client/types";

const intervals = ["1m", "5m", "1h", "1d"] as const;
const seconds: Record<(typeof intervals)[number], number> = { "1m": 60, "5m": 300, "1h": 3600, "1d": 86400 };

/** fewBars is up to how many intervals the chart shows its whole history across its width. */
const fewBars = 120;

// Chart coordinates are plotted, not computed with: the only place prices
// become binary floating point is this drawing.
function point(b: Bar) {
  return {
    time: chartTime(b.open_time) as UTCTimestamp, // the axis reads in the trader's zone
    open: Number(b.open),
    high: Number(b.high),
    low: Number(b.low),
    close: Number(b.close),
  };
}

/**
 * Chart draws an instrument's OHLC bars on the market the trader chooses
 * (any market: the book's, the all-or-none book's, the RFQ market's
 * trades), live from /ohlc, each bar at its time on the axis.
 */
export function Chart(props: { venue: Venue; instrumentId: string; markets: Market[]; initialMarketId: string; precision: number }) {
  const v = props.venue;
  const [marketId, setMarketId] = useState(props.initialMarketId);
  const market = props.markets.find((m) => m.id === marketId);
  const lastTime = useRef<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const series = useRef<ISeriesApi<"Candlestick"> | null>(null);
  const chartApi = useRef<IChartApi | null>(null);
  const [interval, setInterval] = useState<(typeof intervals)[number]>("1m");
  const [count, setCount] = useState(0);

  const [ready, setReady] = useState(false);
  useEffect(() => {
    // The charting library is the largest part of the screen: it loads
    // when a chart is first shown, not with the sign-in page.
    let chart: IChartApi | null = null;
    let gone = false;
    void import("lightweight-charts").then(({ createChart, CandlestickSeries }) => {
      if (gone || !box.current) return;
      chart = createChart(box.current, {
        height: 220,
        layout: { background: { color: "#ffffff" }, textColor: "#1d2733", attributionLogo: false },
        grid: { vertLines: { color: "#eef1f5" }, horzLines: { color: "#eef1f5" } },
        // Room right of the last bar, so a single bar is not cut at the edge.
        timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 6, barSpacing: 10 },
        localization: { priceFormatter: (p: number) => p.toFixed(props.precision) },
        autoSize: true,
      });
      series.current = chart.addSeries(CandlestickSeries, {
        upColor: "#1a7f5a",
        downColor: "#c0392b",
        borderVisible: false,
        wickUpColor: "#1a7f5a",
        wickDownColor: "#c0392b",
      });
      chartApi.current = chart;
      setReady(true);
    });
    return () => {
      gone = true;
      chart?.remove();
      chartApi.current = null;
      series.current = null;
      setReady(false);
    };
  }, [props.precision]);

  useEffect(() => {
    if (!ready) return;
    let stale = false;
    setCount(0); // another market or interval: nothing drawn of it yet
    lastTime.current = null;
    const load = async () => {
      try {
        const bars = await v.api.get<Bar[]>(
          `/instruments/${props.instrumentId}/ohlc` + query({ interval, market_id: marketId }),
        );
        if (stale || !series.current) return;
        const points = bars.map(point);
        const data = spaced(points, seconds[interval]).map((d) => ("open" in d ? d : { time: d.time as UTCTimestamp }));
        series.current.setData(data);
        lastTime.current = points[points.length - 1]?.time ?? null;
        // A short history spreads over the width; a long one shows its latest part.
        if (data.length <= fewBars) chartApi.current?.timeScale().fitContent();
        else chartApi.current?.timeScale().scrollToRealTime();
        setCount(bars.length);
        v.books.noteBars(props.instrumentId, bars.length);
      } catch (e) {
        v.notify("error", "Chart: " + (e as Error).message);
      }
    };
    v.chart = {
      bar: (b) => {
        if (b.instrument_id !== props.instrumentId || b.market_id !== marketId || b.interval !== interval || !series.current) return;
        const p = point(b);
        if (lastTime.current !== null && p.time > lastTime.current) {
          for (const t of gapTimes(lastTime.current, p.time, seconds[interval])) series.current.update({ time: t as UTCTimestamp });
        }
        series.current.update(p);
        lastTime.current = Math.max(lastTime.current ?? p.time, p.time);
        setCount((n) => Math.max(n, 1));
        v.books.noteBars(props.instrumentId, 1);
      },
      reload: () => void load(),
    };
    v.stream?.open("/ohlc", { interval, instrument_ids: [props.instrumentId], market_id: marketId });
    void load();
    return () => {
      stale = true;
      v.chart = null;
    };
  }, [props.instrumentId, marketId, interval, ready]);

  return (
    <div class="chart">
      <div class="chart-bar">
        <label class="inline small">
          Market{" "}
          <select aria-label="Chart market" value={marketId} onChange={(e) => setMarketId(e.currentTarget.value)}>
            {props.markets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <div class="segmented" role="group" aria-label="Chart interval">
          {intervals.map((i) => (
            <button key={i} type="button" aria-pressed={i === interval} onClick={() => setInterval(i)}>
              {i}
            </button>
          ))}
        </div>
        <span class="muted small">{count === 0 ? `No trades on ${market?.name ?? "this market"} in this interval's history` : ""}</span>
      </div>
      <div ref={box} class="chart-box" role="img" aria-label={`OHLC chart, ${interval} bars on ${market?.name ?? ""}`} />
    </div>
  );
}
