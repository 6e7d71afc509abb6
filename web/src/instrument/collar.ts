// The price collar of an instrument on a market, as the ticket and the operator's halts read it.
import { useEffect, useRef, useState } from "preact/hooks";
import { query } from "../client/api";
import type { PriceCollar } from "../client/types";
import type { Venue } from "../state/venue";
import { throttleDelay } from "./throttle";

/** collarGap is the least time between two reads of a price collar: a busy book changes many times a second. */
const collarGap = 1_000;

/**
 * useCollar reads the price collar of the instrument on the market, again
 * when its book changes — at most once a second, the last change always
 * read (throttleDelay).
 */
export function useCollar(v: Venue, instrumentId: string, marketId: string): PriceCollar | null {
  const [collar, setCollar] = useState<PriceCollar | null>(null);
  const version = v.books.bookVersion.get(instrumentId) ?? 0;
  const lastRead = useRef<{ key: string; at: number } | null>(null);
  useEffect(() => {
    if (!marketId) return;
    let stale = false;
    const key = instrumentId + "/" + marketId;
    const last = lastRead.current?.key === key ? lastRead.current.at : null;
    const timer = setTimeout(() => {
      lastRead.current = { key, at: Date.now() };
      v.api
        .get<PriceCollar>(`/instruments/${instrumentId}/price-collar` + query({ market_id: marketId }))
        .then((c) => {
          if (stale) return;
          setCollar(c);
          v.books.noteCollar(c); // the halt it says, for every view
        })
        .catch(() => !stale && setCollar(null));
    }, throttleDelay(last, Date.now(), collarGap));
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [instrumentId, marketId, version]);
  return collar;
}

/** collarHint says the collar, or the halt, under the ticket's price. */
export function collarHint(c: PriceCollar | null): string | undefined {
  if (!c) return undefined;
  if (c.halted) return `Halted: ${c.halt_reason ?? ""}`;
  if (c.reference_price === null || c.low === null) return `Price collar: up to ${String(c.high)} (no reference price)`;
  return `Price collar ${String(c.low)}–${String(c.high)} (±${c.price_collar_percent}% of ${String(c.reference_price)}, ${c.reference_source ?? ""})`;
}
