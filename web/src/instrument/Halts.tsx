import { useState } from "preact/hooks";
import type { Instrument, Market } from "../client/types";
import type { Venue } from "../state/venue";
import { Action, Field, Section } from "../ui/components";
import { useCollar } from "./collar";

/** Halts is the operator's control of trading in the instrument, market by market: halt with a reason, resume. */
export function Halts(props: { venue: Venue; ins: Instrument; markets: Market[] }) {
  return (
    <Section title="Trading halts">
      {props.markets.map((m) => (
        <HaltRow key={m.id} venue={props.venue} ins={props.ins} market={m} />
      ))}
    </Section>
  );
}

function HaltRow(props: { venue: Venue; ins: Instrument; market: Market }) {
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
