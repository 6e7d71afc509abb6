import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { withParties } from "../client/requests";
import type { Venue } from "../state/venue";
import { Action, DealerPicker, Field, Section } from "../ui/components";
import { examplePaste, parseLines } from "./lines";

/** NewList sends a list of lines, pasted or uploaded as CSV, to chosen dealers. */
export function NewList(props: { venue: Venue }) {
  const v = props.venue;
  const [text, setText] = useState("");
  const [minutes, setMinutes] = useState("10");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const parsed = parseLines(text, v.instruments);
  const mErr = /^\d+$/.test(minutes) && Number(minutes) >= 1 && Number(minutes) <= 1440 ? null : "Between 1 and 1440 minutes";
  const market = v.rfqMarkets[0];
  const send = async () => {
    if (parsed.errors.length > 0) throw new Error(parsed.errors[0]);
    if (parsed.lines.length === 0) throw new Error("Give at least one line: ISIN, buy or sell, nominal");
    if (mErr) throw new Error(mErr);
    if (!market) throw new Error("No RFQ market is open");
    if (picked.size === 0) throw new Error("Pick at least one dealer");
    await v.api.call(
      "POST",
      "/participant/portfolio-rfq",
      withParties({
        market_id: market.id,
        account_id: v.accountId,
        valid_until: new Date(Date.now() + Number(minutes) * 60000).toISOString(),
        counterparties: [...picked],
        lines: parsed.lines,
      }, v.parties),
      newKey(),
    );
    setText("");
  };
  const upload = async (file: File | undefined) => {
    if (file) setText(await file.text());
  };
  return (
    <Section title="Request a list">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Request a list">
        <Field
          label="Lines (ISIN, buy or sell, nominal — one per line)"
          error={parsed.errors.length > 0 ? parsed.errors.slice(0, 3).join("; ") : null}
          hint={parsed.lines.length > 0 ? `${parsed.lines.length} line${parsed.lines.length === 1 ? "" : "s"}` : undefined}
        >
          <textarea rows={6} spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder={examplePaste(v.instruments)} />
        </Field>
        <div class="row">
          <Field label="Upload CSV">
            <input type="file" accept=".csv,text/csv,text/plain" onChange={(e) => void upload(e.currentTarget.files?.[0])} />
          </Field>
          <Field label="List valid for (minutes)" error={mErr}>
            <input inputMode="numeric" class="num" size={5} value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
          </Field>
        </div>
        <DealerPicker venue={v} picked={picked} onChange={setPicked} />
        <Action venue={v} type="submit" class="primary" label="Send list" run={send} done="List sent" />
      </form>
    </Section>
  );
}
