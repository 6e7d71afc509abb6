import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, newKey, query } from "../client/api";
import { withParties } from "../client/requests";
import type { Analytics, Instrument, Offer } from "../client/types";
import { add, mul, parse, shift, text } from "../model/decimal";
import { confirmLines } from "../model/fills";
import * as f from "../model/format";
import { type TimeInForce, marketDone, tifError, tifFields, timesInForce } from "../model/tif";
import { collarWarning, defaultQuantity, expandQuantity, limitError, priceError, quantityError, settlementDateError, stepQuantity } from "../model/validate";
import { phaseNotice } from "../model/phase";
import type { Venue } from "../state/venue";
import { Action, Field, Section, SideRadios } from "../ui/components";
import { collarHint, useCollar } from "./collar";
import { ConfirmOrder } from "./ConfirmOrder";
import { OrderIdentifiers } from "./OrderIdentifiers";
import { today, useSettles } from "./settlement";

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

/** OrderTicket places a bid or an ask on a continuous market, checked as the trader types; a clicked level fills it. */
export function OrderTicket(props: { venue: Venue; ins: Instrument }) {
  const v = props.venue;
  const { ins } = props;
  const markets = v.continuousMarkets;
  const [direction, setDirection] = useState<"bid" | "ask">("bid");
  const [price, setPrice] = useState("");
  const [qty, setQty] = useState(() => defaultQuantity(ins));
  // The venue's last refusal of the quantity (a risk limit), in words, beside the field until it changes.
  const [refused, setRefused] = useState<string | null>(null);
  // The price is where a trader starts: focused when the instrument opens, the side one Shift+Tab away.
  const priceInput = useRef<HTMLInputElement>(null);
  useEffect(() => priceInput.current?.focus(), [ins.id]);
  const [marketId, setMarketId] = useState(markets.find((m) => m.is_partial_fill_allowed)?.id ?? markets[0]?.id ?? "");
  const [validity, setValidity] = useState<TimeInForce>("gtc");
  const atMarket = validity === "market";
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
  const pErr = atMarket ? null : priceError(price, ins);
  const nominal = expandQuantity(qty);
  const qErr = quantityError(qty, ins) ?? (v.deals.risk.length ? limitError(nominal, price, v.deals.risk, ins.currency) : null) ?? refused;
  const settles = useSettles(v, ins, marketId);
  const sErr = settlementDateError(settlement, today(), settles);
  const vErr = tifError(validity, validUntil, v.now);
  const a = useAnalytics(v, ins.id, price, settlement, nominal, !atMarket && !pErr && !quantityError(qty, ins) && !sErr);
  const collar = useCollar(v, ins.id, marketId);
  // A halt on the chosen market, live from instrument.halt: nothing is placed there.
  const halt = v.books.haltOf(ins.id, marketId);
  const marketName = markets.find((m) => m.id === marketId)?.name ?? "";
  // A market with trading hours outside them takes no orders: said above the price, Place disabled.
  const closed = phaseNotice(v.market(marketId), marketName);
  const cWarn = pErr || atMarket ? null : collarWarning(price, collar);
  const amount = a && parse(nominal) && parse(price) ? add(shift(mul(parse(nominal)!, parse(price)!), -2), parse(a.accrued_interest)!) : null;
  const submit = async () => {
    setTouched(true);
    if (pErr || qErr || sErr || vErr) throw new Error(pErr ?? qErr ?? sErr ?? vErr ?? "");
    // The venue refuses a price outside its collar: say so before sending.
    if (cWarn) throw new Error(cWarn);
    if (halt !== null) throw new Error(`Trading is halted on ${marketName}${halt ? ": " + halt : ""}`);
    const body: Record<string, unknown> = {
      instrument_id: ins.id,
      market_id: marketId,
      account_id: v.accountId,
      direction,
      ...(atMarket ? {} : { price_per_unit: price.trim() }),
      quantity: nominal,
      ...tifFields(validity, validUntil),
    };
    if (settlement) body.settlement_date = settlement;
    // Confirm before send, when the trader chose it: the dialog restates the order.
    if (confirming) {
      const market = markets.find((m) => m.id === marketId)?.name ?? "";
      const lines = confirmLines({ direction, quantity: nominal, instrument: ins.name, price: price.trim(), precision: ins.precision, market, amount: amount ? text(amount) : null, currency: ins.currency });
      if (atMarket) lines[0] = `${f.side(direction)} ${f.quantity(nominal)} ${ins.name} at market (immediate or cancel)`;
      setPending({ body, lines });
      return;
    }
    await send(body);
  };
  const send = async (body: Record<string, unknown>) => {
    const direction = body.direction as string;
    let answer: Offer;
    try {
      answer = await v.api.call<Offer>("POST", "/participant/offers", withParties(body, v.parties), newKey());
    } catch (e) {
      // A risk limit's refusal is said in words, with the currency, beside the quantity.
      const said = e instanceof ApiError ? f.riskRefusal(e.message, ins.currency) : null;
      if (!said) throw e;
      setRefused(said);
      setTouched(true);
      throw new Error(said);
    }
    // One notice per fill: a fill's own notice comes with its trade; a market order says what became of it.
    const line = body.market_order ? marketDone(direction, answer) : f.placed(direction, answer);
    if (line) v.notify("info", line);
    // Sent: the quantity is cleared so a second Enter does not send it again.
    setQty("");
    setTouched(false);
  };
  return (
    <Section title="Order ticket" class="ticket">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Order ticket">
        <SideRadios label="Side" value={direction} onChange={setDirection} buy="Buy (bid)" sell="Sell (ask)" />
        {halt !== null && (
          <p class="banner error halt" role="alert">
            <strong>Trading halted</strong> on {marketName}
            {halt ? `: ${halt}` : ""}. Orders are refused there until the operator resumes it.
          </p>
        )}
        {closed !== null && (
          <p class="banner error phase" role="alert">
            {closed}
          </p>
        )}
        <Field label="Clean price (%)" error={touched || price ? pErr ?? cWarn : null} hint={halt !== null ? undefined : collarHint(collar)}>
          <input
            ref={priceInput}
            inputMode="decimal"
            class="num"
            value={atMarket ? "" : price}
            disabled={atMarket}
            onInput={(e) => setPrice(e.currentTarget.value)}
            placeholder={atMarket ? "at market" : `e.g. 99.${"5".padEnd(Math.min(ins.precision, 3), "0")}`}
          />
        </Field>
        <Field
          label="Quantity (nominal)"
          error={touched || qty ? qErr : null}
          hint={`Min piece ${f.quantity(ins.min_piece)}, increment ${f.quantity(ins.min_increment)}; 500k, 2m, 3mm; ↑/↓ step by the size`}
        >
          <input
            inputMode="decimal"
            class="num"
            value={qty}
            onInput={(e) => {
              setQty(e.currentTarget.value);
              setRefused(null);
            }}
            onBlur={() => {
              if (!quantityError(qty, ins)) setQty(expandQuantity(qty));
            }}
            onKeyDown={(e) => {
              if (e.key === "ArrowUp" || e.key === "ArrowDown") {
                e.preventDefault();
                setQty(stepQuantity(qty, ins, e.key === "ArrowUp" ? 1 : -1));
                setRefused(null);
              }
            }}
          />
        </Field>
        <Field label="Market">
          <select value={marketId} onChange={(e) => setMarketId(e.currentTarget.value)}>
            {markets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
        <div class="row">
          <Field label="Time in force" hint={atMarket ? "Takes the best prices now; the rest is cancelled" : undefined}>
            <select value={validity} onChange={(e) => setValidity(e.currentTarget.value as TimeInForce)}>
              {timesInForce.map(([t, label]) => (
                <option key={t} value={t}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          {validity === "gtd" && (
            <Field label="Valid until" error={touched || validUntil ? vErr : null}>
              <input inputMode="numeric" placeholder="YYYY-MM-DD HH:MM" size={16} value={validUntil} onInput={(e) => setValidUntil(e.currentTarget.value.trim())} />
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
          <input inputMode="numeric" placeholder="YYYY-MM-DD" size={10} value={settlement} onInput={(e) => setSettlement(e.currentTarget.value.trim())} />
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
          disabled={halt !== null || closed !== null}
          run={submit}
        />
      </form>
      <OrderIdentifiers venue={v} />
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
