import type { BlotterFilter } from "../model/blotter";
import { rangeError } from "../model/blotter";
import type { Venue } from "../state/venue";
import { Field } from "../ui/components";

const statuses: [string, string][] = [
  ["created", "Open"],
  ["", "All"],
  ["closed", "Filled"],
  ["cancelled", "Cancelled"],
  ["expired", "Expired"],
  ["rejected", "Rejected"],
];

/** BlotterFilters narrows the blotter by instrument, side, offer status and date (an offer's entry date, a trade's trade date). */
export function BlotterFilters(props: { venue: Venue; filter: BlotterFilter; onChange: (f: BlotterFilter) => void }) {
  const { venue: v, filter: f, onChange } = props;
  const set = (part: Partial<BlotterFilter>) => onChange({ ...f, ...part });
  return (
    <form class="filters" role="search" aria-label="Blotter filters" onSubmit={(e) => e.preventDefault()}>
      <Field label="Instrument">
        <select value={f.instrumentId} onChange={(e) => set({ instrumentId: e.currentTarget.value })}>
          <option value="">All</option>
          {v.instruments.map((i) => (
            <option key={i.id} value={i.id}>
              {i.name}
            </option>
          ))}
        </select>
      </Field>
      {v.user?.participant_id && (
        <Field label="Side">
          <select value={f.side} onChange={(e) => set({ side: e.currentTarget.value as BlotterFilter["side"] })}>
            <option value="">Both</option>
            <option value="buy">Buy</option>
            <option value="sell">Sell</option>
          </select>
        </Field>
      )}
      <Field label="Offer status">
        <select value={f.status} onChange={(e) => set({ status: e.currentTarget.value })}>
          {statuses.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="From date">
        <input type="date" value={f.from} onInput={(e) => set({ from: e.currentTarget.value })} />
      </Field>
      <Field label="To date" error={rangeError(f)}>
        <input type="date" value={f.to} onInput={(e) => set({ to: e.currentTarget.value })} />
      </Field>
    </form>
  );
}
