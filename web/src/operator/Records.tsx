import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { ParticipantRecord, ReplayedBook, RestingRecord } from "../client/types";
import type { Venue } from "../state/venue";
import { Empty, Field, Section } from "../ui/components";
import { FormError, Submit, useForm } from "../ui/forms";

const formats = {
  csv: { accept: "text/csv", ext: ".csv", label: "CSV" },
  ndjson: { accept: "application/x-ndjson", ext: ".ndjson", label: "NDJSON" },
} as const;

/** Records is the order records' export (one day, a firm, an instrument; CSV or NDJSON) and the book replayed at an instant. */
export function Records(props: { venue: Venue }) {
  const v = props.venue;
  const [firms, setFirms] = useState<ParticipantRecord[]>([]);
  useEffect(() => {
    void v.api.get<ParticipantRecord[]>("/participants?limit=1000").then(setFirms).catch(() => {});
  }, []);
  return (
    <div class="cols">
      <div class="col">
        <Export venue={v} firms={firms} />
      </div>
      <div class="col wide">
        <Replay venue={v} firms={firms} />
      </div>
    </div>
  );
}

function Export(props: { venue: Venue; firms: ParticipantRecord[] }) {
  const v = props.venue;
  const [f, setF] = useState({ date: new Date().toISOString().slice(0, 10), participant_id: "", instrument_id: "", format: "csv" as keyof typeof formats });
  const form = useForm(v, ["date", "participant_id", "instrument_id"]);
  const run = form.run(async () => {
    const fmt = formats[f.format];
    const blob = await v.api.download(
      "/admin/order-records" + query({ date: f.date, participant_id: f.participant_id, instrument_id: f.instrument_id }),
      fmt.accept,
    );
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `order-records-${f.date}${fmt.ext}`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 0);
  }, "Order records downloaded");
  return (
    <Section title="Order records">
      <form class="stack" aria-label="Export order records" onSubmit={(e) => e.preventDefault()}>
        <Field label="Day" error={form.error("date")}>
          <input type="date" value={f.date} onInput={(e) => setF({ ...f, date: e.currentTarget.value })} />
        </Field>
        <Field label="Firm" error={form.error("participant_id")}>
          <select value={f.participant_id} onChange={(e) => setF({ ...f, participant_id: e.currentTarget.value })}>
            <option value="">All firms</option>
            {props.firms.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Instrument" error={form.error("instrument_id")}>
          <select value={f.instrument_id} onChange={(e) => setF({ ...f, instrument_id: e.currentTarget.value })}>
            <option value="">All instruments</option>
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Format">
          <select value={f.format} onChange={(e) => setF({ ...f, format: e.currentTarget.value as keyof typeof formats })}>
            {Object.entries(formats).map(([k, x]) => (
              <option key={k} value={k}>
                {x.label}
              </option>
            ))}
          </select>
        </Field>
        <FormError form={form} />
        <Submit label="Download order records" run={run} />
      </form>
    </Section>
  );
}

/** Replay rebuilds an instrument's book on a market at an instant from the order records alone. */
function Replay(props: { venue: Venue; firms: ParticipantRecord[] }) {
  const v = props.venue;
  const [f, setF] = useState({ market: v.markets[0]?.id ?? "", instrument: v.instruments[0]?.id ?? "", at: "" });
  const [book, setBook] = useState<ReplayedBook | null>(null);
  const form = useForm(v, ["at"]);
  const name = (id: string) => props.firms.find((p) => p.id === id)?.name ?? v.counterpartyName(id);
  const run = form.run(async () => {
    const at = f.at ? new Date(f.at).toISOString() : undefined;
    setBook(await v.api.get<ReplayedBook>(`/admin/markets/${f.market}/instruments/${f.instrument}/book` + query({ at })));
  });
  const side = (label: string, rows: RestingRecord[]) => (
    <table class="grid" aria-label={"Replayed " + label}>
      <thead>
        <tr>
          <th scope="col">Firm</th>
          <th scope="col" class="num">Price</th>
          <th scope="col" class="num">Remaining</th>
          <th scope="col">Priority time</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && <Empty cols={4}>No {label.toLowerCase()}.</Empty>}
        {rows.map((r) => (
          <tr key={r.order_id} title={"Order " + r.order_id}>
            <td>{name(r.participant_id)}</td>
            <td class="num">{r.price}</td>
            <td class="num">{r.remaining_quantity}</td>
            <td class="mono">{r.priority_time}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <Section title="Book replay">
      <form class="row" aria-label="Replay a book" onSubmit={(e) => e.preventDefault()}>
        <Field label="Replay market">
          <select value={f.market} onChange={(e) => setF({ ...f, market: e.currentTarget.value })}>
            {v.markets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Replay instrument">
          <select value={f.instrument} onChange={(e) => setF({ ...f, instrument: e.currentTarget.value })}>
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="At" error={form.error("at")} hint="empty: now">
          <input type="datetime-local" step="1" value={f.at} onInput={(e) => setF({ ...f, at: e.currentTarget.value })} />
        </Field>
        <Submit label="Replay" run={run} />
        <FormError form={form} />
      </form>
      {book && (
        <>
          <p class="muted" role="status">
            The book at {book.at}: rebuilt from {book.records} records, up to sequence number {book.last_sequence_number}.
          </p>
          <div class="cols">
            <div class="col">{side("Bids", book.bids)}</div>
            <div class="col">{side("Asks", book.asks)}</div>
          </div>
        </>
      )}
    </Section>
  );
}
