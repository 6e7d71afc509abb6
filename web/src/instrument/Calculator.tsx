import { useEffect, useState } from "preact/hooks";
import type { Instrument } from "../client/types";
import * as f from "../model/format";
import { priceError, settlementDateError, yieldError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Field, Section } from "../ui/components";
import { today, useSettles } from "./settlement";

/** Calculator turns a clean price into a yield and back, on the instrument's terms and a settlement date. */
export function Calculator(props: { venue: Venue; ins: Instrument }) {
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
          <input inputMode="numeric" placeholder="YYYY-MM-DD" size={10} value={settlement} onInput={(e) => edit(setSettlement, e.currentTarget.value.trim())} />
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
