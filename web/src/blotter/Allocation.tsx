import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import type { Trade } from "../client/types";
import { add as addDec, cmp, parse, text } from "../model/decimal";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Action, Field } from "../ui/components";

/** AllocationStatus shows to which of the firm's accounts a trade went, part by part in the row, or offers to allocate it. */
export function AllocationStatus(props: { venue: Venue; t: Trade; label: string; allocating: boolean; onAllocate: () => void }) {
  const v = props.venue;
  const a = v.deals.allocations.get(props.t.id);
  if (a) {
    const currency = v.instrument(props.t.instrument_id ?? props.t.bid_order.instrument_id ?? "")?.currency ?? "";
    const lines = f.allocationLines(a.allocations, (id) => v.accountNumber(id), currency);
    return (
      <div class={"parts" + (a.late ? " late" : "")}>
        <span>
          {a.allocations.length === 1 ? "1 account" : `${a.allocations.length} accounts`}
          {a.late ? " · late" : ""}
        </span>
        <ul class="small" aria-label={"Allocation of " + props.label}>
          {lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      </div>
    );
  }
  if (!v.canTrade) return <span class="muted">Not allocated</span>;
  return (
    <button type="button" aria-label={"Allocate " + props.label} disabled={props.allocating} onClick={props.onAllocate}>
      Allocate
    </button>
  );
}

/** AllocationForm splits the firm's side of a trade to its accounts: all on the first by default. */
export function AllocationForm(props: { venue: Venue; t: Trade; label: string; close: () => void }) {
  const v = props.venue;
  const { t } = props;
  const accounts = v.accounts;
  const [qty, setQty] = useState<Record<string, string>>(() => (accounts[0] ? { [accounts[0].id]: String(t.quantity) } : {}));
  const total = accounts.reduce((sum, a) => {
    const q = parse((qty[a.id] ?? "").trim() || "0");
    return q && sum ? addDec(sum, q) : null;
  }, parse("0") as ReturnType<typeof parse>);
  const matches = total !== null && cmp(total, parse(String(t.quantity))!) === 0;
  const submit = async () => {
    const parts = accounts.filter((a) => (qty[a.id] ?? "").trim() !== "" && (qty[a.id] ?? "").trim() !== "0").map((a) => ({ account_id: a.id, quantity: qty[a.id]!.trim() }));
    await v.api.call("POST", `/trades/${t.id}/allocations`, { allocations: parts }, newKey());
    props.close();
  };
  return (
    <form class="allocate" aria-label={"Allocation of " + props.label} onSubmit={(e) => e.preventDefault()}>
      <span class="muted small">Split {f.quantity(t.quantity)} to the firm's accounts (accrued and amounts are worked out to the cent):</span>
      {accounts.map((a) => (
        <Field key={a.id} label={"Quantity for account " + a.number}>
          <input class="num" value={qty[a.id] ?? ""} onInput={(e) => setQty({ ...qty, [a.id]: e.currentTarget.value })} />
        </Field>
      ))}
      <span class={matches ? "muted small" : "error small"}>
        {total === null ? "Quantities must be numbers" : `${f.quantity(text(total))} of ${f.quantity(t.quantity)}`}
      </span>
      <Action venue={v} type="submit" label={"Confirm allocation of " + props.label} disabled={!matches} run={submit} done="Trade allocated">
        Confirm
      </Action>
      <button type="button" aria-label="Discard allocation" onClick={props.close}>
        Discard
      </button>
    </form>
  );
}
