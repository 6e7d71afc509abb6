import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { AuditEntry, Halt, Instrument, Market } from "../client/types";
import { useCollar } from "../instrument/collar";
import type { Venue } from "../state/venue";
import { Empty, Field, Section, Time } from "../ui/components";
import { Confirmed, FormError, Submit, useForm } from "../ui/forms";

/** Markets is the operator's markets: the list, a new market, one market's settings, its instruments and their halts. */
export function Markets(props: { venue: Venue; selected?: string }) {
  const v = props.venue;
  const [markets, setMarkets] = useState<Market[]>(v.markets);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  useEffect(() => {
    void v.api
      .get<Market[]>("/markets?limit=1000")
      .then((ms) => {
        setMarkets(ms);
        v.markets = ms.filter((m) => m.is_enabled);
        v.changed();
      })
      .catch(() => {});
  }, [version]);
  const market = markets.find((m) => m.id === props.selected) ?? markets[0];
  return (
    <div class="cols">
      <div class="col">
        <Section title="Markets">
          <table class="grid" aria-label="Markets">
            <thead>
              <tr>
                <th scope="col">Market</th>
                <th scope="col">Facility</th>
                <th scope="col" class="num">Collar %</th>
                <th scope="col" class="num">Band %</th>
                <th scope="col" class="num">Lag</th>
                <th scope="col">Hours</th>
                <th scope="col">Enabled</th>
              </tr>
            </thead>
            <tbody>
              {markets.length === 0 && <Empty cols={7}>No markets.</Empty>}
              {markets.map((m) => (
                <tr key={m.id} class={m.id === market?.id ? "best" : undefined}>
                  <th scope="row">
                    <a href={"#/operator/markets/" + m.id} aria-current={m.id === market?.id ? "true" : undefined}>
                      {m.name}
                    </a>
                  </th>
                  <td>{m.facility_type}</td>
                  <td class="num">{m.price_collar_percent ?? ""}</td>
                  <td class="num">{m.max_price_percent ?? ""}</td>
                  <td class="num">T+{m.settlement_lag}</td>
                  <td>{m.trading_hours ? `${m.trading_hours.open}–${m.trading_hours.close} (${m.trading_phase ?? ""})` : "around the clock"}</td>
                  <td>{m.is_enabled ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        <NewMarket venue={v} created={reload} />
      </div>
      <div class="col">
        {market && <MarketSettings key={market.id + ":" + (market.updatedAt ?? "")} venue={v} market={market} saved={reload} />}
      </div>
      <div class="col">{market && <MarketInstruments venue={v} market={market} />}</div>
    </div>
  );
}

const marketFields = [
  "name", "facility_type", "timezone", "calendar", "settlement_lag", "settlement_lags", "price_collar_percent", "max_price_percent",
  "is_enabled", "is_partial_fill_allowed", "trading_hours", "trading_hours.open", "trading_hours.close", "trading_hours.pre_open_minutes",
] as const;

function NewMarket(props: { venue: Venue; created: () => void }) {
  const v = props.venue;
  const [name, setName] = useState("");
  const [facility, setFacility] = useState("continues-matching");
  const form = useForm(v, marketFields);
  const create = form.run(async () => {
    await v.api.call("POST", "/admin/markets", { name: name.trim(), facility_type: facility });
    setName("");
    props.created();
  }, "Market created");
  return (
    <Section title="New market">
      <form class="stack" aria-label="New market" onSubmit={(e) => e.preventDefault()}>
        <Field label="Market name" error={form.error("name")}>
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Facility" error={form.error("facility_type")}>
          <select value={facility} onChange={(e) => setFacility(e.currentTarget.value)}>
            <option value="continues-matching">Continuous book</option>
            <option value="OTC">OTC (RFQ)</option>
          </select>
        </Field>
        <FormError form={form} />
        <Submit label="Create market" run={create} />
      </form>
    </Section>
  );
}

/** MarketSettings edits a market's settings: collar, band, settlement lag and its dated changes, time zone, calendar. */
function MarketSettings(props: { venue: Venue; market: Market; saved: () => void }) {
  const { venue: v, market: m } = props;
  const [s, setS] = useState({
    name: m.name,
    timezone: m.timezone ?? "UTC",
    calendar: m.calendar,
    settlement_lag: String(m.settlement_lag),
    price_collar_percent: m.price_collar_percent ?? "",
    max_price_percent: m.max_price_percent ?? "",
    is_enabled: m.is_enabled,
    is_partial_fill_allowed: m.is_partial_fill_allowed,
    hours: m.trading_hours != null,
    open: m.trading_hours?.open ?? "08:00",
    close: m.trading_hours?.close ?? "17:30",
    pre_open: String(m.trading_hours?.pre_open_minutes ?? 0),
  });
  const [lags, setLags] = useState((m.settlement_lags ?? []).map((l) => ({ from: l.from, lag: String(l.lag) })));
  const form = useForm(v, marketFields);
  const set = (k: keyof typeof s) => (e: Event) => {
    const t = e.currentTarget as HTMLInputElement;
    setS({ ...s, [k]: t.type === "checkbox" ? t.checked : t.value });
  };
  const save = form.run(async () => {
    const lag = Number(s.settlement_lag);
    if (!Number.isInteger(lag) || lag < 0) {
      form.fail({ settlement_lag: "must be a whole number of business days" });
      return;
    }
    await v.api.call("PUT", `/admin/markets/${m.id}`, {
      entity: {
        name: s.name.trim(),
        timezone: s.timezone.trim(),
        calendar: s.calendar.trim(),
        settlement_lag: lag,
        settlement_lags: lags.map((l) => ({ from: l.from, lag: Number(l.lag) })),
        price_collar_percent: s.price_collar_percent.trim(),
        max_price_percent: s.max_price_percent.trim(),
        is_enabled: s.is_enabled,
        is_partial_fill_allowed: s.is_partial_fill_allowed,
        // Without hours the market trades around the clock.
        trading_hours: s.hours ? { open: s.open.trim(), close: s.close.trim(), pre_open_minutes: Number(s.pre_open.trim() || "0") } : null,
      },
    });
    props.saved();
  }, "Market settings saved");
  return (
    <Section title={"Settings of " + m.name}>
      <form class="stack" aria-label={"Settings of " + m.name} onSubmit={(e) => e.preventDefault()}>
        <Field label="Name" error={form.error("name")}>
          <input value={s.name} onInput={set("name")} />
        </Field>
        <div class="row">
          <Field label="Price collar %" error={form.error("price_collar_percent")} hint="Refuses a price this far from the reference">
            <input inputMode="decimal" value={s.price_collar_percent} onInput={set("price_collar_percent")} />
          </Field>
          <Field label="Absolute band %" error={form.error("max_price_percent")} hint="Refuses a price this far from par">
            <input inputMode="decimal" value={s.max_price_percent} onInput={set("max_price_percent")} />
          </Field>
        </div>
        <div class="row">
          <Field label="Settlement lag (business days)" error={form.error("settlement_lag")}>
            <input inputMode="numeric" value={s.settlement_lag} onInput={set("settlement_lag")} />
          </Field>
          <Field label="Time zone" error={form.error("timezone")}>
            <input value={s.timezone} onInput={set("timezone")} />
          </Field>
          <Field label="Calendar" error={form.error("calendar")}>
            <input value={s.calendar} onInput={set("calendar")} />
          </Field>
        </div>
        <fieldset>
          <legend>Dated changes of the settlement lag</legend>
          {lags.length === 0 && <p class="muted">None: the lag above applies to every trade date.</p>}
          {lags.map((l, i) => (
            <div class="row" key={i}>
              <Field label={`Change ${i + 1}: from trade date`}>
                <input type="date" value={l.from} onInput={(e) => setLags(lags.map((x, j) => (j === i ? { ...x, from: e.currentTarget.value } : x)))} />
              </Field>
              <Field label={`Change ${i + 1}: lag`}>
                <input inputMode="numeric" value={l.lag} onInput={(e) => setLags(lags.map((x, j) => (j === i ? { ...x, lag: e.currentTarget.value } : x)))} />
              </Field>
              <button type="button" aria-label={`Remove change ${i + 1}`} onClick={() => setLags(lags.filter((_, j) => j !== i))}>
                Remove
              </button>
            </div>
          ))}
          {form.error("settlement_lags") && (
            <span class="error" role="alert">
              {form.error("settlement_lags")}
            </span>
          )}
          <button type="button" onClick={() => setLags([...lags, { from: "", lag: "1" }])}>
            Add a dated change
          </button>
        </fieldset>
        <div class="row">
          <label class="inline">
            <input type="checkbox" checked={s.is_enabled} onChange={set("is_enabled")} /> Enabled
          </label>
          <label class="inline">
            <input type="checkbox" checked={s.is_partial_fill_allowed} onChange={set("is_partial_fill_allowed")} /> Partial fills
          </label>
        </div>
        <fieldset data-slot="trading-hours">
          <legend>Trading hours</legend>
          <label class="inline">
            <input type="checkbox" checked={s.hours} onChange={set("hours")} /> Trades only within hours, on the calendar's business days
          </label>
          {!s.hours && <p class="muted">Around the clock: continuous at every hour, every day.</p>}
          {s.hours && (
            <div class="row">
              <Field label="Opens (HH:MM)" error={form.error("trading_hours.open") ?? form.error("trading_hours")} hint={"In " + (s.timezone || "UTC")}>
                <input inputMode="numeric" size={5} value={s.open} onInput={set("open")} />
              </Field>
              <Field label="Closes (HH:MM)" error={form.error("trading_hours.close")}>
                <input inputMode="numeric" size={5} value={s.close} onInput={set("close")} />
              </Field>
              <Field label="Pre-open (minutes)" error={form.error("trading_hours.pre_open_minutes")} hint="Orders refused, the phase announced">
                <input inputMode="numeric" size={4} value={s.pre_open} onInput={set("pre_open")} />
              </Field>
            </div>
          )}
          {m.trading_phase && <p class="muted">Now: {m.trading_phase}</p>}
        </fieldset>
        <FormError form={form} />
        <Submit label={"Save settings of " + m.name} run={save}>
          Save settings
        </Submit>
      </form>
    </Section>
  );
}

/** MarketInstruments lists the instruments listed on a market, each with its halt and the halt's history. */
function MarketInstruments(props: { venue: Venue; market: Market }) {
  const { venue: v, market: m } = props;
  const listed = v.instruments.filter((i) => !i.markets || i.markets.some((x) => x.id === m.id));
  const [history, setHistory] = useState<Instrument | null>(null);
  return (
    <>
      <Section title={"Instruments on " + m.name}>
        <table class="grid" aria-label={"Instruments on " + m.name}>
          <thead>
            <tr>
              <th scope="col">Instrument</th>
              <th scope="col">Trading</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {listed.length === 0 && <Empty cols={3}>No instruments on this market.</Empty>}
            {listed.map((i) => (
              <HaltRow key={i.id} venue={v} market={m} ins={i} history={() => setHistory(i)} />
            ))}
          </tbody>
        </table>
      </Section>
      {history && <HaltHistory key={history.id} venue={v} market={m} ins={history} />}
    </>
  );
}

function HaltRow(props: { venue: Venue; market: Market; ins: Instrument; history: () => void }) {
  const { venue: v, market: m, ins } = props;
  const collar = useCollar(v, ins.id, m.id);
  const halted = collar?.halted ?? false;
  const reason = collar?.halt_reason ?? "";
  const set = (on: boolean) => async (why: string) => {
    await v.api.call<Halt>("PUT", `/admin/markets/${m.id}/instruments/${ins.id}/halt`, { halted: on, reason: why });
    v.books.bookVersion.set(ins.id, (v.books.bookVersion.get(ins.id) ?? 0) + 1);
    v.changed();
  };
  const what = `${ins.name} on ${m.name}`;
  return (
    <tr>
      <th scope="row">{ins.name}</th>
      <td class="wrap">{halted ? <span class="error">halted · {reason}</span> : <span class="muted">trading</span>}</td>
      <td class="actions">
        {halted ? (
          <Confirmed venue={v} label={"Resume " + what} warning="Resuming opens the book to new orders at once." run={set(false)} done="Trading resumed">
            Resume
          </Confirmed>
        ) : (
          <Confirmed
            venue={v}
            class="danger"
            label={"Halt " + what}
            warning="A halt refuses every new order, quote and accept on this instrument here until it resumes."
            run={set(true)}
            done="Trading halted"
          >
            Halt
          </Confirmed>
        )}
        <button type="button" aria-label={"Halt history of " + what} onClick={props.history}>
          History
        </button>
      </td>
    </tr>
  );
}

/** HaltHistory is an instrument's halts and resumptions on a market, from the audit trail. */
function HaltHistory(props: { venue: Venue; market: Market; ins: Instrument }) {
  const { venue: v, market: m, ins } = props;
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const version = v.books.bookVersion.get(ins.id) ?? 0;
  useEffect(() => {
    void v.api
      .get<AuditEntry[]>("/admin/audit-log" + query({ entity: `halt:${m.id}/${ins.id}`, limit: 1000 }))
      .then((es) => setEntries(es.reverse()))
      .catch((e: Error) => v.notify("error", e.message));
  }, [ins.id, m.id, version]);
  return (
    <Section title={`Halt history of ${ins.name}`}>
      <table class="grid" aria-label={`Halt history of ${ins.name} on ${m.name}`}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">Reason</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {entries?.length === 0 && <Empty cols={4}>Never halted.</Empty>}
          {(entries ?? []).map((e) => (
            <tr key={e.seq}>
              <td>
                <Time at={e.at} />
              </td>
              <td>{e.action === "instrument.halt" ? "halted" : "resumed"}</td>
              <td class="wrap">{e.reason}</td>
              <td>{v.names.get(e.user_id) ?? e.role.toLowerCase()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
