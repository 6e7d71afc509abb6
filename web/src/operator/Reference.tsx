import { useState } from "preact/hooks";
import type { Instrument } from "../client/types";
import type { Venue } from "../state/venue";
import { Field, Section } from "../ui/components";
import { FormError, Submit, useForm } from "../ui/forms";

/** reloadInstruments reads the instruments again after the operator changed one, for every view of the screen. */
async function reloadInstruments(v: Venue): Promise<void> {
  const all = await v.api.get<Instrument[]>("/instruments?limit=1000");
  v.instruments = all.sort((a, b) => a.maturity.localeCompare(b.maturity) || a.name.localeCompare(b.name));
  v.changed();
}

/** Reference is the venue's reference data the operator publishes: news, instruments, public buckets. */
export function Reference(props: { venue: Venue }) {
  const v = props.venue;
  return (
    <div class="cols">
      <div class="col">
        <PublishNews venue={v} />
        <PublicBucket venue={v} />
      </div>
      <div class="col">
        <NewInstrument venue={v} />
      </div>
      <div class="col">
        <EditInstrument venue={v} />
      </div>
    </div>
  );
}

function PublishNews(props: { venue: Venue }) {
  const v = props.venue;
  const blank = { title: "", body: "", source: "", url: "" };
  const [f, setF] = useState(blank);
  const form = useForm(v, ["title", "body", "source", "url"]);
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const publish = form.run(async () => {
    await v.api.call("POST", "/admin/news", f);
    setF(blank);
  }, "News published");
  return (
    <Section title="Publish news">
      <form class="stack" aria-label="Publish news" onSubmit={(e) => e.preventDefault()}>
        <Field label="Headline" error={form.error("title")}>
          <input value={f.title} onInput={set("title")} />
        </Field>
        <Field label="Text" error={form.error("body")}>
          <textarea rows={4} value={f.body} onInput={set("body")} />
        </Field>
        <Field label="Source" error={form.error("source")}>
          <input value={f.source} onInput={set("source")} />
        </Field>
        <Field label="Link" error={form.error("url")}>
          <input type="url" value={f.url} onInput={set("url")} />
        </Field>
        <FormError form={form} />
        <Submit label="Publish news" run={publish} />
      </form>
    </Section>
  );
}

function PublicBucket(props: { venue: Venue }) {
  const v = props.venue;
  const [name, setName] = useState("");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const form = useForm(v, ["name", "instruments"]);
  const create = form.run(async () => {
    await v.api.call("POST", "/admin/buckets", { name: name.trim(), is_enabled: true, instruments: [...picked].map((id) => ({ id })) });
    setName("");
    setPicked(new Set());
    await v.loadBuckets();
  }, "Public bucket created");
  return (
    <Section title="New public bucket">
      <form class="stack" aria-label="New public bucket" onSubmit={(e) => e.preventDefault()}>
        <Field label="Public bucket name" error={form.error("name")}>
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <fieldset class="picker">
          <legend>Instruments of the bucket</legend>
          {v.instruments.map((i) => (
            <label key={i.id} class="inline">
              <input
                type="checkbox"
                checked={picked.has(i.id)}
                onChange={(e) => {
                  const next = new Set(picked);
                  if (e.currentTarget.checked) next.add(i.id);
                  else next.delete(i.id);
                  setPicked(next);
                }}
              />{" "}
              {i.name}
            </label>
          ))}
        </fieldset>
        {form.error("instruments") && (
          <span class="error" role="alert">
            {form.error("instruments")}
          </span>
        )}
        <FormError form={form} />
        <Submit label="Create public bucket" run={create} />
      </form>
    </Section>
  );
}

const instrumentFields = [
  "isin", "name", "issuer", "currency", "coupon", "coupon_frequency", "day_count", "maturity", "interest_accrual_date",
  "min_piece", "min_increment", "par_amount", "market_ids",
] as const;
type InstrumentForm = Record<(typeof instrumentFields)[number], string>;

