// An instrument's settlement terms as the ticket and the calculator read them.
import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { Instrument } from "../client/types";
import * as f from "../model/format";
import { type SettlementCalendar, nextBusinessDay } from "../model/validate";
import type { Venue } from "../state/venue";

/** Settlement terms of an instrument: its calendar (TARGET2 unless its static data names one), lag, holidays and default date. */
export interface Settles extends SettlementCalendar {
  lag: number;
  /** defaultDate is trade date + lag business days of the calendar, as the venue counts it; "" until known. */
  defaultDate: string;
}

const calendars = new Map<string, Promise<Map<string, string>>>();

/**
 * useSettles reads an instrument's settlement calendar: holidays this year and next, and the
 * default settlement date — on marketId, with the market's lag in force today (EU T+1 moves it),
 * else with the instrument's own.
 */
export function useSettles(v: Venue, ins: Instrument, marketId?: string): Settles {
  const sd = ins.static_data ?? {};
  const calendar = typeof sd.settlement_calendar === "string" && sd.settlement_calendar ? sd.settlement_calendar : "TARGET2";
  const lag = typeof sd.settlement_days === "string" && /^\d+$/.test(sd.settlement_days) ? Number(sd.settlement_days) : 2;
  const [state, setState] = useState<Settles>({ calendar, lag, holidays: new Map(), defaultDate: "" });
  useEffect(() => {
    let stale = false;
    const tradeDate = new Date().toISOString().slice(0, 10); // the venue's trade date is the UTC day
    const year = Number(tradeDate.slice(0, 4));
    const key = calendar + "/" + year;
    let holidays = calendars.get(key);
    if (!holidays) {
      holidays = Promise.all(
        [year, year + 1].map((y) =>
          v.api
            .get<{ holidays: { date: string; name: string }[] }>(`/calendars/${encodeURIComponent(calendar)}/holidays` + query({ year: y }))
            .then((r) => r.holidays)
            .catch(() => []),
        ),
      ).then((lists) => new Map(lists.flat().map((h) => [h.date, h.name])));
      calendars.set(key, holidays);
    }
    const settle = marketId
      ? v.api.get<{ settlement_date: string; lag: number }>(`/markets/${marketId}/settlement-date` + query({ trade_date: tradeDate }))
      : v.api.get<{ settlement_date: string; lag: number }>(`/calendars/${encodeURIComponent(calendar)}/settlement-date` + query({ trade_date: tradeDate, lag }));
    void Promise.all([holidays, settle.catch(() => null)]).then(([h, r]) => {
      if (!stale) setState({ calendar, lag: r?.lag ?? lag, holidays: h, defaultDate: r ? nextBusinessDay(r.settlement_date, h) : "" });
    });
    return () => {
      stale = true;
    };
  }, [ins.id, calendar, lag, marketId]);
  return state;
}

/** today is the trader's local date. */
export function today(): string {
  return f.localDate(new Date());
}
