import { useState } from "preact/hooks";
import { clientIdError, decisionMakerError } from "../model/validate";
import type { OrderParties } from "../state/parties";
import type { Venue } from "../state/venue";
import { Field } from "../ui/components";

/**
 * OrderIdentifiers is the ticket's small settings form for the trader's own
 * identifiers in the venue's order records: the client, the investment and
 * execution decision makers, the capacity. Saved per user in the browser,
 * they go with every order the screen enters (offers, RFQs, quotes, lists
 * and accepts); left empty, the venue's defaults apply.
 */
export function OrderIdentifiers(props: { venue: Venue }) {
  const v = props.venue;
  const saved = v.parties;
  const [p, setP] = useState<OrderParties>(saved);
  const [note, setNote] = useState("");
  const errors = {
    client: clientIdError(p.client_id_code),
    investment: decisionMakerError(p.investment_decision_id),
    execution: decisionMakerError(p.execution_decision_id),
  };
  const set = (k: keyof OrderParties, value: string) => {
    setP({ ...p, [k]: value });
    setNote("");
  };
  const save = () => {
    if (errors.client || errors.investment || errors.execution) {
      setNote("Correct the marked fields first");
      return;
    }
    v.setParties({
      client_id_code: p.client_id_code.trim(),
      investment_decision_id: p.investment_decision_id.trim(),
      execution_decision_id: p.execution_decision_id.trim(),
      trading_capacity: p.trading_capacity,
    });
    setNote("Saved: sent with your orders, RFQs, quotes and accepts");
  };
  const summary = saved.client_id_code || saved.trading_capacity ? `${saved.trading_capacity || "DEAL"} ${saved.client_id_code}`.trim() : "defaults";
  return (
    <details class="identifiers">
      <summary>Order identifiers ({summary})</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
        aria-label="Order identifiers"
      >
        <Field label="Client ID" error={errors.client} hint="An LEI, AGGR, PNAL or your short code; empty on own account">
          <input value={p.client_id_code} onInput={(e) => set("client_id_code", e.currentTarget.value)} />
        </Field>
        <Field label="Investment decision by" error={errors.investment} hint="Short code or algorithm id">
          <input value={p.investment_decision_id} onInput={(e) => set("investment_decision_id", e.currentTarget.value)} />
        </Field>
        <Field label="Executed by" error={errors.execution} hint="Default: your user">
          <input value={p.execution_decision_id} onInput={(e) => set("execution_decision_id", e.currentTarget.value)} />
        </Field>
        <Field label="Capacity">
          <select value={p.trading_capacity} onChange={(e) => set("trading_capacity", e.currentTarget.value)}>
            <option value="">Default (DEAL)</option>
            <option value="DEAL">DEAL: own account</option>
            <option value="MTCH">MTCH: matched principal</option>
            <option value="AOTC">AOTC: agency</option>
          </select>
        </Field>
        <button type="submit">Save identifiers</button>
        {note && (
          <span class="small muted" role="status">
            {note}
          </span>
        )}
      </form>
    </details>
  );
}
