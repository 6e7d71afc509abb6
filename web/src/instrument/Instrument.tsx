import { useEffect, useRef, useState } from "preact/hooks";
import { newKey, query } from "../client/api";
import { add, mul, parse, shift, text } from "../model/decimal";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import type { Analytics, Instrument as Ins, Limit, Market, Offer, PriceCollar } from "../client/types";
import { Action, Empty, Field, Flash, Num, Own, Section, SideRadios, Time, useVenue } from "../ui/ui";
import {
  type SettlementCalendar, collarWarning, nextBusinessDay, priceError, quantityError, settlementDateError, stepQuantity, yieldError,
} from "../model/validate";
import { confirmLines } from "../model/fills";
import { fillFrom, isOwn } from "../model/levels";
import { throttleDelay } from "./throttle";
import { Chart } from "./Chart";

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
  const chartMarket = markets.find((m) => m.is_partial_fill_allowed) ?? markets[0];
  return (
    <div class="instrument">
      <header class="title">
        <div>
          <h1>{ins.name}</h1>
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
            <Depth key={m.id} venue={v} ins={ins} marketId={m.id} title={m.name} partial={m.is_partial_fill_allowed} />
          ))}
          <Section title="OHLC chart">{chartMarket && <Chart venue={v} instrumentId={ins.id} marketId={chartMarket.id} precision={ins.precision} />}</Section>
          <Tape venue={v} ins={ins} />
        </div>
        <div class="col narrow">
          {v.canTrade ? <Ticket venue={v} ins={ins} /> : <p class="banner">Your role reads the market; trading needs a trader or admin credential.</p>}
          {v.isOperator && <Halts venue={v} ins={ins} markets={markets} />}
          <Calculator venue={v} ins={ins} />
          <Static ins={ins} />
        </div>
      </div>
    </div>
  );
}

