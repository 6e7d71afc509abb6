import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import { withParties } from "../client/requests";
import type { PortfolioRFQ } from "../client/types";
import * as f from "../model/format";
import { farFromMarket } from "../model/quotecheck";
import { priceError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Action, Num } from "../ui/components";
import { FarWarning, MarketBeside, marketOf } from "../ui/MarketBeside";

/** ListToQuote is a list addressed to the firm: its lines, a price for each, quote or decline the whole list. */
export function ListToQuote(props: { venue: Venue; l: PortfolioRFQ }) {
  const v = props.venue;
  const { l } = props;
  const [prices, setPrices] = useState<Record<string, string>>({});
  // Lines priced far from the market wait for the dealer's confirmation.
  const [far, setFar] = useState<string[]>([]);
  const mine = [...l.quotes].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const declined = l.quotes.some((q) => q.outcome === "declined");
  const open = l.status === "created" && !declined;
  const requester = v.counterpartyName(l.participant_id);
  const title = `${requester}: list of ${l.lines.length}`;
  const currency = f.oneCurrency(l.lines.map((x) => v.instrument(x.instrument_id)?.currency));
  let state = "to quote";
  if (declined) state = "declined";
  else if (mine?.outcome === "done") state = "done · traded";
  else if (mine?.outcome) state = "not done: " + f.outcomeLabel(mine.outcome);
  else if (mine) state = "quoted";
  else if (l.status !== "created") state = f.status(l.status);
  const priced = () =>
    l.lines.map((line) => {
      const p = (prices[line.line_id] ?? "").trim();
      const err = priceError(p, { precision: v.instrument(line.instrument_id)?.precision ?? 4 });
      if (err) throw new Error(`Line ${line.line_id}: ${err}`);
      return { line_id: line.line_id, price_per_unit: p };
    });
  const quote = async () => {
    const lines = priced();
    const warnings = l.lines.flatMap((line, i) => {
      const w = farFromMarket(lines[i]!.price_per_unit, marketOf(v, line.instrument_id), undefined, v.instrument(line.instrument_id)?.precision ?? 4);
      return w ? [`Line ${line.line_id} (${v.instrument(line.instrument_id)?.name ?? ""}): ${w}`] : [];
    });
    if (warnings.length > 0) {
      setFar(warnings);
      return;
    }
    await send();
    v.notify("info", "List quote sent");
  };
  const send = async () => {
    const lines = priced();
    setFar([]);
    await v.api.call("POST", `/participant/portfolio-rfq/${l.id}/quotes`, withParties({ account_id: v.accountId, lines }, v.parties), newKey());
  };
  return (
    <article class={"request list incoming " + l.status} aria-label={title} data-list={l.id}>
      <header>
        <strong>{title}</strong>
        <span class="muted">
          {" "}
          · <span class="outcome">{state}</span>
          {open && <> · expires in {f.countdown(l.valid_until, v.now)}</>}
          {mine?.net_proceeds != null && <> · net {f.money(mine.net_proceeds, currency)} to the requester</>}
        </span>
      </header>
      <form onSubmit={(e) => e.preventDefault()} aria-label={"Quote " + title}>
        <table class="grid" aria-label={"Lines of " + title}>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Instrument</th>
              <th scope="col">Requester</th>
              <th scope="col" class="num">Nominal</th>
              <th scope="col">Market</th>
              <th scope="col" class="num">My price</th>
            </tr>
          </thead>
          <tbody>
            {l.lines.map((line, i) => {
              const ins = v.instrument(line.instrument_id);
              const p = prices[line.line_id] ?? "";
              return (
                <tr key={line.line_id}>
                  <td>{line.line_id}</td>
                  <td class="wrap">{ins?.name ?? line.instrument_id}</td>
                  <td>{line.direction === "bid" ? "buys" : "sells"}</td>
                  <Num>{f.quantity(line.quantity)}</Num>
                  <td>
                    <MarketBeside m={marketOf(v, line.instrument_id)} precision={ins?.precision ?? 4} label={`Market for line ${line.line_id} of ${title}`} />
                  </td>
                  <td class="num">
                    {open && v.canTrade ? (
                      <input
                        inputMode="decimal"
                        class={"num" + (p && priceError(p, { precision: ins?.precision ?? 4 }) ? " invalid" : "")}
                        size={9}
                        aria-label={`Price for line ${line.line_id} of ${title}`}
                        value={p}
                        onInput={(e) => {
                          setPrices({ ...prices, [line.line_id]: e.currentTarget.value });
                          setFar([]);
                        }}
                      />
                    ) : (
                      f.price(mine?.lines[i]?.price_per_unit, ins?.precision ?? 4)
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {open && v.canTrade && (
          <div class="row">
            <Action venue={v} type="submit" class="primary" label={"Send quote for " + title} run={quote}>
              {mine ? "Replace quote" : "Quote list"}
            </Action>
            <Action venue={v} label={"Decline " + title} run={() => v.api.call("PUT", `/participant/portfolio-rfq/${l.id}/reject`)} done="List declined">
              Decline
            </Action>
          </div>
        )}
        {far.length > 0 && <FarWarning venue={v} text={far} send={send} change={() => setFar([])} label={"Confirm the quote for " + title} done="List quote sent" />}
      </form>
    </article>
  );
}