function NewInstrument(props: { venue: Venue }) {
  const v = props.venue;
  const blank: InstrumentForm = {
    isin: "", name: "", issuer: "", currency: "EUR", coupon: "", coupon_frequency: "Annual", day_count: "ACT/ACT", maturity: "",
    interest_accrual_date: "", min_piece: "1000", min_increment: "1000", par_amount: "1000", market_ids: "",
  };
  const [f, setF] = useState(blank);
  const [markets, setMarkets] = useState<Set<string>>(new Set(v.markets.map((m) => m.id)));
  const form = useForm(v, instrumentFields);
  const set = (k: keyof InstrumentForm) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const create = form.run(async () => {
    const { market_ids: _, ...terms } = f;
    await v.api.call<Instrument>("POST", "/admin/instruments", { ...terms, isin: terms.isin.trim().toUpperCase(), market_ids: [...markets] });
    setF(blank);
    await reloadInstruments(v);
  }, "Instrument created");
  const text = (k: keyof InstrumentForm, label: string, type: "text" | "date" = "text") => (
    <Field label={label} error={form.error(k)}>
      {type === "date" ? <input type="date" value={f[k]} onInput={set(k)} /> : <input value={f[k]} onInput={set(k)} />}
    </Field>
  );
  return (
    <Section title="New instrument">
      <form class="stack" aria-label="New instrument" onSubmit={(e) => e.preventDefault()}>
        {text("isin", "ISIN")}
        {text("name", "Instrument name")}
        {text("issuer", "Issuer")}
        <div class="row">
          {text("currency", "Currency")}
          {text("coupon", "Coupon %")}
        </div>
        <div class="row">
          <Field label="Coupon frequency" error={form.error("coupon_frequency")}>
            <select value={f.coupon_frequency} onChange={set("coupon_frequency")}>
              {["Annual", "Semi-Annual", "Quarterly", "Monthly"].map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          </Field>
          {text("day_count", "Day count")}
        </div>
        <div class="row">
          {text("maturity", "Maturity", "date")}
          {text("interest_accrual_date", "Interest accrual date", "date")}
        </div>
        <div class="row">
          {text("min_piece", "Min piece")}
          {text("min_increment", "Min increment")}
          {text("par_amount", "Par amount")}
        </div>
        <fieldset>
          <legend>Listed on</legend>
          {v.markets.map((m) => (
            <label key={m.id} class="inline">
              <input
                type="checkbox"
                checked={markets.has(m.id)}
                onChange={(e) => {
                  const next = new Set(markets);
                  if (e.currentTarget.checked) next.add(m.id);
                  else next.delete(m.id);
                  setMarkets(next);
                }}
              />{" "}
              {m.name}
            </label>
          ))}
          {form.error("market_ids") && <span class="error">{form.error("market_ids")}</span>}
        </fieldset>
        <FormError form={form} />
        <Submit label="Create instrument" run={create} />
      </form>
    </Section>
  );
}

function EditInstrument(props: { venue: Venue }) {
  const v = props.venue;
  const [id, setId] = useState(v.instruments[0]?.id ?? "");
  const ins = v.instruments.find((i) => i.id === id);
  const [f, setF] = useState({ name: ins?.name ?? "", issuer: ins?.issuer ?? "", min_piece: String(ins?.min_piece ?? ""), min_increment: String(ins?.min_increment ?? "") });
  const form = useForm(v, ["name", "issuer", "min_piece", "min_increment"]);
  const pick = (next: string) => {
    const i = v.instruments.find((x) => x.id === next);
    setId(next);
    setF({ name: i?.name ?? "", issuer: i?.issuer ?? "", min_piece: String(i?.min_piece ?? ""), min_increment: String(i?.min_increment ?? "") });
  };
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const save = form.run(async () => {
    await v.api.call("PUT", `/admin/instruments/${id}`, { entity: f });
    await reloadInstruments(v);
  }, "Instrument updated");
  return (
    <Section title="Edit an instrument">
      <form class="stack" aria-label="Edit an instrument" onSubmit={(e) => e.preventDefault()}>
        <Field label="Instrument to edit">
          <select value={id} onChange={(e) => pick(e.currentTarget.value)}>
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Its name" error={form.error("name")}>
          <input value={f.name} onInput={set("name")} />
        </Field>
        <Field label="Its issuer" error={form.error("issuer")}>
          <input value={f.issuer} onInput={set("issuer")} />
        </Field>
        <div class="row">
          <Field label="Its min piece" error={form.error("min_piece")}>
            <input value={f.min_piece} onInput={set("min_piece")} />
          </Field>
          <Field label="Its min increment" error={form.error("min_increment")}>
            <input value={f.min_increment} onInput={set("min_increment")} />
          </Field>
        </div>
        <FormError form={form} />
        <Submit label="Save instrument" run={save} />
      </form>
    </Section>
  );
}
