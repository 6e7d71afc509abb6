import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { withParties } from "../client/requests";
import * as f from "../model/format";
import { rfqTermsError, rfqTermsFields } from "../model/rfqterms";
import { quantityError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Action, DealerPicker, Field, Section, SideRadios } from "../ui/components";

/** NewRfq asks chosen dealers for a quote on an instrument. */
export function NewRfq(props: { venue: Venue; instrumentId?: string | undefined }) {
  const v = props.venue;
  const [instrumentId, setInstrumentId] = useState(props.instrumentId ?? v.instruments[0]?.id ?? "");
  const ins = v.instrument(instrumentId);
  const [direction, setDirection] = useState<"bid" | "ask">("bid");
  const [qty, setQty] = useState(String(ins?.min_piece ?? ""));
  const [minutes, setMinutes] = useState("5");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [settlement, setSettlement] = useState("");
  const [limit, setLimit] = useState("");
  const [executable, setExecutable] = useState(false);
  const terms = { settlement, limit, executable };
  const tErr = rfqTermsError(terms, ins?.precision ?? 4, f.localDate(new Date()));
  const qErr = ins ? quantityError(qty, ins) : "Pick an instrument";
  const mErr = /^\d+$/.test(minutes) && Number(minutes) >= 1 && Number(minutes) <= 1440 ? null : "Between 1 and 1440 minutes";
  const market = v.rfqMarkets[0];
  const send = async () => {
    if (qErr || mErr || tErr) throw new Error(qErr ?? mErr ?? tErr?.message ?? "");
    if (!market) throw new Error("No RFQ market is open");
    if (picked.size === 0) throw new Error("Pick at least one dealer");
    const until = new Date(Date.now() + Number(minutes) * 60000).toISOString();
    await v.api.call(
      "POST",
      "/participant/rfq",
      withParties({
        instrument_id: instrumentId,
        market_id: market.id,
        account_id: v.accountId,
        direction,
        quantity: qty.trim(),
        validity: "gtd",
        valid_until: until,
        counterparties: [...picked],
        ...rfqTermsFields(terms),
      }, v.parties),
      newKey(),
    );
  };
  return (
    <Section title="Request quotes">
      <form onSubmit={(e) => e.preventDefault()} aria-label="Request quotes">
        <Field label="Instrument">
          <select
            value={instrumentId}
            onChange={(e) => {
              setInstrumentId(e.currentTarget.value);
              const i = v.instrument(e.currentTarget.value);
              if (i) setQty(String(i.min_piece));
            }}
          >
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.isin})
              </option>
            ))}
          </select>
        </Field>
        <SideRadios label="I want to" value={direction} onChange={setDirection} buy="Buy" sell="Sell" />
        <div class="row">
          <Field label="RFQ quantity (nominal)" error={qErr}>
            <input inputMode="numeric" class="num" value={qty} onInput={(e) => setQty(e.currentTarget.value.replace(/[,\s_]/g, ""))} />
          </Field>
          <Field label="Valid for (minutes)" error={mErr}>
            <input inputMode="numeric" class="num" size={5} value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
          </Field>
        </div>
        <div class="row">
          <Field label="Limit price (%)" hint="Optional: no quote worse than it" error={tErr?.field === "limit" && limit.trim() ? tErr.message : null}>
            <input inputMode="decimal" class="num" size={9} value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
          </Field>
          <Field label="RFQ settlement date" hint="Optional: the market's default" error={tErr?.field === "settlement" ? tErr.message : null}>
            <input type="date" value={settlement} onInput={(e) => setSettlement(e.currentTarget.value)} />
          </Field>
        </div>
        <label class="inline small" title="The first quote at or better than the limit trades at once">
          <input type="checkbox" checked={executable} onChange={(e) => setExecutable(e.currentTarget.checked)} /> Executable: trade the first quote at or better than the limit
        </label>
        {executable && !limit.trim() && <p class="error small">An executable request needs a limit price</p>}
        <DealerPicker venue={v} picked={picked} onChange={setPicked} />
        <Action venue={v} type="submit" class="primary" label="Send request" run={send} done="Request sent" />
      </form>
    </Section>
  );
}
