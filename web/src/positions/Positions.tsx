import { useState } from "preact/hooks";
import * as f from "../model/format";
import { parse, sign } from "../model/decimal";
import type { Venue } from "../state/venue";
import { Empty, Field, Num, Section, Time, useVenue } from "../ui/components";
import { totals } from "./positions";

/** pnlClass colours a P&L: a gain, a loss, or nothing. */
function pnlClass(v: string): string {
  const d = parse(v);
  if (!d || sign(d) === 0) return "";
  return sign(d) > 0 ? "gain" : "loss";
}

/** Positions shows what the firm holds by instrument and account, with its average price and P&L at the mark; live. */
export function Positions(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const [account, setAccount] = useState("");
  const [open, setOpen] = useState(false);
  const stale = f.stale(v.status);
  const rows = v.positions.list.filter((p) => (!account || p.account_id === account) && (!open || sign(parse(p.net_nominal)!) !== 0));
  return (
    <Section
      title="Positions"
      class={"positions" + (stale ? " stale" : "")}
      actions={stale ? <span class="stale-marker" role="status">Marks may be stale: the stream is {v.status}</span> : undefined}
    >
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Account">
          <select value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
            <option value="">All accounts</option>
            {v.accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.number}
              </option>
            ))}
          </select>
        </Field>
        <label class="inline small">
          <input type="checkbox" checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} /> Open positions only
        </label>
      </form>
      <table class="grid" aria-label="Positions">
        <thead>
          <tr>
            <th scope="col">Instrument</th>
            <th scope="col">Account</th>
            <th scope="col" class="num">Net nominal</th>
            <th scope="col" class="num">Average price</th>
            <th scope="col" class="num">Mark</th>
            <th scope="col" class="num">Unrealised P&amp;L</th>
            <th scope="col" class="num">Realised P&amp;L</th>
            <th scope="col" class="num">Bought</th>
            <th scope="col" class="num">Sold</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && <Empty cols={9}>{v.positions.loaded ? "No positions: the firm has not traded yet." : "Loading positions…"}</Empty>}
          {rows.map((p) => {
            const ins = v.instrument(p.instrument_id);
            const precision = ins?.precision ?? 4;
            return (
              <tr key={p.instrument_id + "/" + p.account_id} data-position={p.isin + "/" + v.accountNumber(p.account_id)}>
                <th scope="row">
                  <a href={`#/instrument/${p.instrument_id}`}>{p.name}</a>
                </th>
                <td>{v.accountNumber(p.account_id)}</td>
                <Num class={sign(parse(p.net_nominal)!) < 0 ? "ask" : "bid"}>{f.quantity(p.net_nominal)}</Num>
                <Num>{p.average_price === null ? "flat" : f.price(p.average_price, Math.max(precision, 3))}</Num>
                <Num class={stale ? "stale" : ""} label={`Mark ${p.name}`}>
                  <span title={p.mark_at ? `Last trade, ${f.utcTitle(p.mark_at)}` : "No trade yet"}>{f.price(p.mark_price, precision)}</span>
                  {p.mark_at && (
                    <span class="small muted">
                      {" "}
                      <Time at={p.mark_at} />
                    </span>
                  )}
                </Num>
                <Num class={pnlClass(p.unrealised_pnl)}>{f.money(p.unrealised_pnl, p.currency)}</Num>
                <Num class={pnlClass(p.realised_pnl)}>{f.money(p.realised_pnl, p.currency)}</Num>
                <Num>{f.quantity(p.bought_nominal)}</Num>
                <Num>{f.quantity(p.sold_nominal)}</Num>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          {totals(rows).map((t) => (
            <tr key={t.currency} data-total={t.currency}>
              <th scope="row" colSpan={5}>
                Total {t.currency}
              </th>
              <Num class={pnlClass(t.unrealised)}>{f.money(t.unrealised, t.currency)}</Num>
              <Num class={pnlClass(t.realised)}>{f.money(t.realised, t.currency)}</Num>
              <td colSpan={2} />
            </tr>
          ))}
        </tfoot>
      </table>
      <p class="small muted">
        Average cost on clean prices: P&amp;L is nominal × price / 100 in the bond's currency, without accrued interest or fees. The mark is
        the instrument's last trade on the venue.
      </p>
    </Section>
  );
}
