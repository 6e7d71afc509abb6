import { useState } from "preact/hooks";
import * as f from "../model/format";
import { deferred, onTape } from "../model/tape";
import { zonedTime } from "../model/zoned";
import type { Venue } from "../state/venue";
import { Empty, Field, Num, Section, useVenue } from "../ui/components";

/** Tape is the venue's public tape, every instrument's trades as published (no party), live; a size the venue holds back reads "deferred". */
export function Tape(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const [instrumentId, setInstrumentId] = useState("");
  const prints = onTape(v.books.tape, instrumentId);
  return (
    <Section title="Public tape">
      <form class="filters" role="search" aria-label="Tape filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Instrument">
          <select value={instrumentId} onChange={(e) => setInstrumentId(e.currentTarget.value)}>
            <option value="">All</option>
            {v.instruments.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <table class="grid" aria-label="Public tape">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Instrument</th>
            <th scope="col">ISIN</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Size</th>
            <th scope="col">Market</th>
            <th scope="col">Flags</th>
          </tr>
        </thead>
        <tbody>
          {prints.length === 0 && <Empty cols={7}>No trades on the tape.</Empty>}
          {prints.map((p) => {
            const ins = v.instrument(p.instrumentId);
            return (
              <tr key={p.tradeId} data-trade={p.tradeId}>
                <td>
                  <time dateTime={p.at} title={f.utcTitle(p.at)}>
                    {zonedTime(p.at)}
                  </time>
                </td>
                <td>{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : ""}</td>
                <td class="mono">{p.isin || ins?.isin || ""}</td>
                <Num>{f.price(p.price, ins?.precision ?? 4)}</Num>
                {deferred(p) ? (
                  <td class="num muted deferred" title={"The size is deferred under the venue's transparency rules, due " + zonedTime(p.sizeDueAt)}>
                    deferred
                  </td>
                ) : (
                  <Num>{f.quantity(p.quantity)}</Num>
                )}
                <td>{v.market(p.marketId)?.name ?? ""}</td>
                <td class="small mono">{p.flags.join(" ")}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}
