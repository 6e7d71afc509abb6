import type { IChartApi, ISeriesApi, UTCTimestamp } from "lightweight-charts";
import { useEffect, useRef, useState } from "preact/hooks";
import { query } from "../client/api";
import { chartTime } from "../model/format";
import type { Venue } from "../state/venue";
import type { Bar } from "../client/types";

const intervals = ["1m", "5m", "1h", "1d"] as const;

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

/** Chart draws an instrument's OHLC bars on one market, live from /ohlc. */
export function Chart(props: { venue: Venue; instrumentId: string; marketId: string; precision: number }) {
  const v = props.venue;
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
    const load = async () => {
      try {
        const bars = await v.api.get<Bar[]>(
          `/instruments/${props.instrumentId}/ohlc` + query({ interval, market_id: props.marketId }),
        );
        if (stale || !series.current) return;
        series.current.setData(bars.map(point));
        chartApi.current?.timeScale().scrollToRealTime();
        setCount(bars.length);
      } catch (e) {
        v.notify("error", "Chart: " + (e as Error).message);
      }
    };
    v.chart = {
      bar: (b) => {
        if (b.instrument_id !== props.instrumentId || b.market_id !== props.marketId || b.interval !== interval) return;
        series.current?.update(point(b));
        setCount((n) => Math.max(n, 1));
      },
      reload: () => void load(),
    };
    v.stream?.open("/ohlc", { interval, instrument_ids: [props.instrumentId], market_id: props.marketId });
    void load();
    return () => {
      stale = true;
      v.chart = null;
    };
  }, [props.instrumentId, props.marketId, interval, ready]);

  return (
    <div class="chart">
      <div class="segmented" role="group" aria-label="Chart interval">
        {intervals.map((i) => (
          <button key={i} type="button" aria-pressed={i === interval} onClick={() => setInterval(i)}>
            {i}
          </button>
        ))}
        <span class="muted small">{count === 0 ? "No trades yet in this interval's history" : ""}</span>
      </div>
      <div ref={box} class="chart-box" role="img" aria-label={`OHLC chart, ${interval} bars`} />
    </div>
  );
}