function Depth(props: { venue: Venue; ins: Ins; marketId: string; title: string; partial: boolean }) {
  const { ins } = props;
  const book = props.venue.books.depth.get(ins.id)?.get(props.marketId);
  const bids = book?.bid ?? [];
  const asks = book?.ask ?? [];
  const rows = Math.max(bids.length, asks.length, 1);
  const cp = (l: Limit) => (
    <td class={"cp " + (l.is_counterparty_enabled ? "yes" : "no")} title={l.is_counterparty_enabled ? "You can trade with this entry" : "Not your counterparty"}>
      {l.is_counterparty_enabled ? "✓" : "–"}
      <span class="sr">{l.is_counterparty_enabled ? "tradeable" : "not tradeable"}</span>
    </td>
  );
  const v = props.venue;
  // A trader clicks a level to fill the ticket with the other side of it.
  const level = (side: "bid" | "ask", l: Limit) =>
    v.canTrade ? (
      <button
        type="button"
        class="level"
        title={`${side === "ask" ? "Buy" : "Sell"} at ${f.price(l.limit, ins.precision)}: fill the ticket`}
        onClick={() => v.books.fillTicket({ instrumentId: ins.id, marketId: props.marketId, ...fillFrom(side, l, ins) })}
      >
        {f.price(l.limit, ins.precision)}
      </button>
    ) : (
      f.price(l.limit, ins.precision)
    );
  const mine = v.user?.participant_id;
  const who = (l: Limit) => (
    <td class="who">
      {isOwn(l, mine) && <Own />}
      {l.participant_name ?? "anonymous"}
    </td>
  );
  const blank = (
    <>
      <td /> <td /> <td /> <td />
    </>
  );
  return (
    <Section title={`Depth · ${props.title}`} class="depth" actions={<span class="muted small">{props.partial ? "partial fills" : "all-or-none"}</span>}>
      <table class="grid" aria-label={`Depth on ${props.title}`}>
        <thead>
          <tr>
            <th scope="col" title="Counterparty enabled">Cpty</th>
            <th scope="col">Bidder</th>
            <th scope="col" class="num">Bid size</th>
            <th scope="col" class="num">Bid</th>
            <th scope="col" class="num">Ask</th>
            <th scope="col" class="num">Ask size</th>
            <th scope="col">Seller</th>
            <th scope="col" title="Counterparty enabled">Cpty</th>
          </tr>
        </thead>
        <tbody>
          {bids.length === 0 && asks.length === 0 ? (
            <Empty cols={8}>No orders on this market.</Empty>
          ) : (
            Array.from({ length: rows }, (_, i) => {
              const b = bids[i];
              const a = asks[i];
              return (
                <tr key={i}>
                  {b ? (
                    <>
                      {cp(b)}
                      {who(b)}
                      <Num>{f.quantity(b.quantity)}</Num>
                      <Num class="bid">
                        <Flash value={b.limit}>{level("bid", b)}</Flash>
                      </Num>
                    </>
                  ) : (
                    blank
                  )}
                  {a ? (
                    <>
                      <Num class="ask">
                        <Flash value={a.limit}>{level("ask", a)}</Flash>
                      </Num>
                      <Num>{f.quantity(a.quantity)}</Num>
                      {who(a)}
                      {cp(a)}
                    </>
                  ) : (
                    blank
                  )}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </Section>
  );
}

function Tape(props: { venue: Venue; ins: Ins }) {
  const v = props.venue;
  const prints = v.books.tape.filter((p) => p.instrumentId === props.ins.id).slice(0, 30);
  return (
    <Section title="Trade tape">
      <table class="grid" aria-label="Trade tape">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Market</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Quantity</th>
          </tr>
        </thead>
        <tbody>
          {prints.length === 0 && <Empty cols={4}>No trades yet.</Empty>}
          {prints.map((p) => (
            <tr key={p.tradeId}>
              <td>
                <Time at={p.at} />
              </td>
              <td>{v.market(p.marketId)?.name ?? ""}</td>
              <Num>{f.price(p.price, props.ins.precision)}</Num>
              {p.quantity === null ? (
                <td class="num muted small deferred" title="The size is deferred under the venue's transparency rules">
                  size at <Time at={p.sizeDueAt} />
                </td>
              ) : (
                <Num>{f.quantity(p.quantity)}</Num>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** useAnalytics asks the venue for an instrument's figures at a price (debounced as the trader types). */
function useAnalytics(v: Venue, id: string, price: string, settlement: string, nominal: string, valid: boolean) {
  const [a, setA] = useState<Analytics | null>(null);
  useEffect(() => {
    if (!valid) {
      setA(null);
      return;
    }
    let stale = false;
    const t = setTimeout(() => {
      v.api
        .get<Analytics>(`/instruments/${id}/analytics` + query({ price, settlement_date: settlement, nominal }))
        .then((r) => !stale && setA(r))
        .catch(() => !stale && setA(null));
    }, 150);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [id, price, settlement, nominal, valid]);
  return a;
}

/** Settlement terms of an instrument: its calendar (TARGET2 unless its static data names one), lag, holidays and default date. */
interface Settles extends SettlementCalendar {
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
function useSettles(v: Venue, ins: Ins, marketId?: string): Settles {
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

function today(): string {
  return f.localDate(new Date());
}

function Ticket(props: { venue: Venue; ins: Ins }) {
  const v = props.venue;
  const { ins } = props;
  const markets = v.continuousMarkets;
  const [direction, setDirection] = useState<"bid" | "ask">("bid");
  const [price, setPrice] = useState("");
  const [qty, setQty] = useState(String(ins.min_piece));
  const [marketId, setMarketId] = useState(markets.find((m) => m.is_partial_fill_allowed)?.id ?? markets[0]?.id ?? "");
  const [validity, setValidity] = useState<"gtc" | "gtd">("gtc");
  const [validUntil, setValidUntil] = useState("");
  const [settlement, setSettlement] = useState("");
  const [touched, setTouched] = useState(false);
  const confirming = v.pref("confirm");
  const [pending, setPending] = useState<{ body: Record<string, unknown>; lines: [string, string] } | null>(null);
  // A level clicked in a book (here or in the market grid) fills the ticket once.
  const fill = v.books.ticketFill;
  useEffect(() => {
    if (!fill || fill.instrumentId !== ins.id) return;
    v.books.ticketFill = null;
    setDirection(fill.direction);
    setPrice(fill.price);
    setQty(fill.quantity);
    if (markets.some((m) => m.id === fill.marketId)) setMarketId(fill.marketId);
    setTouched(false);
  }, [fill?.seq, ins.id]);
  const pErr = priceError(price, ins);
  const qErr = quantityError(qty, ins);
  const settles = useSettles(v, ins, marketId);
  const sErr = settlementDateError(settlement, today(), settles);
  const vErr = validity === "gtd" && !validUntil ? "Enter the time the offer expires" : null;
  const a = useAnalytics(v, ins.id, price, settlement, qty, !pErr && !qErr && !sErr);
  const collar = useCollar(v, ins.id, marketId);
  const cWarn = pErr ? null : collarWarning(price, collar);
  const amount = a && parse(qty) && parse(price) ? add(shift(mul(parse(qty)!, parse(price)!), -2), parse(a.accrued_interest)!) : null;
  const submit = async () => {
    setTouched(true);
    if (pErr || qErr || sErr || vErr) throw new Error(pErr ?? qErr ?? sErr ?? vErr ?? "");
    // The venue refuses a price outside its collar: say so before sending.
    if (cWarn) throw new Error(cWarn);
    if (collar?.halted) throw new Error(`Trading is halted on this market: ${collar.halt_reason ?? ""}`);
    const body: Record<string, unknown> = {
      instrument_id: ins.id,
      market_id: marketId,
      account_id: v.accountId,
      direction,
      price_per_unit: price.trim(),
      quantity: qty.trim(),
      validity,
    };
    if (settlement) body.settlement_date = settlement;
    if (validity === "gtd") body.valid_until = new Date(validUntil).toISOString();
    // Confirm before send, when the trader chose it: the dialog restates the order.
    if (confirming) {
      const market = markets.find((m) => m.id === marketId)?.name ?? "";
      setPending({ body, lines: confirmLines({ direction, quantity: qty.trim(), instrument: ins.name, price: price.trim(), precision: ins.precision, market, amount: amount ? text(amount) : null, currency: ins.currency }) });
      return;
    }
    await send(body);
  };
  const send = async (body: Record<string, unknown>) => {
    const direction = body.direction as string;
    const answer = await v.api.call<Offer>("POST", "/participant/offers", body, newKey());
    v.notify("info", f.placed(direction, answer));
    // Sent: the quantity is cleared so a second Enter does not send it again.
    setQty("");
    setTouched(false);
  };
  return (
    <Section title="Order ticket" class="ticket">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Order ticket">
        <SideRadios label="Side" value={direction} onChange={setDirection} buy="Buy (bid)" sell="Sell (ask)" />
        <Field label="Market">
          <select value={marketId} onChange={(e) => setMarketId(e.currentTarget.value)}>
            {markets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Clean price (%)" error={touched || price ? pErr ?? cWarn : null} hint={collarHint(collar)}>
          <input inputMode="decimal" class="num" value={price} onInput={(e) => setPrice(e.currentTarget.value)} placeholder={`e.g. 99.${"5".padEnd(Math.min(ins.precision, 3), "0")}`} />
        </Field>
        <Field label="Quantity (nominal)" error={touched || qty ? qErr : null} hint={`Min piece ${f.quantity(ins.min_piece)}, increment ${f.quantity(ins.min_increment)}`}>
          <input
            inputMode="numeric"
            class="num"
            value={qty}
            onInput={(e) => setQty(e.currentTarget.value.replace(/[,\s_]/g, ""))}
            onKeyDown={(e) => {
              if (e.key === "ArrowUp" || e.key === "ArrowDown") {
                e.preventDefault();
                setQty(stepQuantity(qty, ins, e.key === "ArrowUp" ? 1 : -1));
              }
            }}
          />
        </Field>
        <div class="row">
          <Field label="Validity">
            <select value={validity} onChange={(e) => setValidity(e.currentTarget.value as "gtc" | "gtd")}>
              <option value="gtc">Good till cancelled</option>
              <option value="gtd">Good till date</option>
            </select>
          </Field>
          {validity === "gtd" && (
            <Field label="Valid until" error={touched ? vErr : null}>
              <input type="datetime-local" value={validUntil} onInput={(e) => setValidUntil(e.currentTarget.value)} />
            </Field>
          )}
        </div>
        <Field
          label="Settlement date"
          error={sErr}
          hint={
            settles.defaultDate || a
              ? `Default ${settles.defaultDate || a?.settlement_date} (T+${settles.lag} ${settles.calendar})`
              : `Default: T+${settles.lag} on ${settles.calendar}`
          }
        >
          <input type="date" value={settlement} onInput={(e) => setSettlement(e.currentTarget.value)} />
        </Field>
        <dl class="preview" aria-label="Preview" aria-live="polite">
          <dt>Yield</dt>
          <dd class="num">{a ? f.yieldPct(a.yield) : "–"}</dd>
          <dt>Accrued interest</dt>
          <dd class="num">{a ? f.amount(a.accrued_interest) : "–"}</dd>
          <dt>Settlement amount</dt>
          <dd class="num">{amount ? f.amount(text(amount)) + " " + ins.currency : "–"}</dd>
          <dt>Settles</dt>
          <dd class="num">{a ? a.settlement_date : "–"}</dd>
        </dl>
        <label class="inline small">
          <input type="checkbox" checked={confirming} onChange={(e) => v.setPref("confirm", e.currentTarget.checked)} /> Confirm before sending
        </label>
        <Action
          venue={v}
          type="submit"
          class={"primary " + direction}
          label={direction === "bid" ? "Place bid" : "Place ask"}
          run={submit}
        />
      </form>
      {pending && (
        <ConfirmOrder
          venue={v}
          lines={pending.lines}
          send={async () => {
            await send(pending.body);
            setPending(null);
          }}
          cancel={() => setPending(null)}
        />
      )}
    </Section>
  );
}

/** ConfirmOrder restates an order before it is sent: a modal dialog, Send or Cancel (Escape cancels). */
function ConfirmOrder(props: { venue: Venue; lines: [string, string]; send: () => Promise<void>; cancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // Cancel has the focus: a held Enter does not send what was not read.
    cancel.current?.focus();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-order" onCancel={(e) => {
      e.preventDefault();
      props.cancel();
    }}>
      <h2 id="confirm-title">Send this order?</h2>
      <p id="confirm-order">
        <strong>{props.lines[0]}</strong>
        <br />
        {props.lines[1]}
      </p>
      <div class="actions">
        <Action venue={props.venue} class="primary" label="Send order" run={props.send}>
          Send
        </Action>
        <button type="button" ref={cancel} onClick={props.cancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

function Calculator(props: { venue: Venue; ins: Ins }) {
  const v = props.venue;
  const { ins } = props;
  const [settlement, setSettlement] = useState("");
  const [price, setPrice] = useState("100");
  const [yld, setYld] = useState("");
  const [res, setRes] = useState<{ clean_price: string; dirty_price: string; yield?: string; accrued_interest_per_100: string } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  // The default settlement date: the venue's trade date (not the
  // browser's) plus the lag in force on the first continuous market, in
  // business days of its calendar.
  const settles = useSettles(v, ins, v.continuousMarkets[0]?.id);
  useEffect(() => {
    if (settles.defaultDate) setSettlement(settles.defaultDate);
  }, [settles.defaultDate]);
  const terms = {
    day_count: ins.day_count,
    coupon: ins.coupon,
    frequency: ins.coupon_frequency,
    accrual_start: ins.interest_accrual_date.slice(0, 10),
    first_coupon_date: ins.first_coupon_date.slice(0, 10),
    maturity: ins.maturity.slice(0, 10),
    settlement_date: settlement,
  };
  const toYield = async () => {
    const e = priceError(price, { precision: 10 });
    if (e) throw new Error(e);
    const r = await v.api.call<{ yield: string; dirty_price: string; accrued_interest_per_100: string }>("POST", "/analytics/yield", { ...terms, clean_price: price.trim() });
    setRes({ ...r, clean_price: price.trim() });
    setYld(f.yieldPct(r.yield).replace(" %", ""));
    setErr(null);
  };
  const toPrice = async () => {
    const e = yieldError(yld);
    if (e) throw new Error(e);
    const r = await v.api.call<{ clean_price: string; dirty_price: string; accrued_interest_per_100: string }>("POST", "/analytics/price", { ...terms, yield: yld.trim() });
    setRes({ ...r, yield: yld.trim() });
    setPrice(f.price(r.clean_price, ins.precision));
    setErr(null);
  };
  // A result belongs to the inputs it was computed from: any edit clears it,
  // and Enter in a field computes from that field.
  const edit = (set: (v: string) => void, value: string) => {
    set(value);
    setRes(null);
    setErr(null);
  };
  const calc = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      setRes(null);
      setErr((e as Error).message);
    }
  };
  const enter = (fn: () => Promise<void>) => (e: KeyboardEvent) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    void calc(fn);
  };
  return (
    <Section title="Bond calculator" class="calc">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Bond calculator">
        <Field label={`Settlement date (${settles.calendar})`} error={settlementDateError(settlement, today(), settles)}>
          <input type="date" value={settlement} onInput={(e) => edit(setSettlement, e.currentTarget.value)} />
        </Field>
        <div class="row">
          <Field label="Calculator clean price (%)" error={price ? priceError(price, { precision: 10 }) : null}>
            <input inputMode="decimal" class="num" value={price} onInput={(e) => edit(setPrice, e.currentTarget.value)} onKeyDown={enter(toYield)} />
          </Field>
          <button type="button" aria-label="Price to yield" onClick={() => void calc(toYield)}>
            → yield
          </button>
        </div>
        <div class="row">
          <Field label="Calculator yield (%)" error={yld ? yieldError(yld) : null}>
            <input inputMode="decimal" class="num" value={yld} onInput={(e) => edit(setYld, e.currentTarget.value)} onKeyDown={enter(toPrice)} />
          </Field>
          <button type="button" aria-label="Yield to price" onClick={() => void calc(toPrice)}>
            → price
          </button>
        </div>
        {err && (
          <p class="error" role="alert">
            {err}
          </p>
        )}
        <dl class="preview" aria-label="Calculator result" aria-live="polite">
          <dt>Clean price</dt>
          <dd class="num">{res ? f.price(res.clean_price, ins.precision) : "–"}</dd>
          <dt>Dirty price</dt>
          <dd class="num">{res ? f.price(res.dirty_price, 6) : "–"}</dd>
          <dt>Accrued per 100</dt>
          <dd class="num">{res ? f.price(res.accrued_interest_per_100, 6) : "–"}</dd>
          <dt>Yield</dt>
          <dd class="num">{res?.yield ? f.yieldPct(res.yield) : "–"}</dd>
        </dl>
        <p class="muted small">
          {ins.day_count}, {ins.coupon_frequency.toLowerCase()} coupon {f.coupon(ins.coupon)}, accrual from {f.date(ins.interest_accrual_date)}.
        </p>
      </form>
    </Section>
  );
}

function Static(props: { ins: Ins }) {
  const { ins } = props;
  const rows: [string, string][] = [
    ["Issuer", ins.issuer],
    ["ISIN", ins.isin],
    ["Coupon", f.coupon(ins.coupon) + " " + ins.coupon_frequency],
    ["Day count", ins.day_count],
    ["Maturity", f.date(ins.maturity)],
    ["Currency", ins.currency],
    ["Industry", ins.industry],
    ["Country", ins.country_region],
    ["Rank", ins.rank],
    ["Min piece", f.quantity(ins.min_piece)],
    ["Min increment", f.quantity(ins.min_increment)],
    ["Amount outstanding", f.quantity(ins.amt_outstanding)],
  ];
  const sd = ins.static_data ?? {};
  for (const k of ["ticker", "settlement_calendar", "settlement_days", "pay_rank"]) if (typeof sd[k] === "string") rows.push([k.replace(/_/g, " "), sd[k] as string]);
  return (
    <Section title="Static data">
      <dl class="static">
        {rows.map(([k, val]) => (
          <>
            <dt key={k + "t"}>{k}</dt>
            <dd key={k + "d"}>{val}</dd>
          </>
        ))}
      </dl>
    </Section>
  );
}

/** collarGap is the least time between two reads of a price collar: a busy book changes many times a second. */
const collarGap = 1_000;

/**
 * useCollar reads the price collar of the instrument on the market, again
 * when its book changes — at most once a second, the last change always
 * read (throttleDelay).
 */
function useCollar(v: Venue, instrumentId: string, marketId: string): PriceCollar | null {
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
        .then((c) => !stale && setCollar(c))
        .catch(() => !stale && setCollar(null));
    }, throttleDelay(last, Date.now(), collarGap));
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [instrumentId, marketId, version]);
  return collar;
}

function collarHint(c: PriceCollar | null): string | undefined {
  if (!c) return undefined;
  if (c.halted) return `Halted: ${c.halt_reason ?? ""}`;
  if (c.reference_price === null || c.low === null) return `Price collar: up to ${String(c.high)} (no reference price)`;
  return `Price collar ${String(c.low)}–${String(c.high)} (±${c.price_collar_percent}% of ${String(c.reference_price)}, ${c.reference_source ?? ""})`;
}

/** Halts is the operator's control of trading in the instrument, market by market: halt with a reason, resume. */
function Halts(props: { venue: Venue; ins: Ins; markets: Market[] }) {
  return (
    <Section title="Trading halts">
      {props.markets.map((m) => (
        <HaltRow key={m.id} venue={props.venue} ins={props.ins} market={m} />
      ))}
    </Section>
  );
}

function HaltRow(props: { venue: Venue; ins: Ins; market: Market }) {
  const { venue: v, ins, market: m } = props;
  const collar = useCollar(v, ins.id, m.id);
  const [reason, setReason] = useState("");
  const halted = collar?.halted ?? false;
  const set = (on: boolean) => async () => {
    if (on && !reason.trim()) throw new Error("Give the reason for the halt");
    await v.api.call("PUT", `/admin/markets/${m.id}/instruments/${ins.id}/halt`, { halted: on, reason: on ? reason.trim() : "" });
    setReason("");
  };
  return (
    <form class="row halt" aria-label={`Halt on ${m.name}`} onSubmit={(e) => e.preventDefault()}>
      <p>
        <strong>{m.name}</strong>: <span class={halted ? "error" : "muted"}>{halted ? `halted · ${collar?.halt_reason ?? ""}` : "trading"}</span>
      </p>
      {halted ? (
        <Action venue={v} label={`Resume trading on ${m.name}`} run={set(false)} done="Trading resumed">
          Resume
        </Action>
      ) : (
        <>
          <Field label="Reason">
            <input aria-label={`Halt reason on ${m.name}`} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
          <Action venue={v} type="submit" label={`Halt trading on ${m.name}`} run={set(true)} done="Trading halted">
            Halt
          </Action>
        </>
      )}
    </form>
  );
}
