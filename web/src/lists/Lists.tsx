import { useState } from "preact/hooks";
import { newKey } from "../client/api";
import * as f from "../model/format";
import { bestQuote, parseLines } from "./lines";
import type { Venue } from "../state/venue";
import type { PortfolioQuote, PortfolioRFQ } from "../client/types";
import { Action, DealerPicker, Empty, Field, Num, Section, useVenue } from "../ui/ui";
import { priceError } from "../model/validate";

/** Lists is the portfolio (list) RFQ screen: a list ticket, the firm's lists with their quotes compared, and the lists it is asked to quote. */
export function Lists(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const mine = v.user?.participant_id;
  const all = [...v.orders.lists.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const sent = all.filter((l) => l.participant_id === mine);
  const received = all.filter((l) => l.participant_id !== mine);
  return (
    <div class="lists cols">
      <div class="col">
        {v.canTrade && <NewList venue={v} />}
        <Section title="My lists">
          {sent.length === 0 && <p class="muted">No lists yet.</p>}
          {sent.slice(0, 20).map((l) => (
            <MyList key={l.id} venue={v} l={l} />
          ))}
        </Section>
      </div>
      <div class="col">
        <Section title="Lists to quote">
          {received.length === 0 && <p class="muted">No lists to quote.</p>}
          {received.slice(0, 20).map((l) => (
            <ToQuote key={l.id} venue={v} l={l} />
          ))}
        </Section>
      </div>
    </div>
  );
}

function NewList(props: { venue: Venue }) {
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
      {
        market_id: market.id,
        account_id: v.accountId,
        valid_until: new Date(Date.now() + Number(minutes) * 60000).toISOString(),
        counterparties: [...picked],
        lines: parsed.lines,
      },
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
          <textarea rows={6} spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder={"DE0001102580, buy, 1000000\nFR0014007L00, sell, 500000"} />
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

/** listTitle names a list for people: its size and its sides. */
function listTitle(v: Venue, l: PortfolioRFQ): string {
  const buys = l.lines.filter((x) => x.direction === "bid").length;
  return `List of ${l.lines.length} (${buys} buy, ${l.lines.length - buys} sell) sent ${f.time(l.createdAt, new Date(v.now))}`;
}

/** listState is what the requester reads of its list. */
function listState(l: PortfolioRFQ, name: (id: string) => string): string {
  switch (l.status) {
    case "closed": {
      const done = l.quotes.find((q) => q.outcome === "done");
      return done ? `traded ${l.lines.length} lines with ${name(done.participant_id)}` : "traded";
    }
    case "rejected":
      return "declined by every dealer";
    default:
      return f.status(l.status);
  }
}

function MyList(props: { venue: Venue; l: PortfolioRFQ }) {
  const v = props.venue;
  const { l } = props;
  const [compare, setCompare] = useState(false);
  const open = l.status === "created";
  const priced = l.quotes.filter((q) => q.outcome !== "declined");
  const declined = l.quotes.filter((q) => q.outcome === "declined").length;
  const best = bestQuote(l.quotes);
  const title = listTitle(v, l);
  const dealer = (q: PortfolioQuote) => v.counterpartyName(q.participant_id);
  return (
    <article class={"request list " + l.status} aria-label={title} data-list={l.id}>
      <header>
        <strong>{title}</strong>
        <span class="muted">
          {" "}
          · <span class="outcome">{listState(l, (id) => v.counterpartyName(id))}</span>
          {open && <> · expires in {f.countdown(l.valid_until, v.now)}</>}
        </span>
        {open && v.canTrade && (
          <Action venue={v} label={"Cancel " + title} run={() => v.api.call("DELETE", `/participant/portfolio-rfq/${l.id}`)} done="List cancelled">
            Cancel list
          </Action>
        )}
      </header>
      <table class="grid" aria-label={"Quotes for " + title}>
        <thead>
          <tr>
            <th scope="col">Dealer</th>
            <th scope="col" class="num">Net proceeds</th>
            <th scope="col">Status</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {priced.length === 0 && (
            <Empty cols={4}>
              {open ? `Waiting for quotes from ${l.counterparties.length} dealer${l.counterparties.length === 1 ? "" : "s"}…` : "No quotes."}
              {declined > 0 ? ` (${declined} declined)` : ""}
            </Empty>
          )}
          {priced.map((q) => (
            <tr key={q.id} class={best?.id === q.id ? "best" : ""} data-quote={q.id}>
              <td>
                {dealer(q)}
                {best?.id === q.id && <span class="tag">best</span>}
              </td>
              <Num>{f.amount(q.net_proceeds)}</Num>
              <td>{q.outcome ? f.outcomeLabel(q.outcome) : f.status(q.status)}</td>
              <td>
                {open && q.status === "created" && v.canTrade && (
                  <Action
                    venue={v}
                    label={`Accept list quote from ${dealer(q)}`}
                    run={() => v.api.call("PUT", `/participant/portfolio-rfq/${l.id}/quotes/${q.id}/accept`, undefined, newKey())}
                    done="List traded"
                  >
                    Accept
                  </Action>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {priced.length > 0 && (
        <button type="button" class="link" aria-expanded={compare} onClick={() => setCompare(!compare)}>
          {compare ? "Hide the lines" : "Compare the lines"}
        </button>
      )}
      {compare && <Compare venue={v} l={l} quotes={priced} />}
    </article>
  );
}

/** Compare sets each dealer's price beside each line. */
function Compare(props: { venue: Venue; l: PortfolioRFQ; quotes: PortfolioQuote[] }) {
  const v = props.venue;
  const { l, quotes } = props;
  return (
    <table class="grid compare" aria-label={"Lines of " + listTitle(v, l)}>
      <thead>
        <tr>
          <th scope="col">Line</th>
          <th scope="col">Instrument</th>
          <th scope="col">Side</th>
          <th scope="col" class="num">Nominal</th>
          {quotes.map((q) => (
            <th key={q.id} scope="col" class="num">
              {v.counterpartyName(q.participant_id)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {l.lines.map((line, i) => {
          const ins = v.instrument(line.instrument_id);
          return (
            <tr key={line.line_id}>
              <td>{line.line_id}</td>
              <td class="wrap">{ins?.name ?? line.instrument_id}</td>
              <td>{f.side(line.direction)}</td>
              <Num>{f.quantity(line.quantity)}</Num>
              {quotes.map((q) => (
                <Num key={q.id}>{f.price(q.lines[i]?.price_per_unit, ins?.precision ?? 4)}</Num>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function ToQuote(props: { venue: Venue; l: PortfolioRFQ }) {
  const v = props.venue;
  const { l } = props;
  const [prices, setPrices] = useState<Record<string, string>>({});
  const mine = [...l.quotes].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const declined = l.quotes.some((q) => q.outcome === "declined");
  const open = l.status === "created" && !declined;
  const requester = v.counterpartyName(l.participant_id);
  const title = `${requester}: list of ${l.lines.length}`;
  let state = "to quote";
  if (declined) state = "declined";
  else if (mine?.outcome === "done") state = "done · traded";
  else if (mine?.outcome) state = "not done: " + f.outcomeLabel(mine.outcome);
  else if (mine) state = "quoted";
  else if (l.status !== "created") state = f.status(l.status);
  const quote = async () => {
    const lines = l.lines.map((line) => {
      const p = (prices[line.line_id] ?? "").trim();
      const err = priceError(p, { precision: v.instrument(line.instrument_id)?.precision ?? 4 });
      if (err) throw new Error(`Line ${line.line_id}: ${err}`);
      return { line_id: line.line_id, price_per_unit: p };
    });
    await v.api.call("POST", `/participant/portfolio-rfq/${l.id}/quotes`, { account_id: v.accountId, lines }, newKey());
  };
  return (
    <article class={"request list incoming " + l.status} aria-label={title} data-list={l.id}>
      <header>
        <strong>{title}</strong>
        <span class="muted">
          {" "}
          · <span class="outcome">{state}</span>
          {open && <> · expires in {f.countdown(l.valid_until, v.now)}</>}
          {mine?.net_proceeds != null && <> · net {f.amount(mine.net_proceeds)} to the requester</>}
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
                  <td class="num">
                    {open && v.canTrade ? (
                      <input
                        inputMode="decimal"
                        class={"num" + (p && priceError(p, { precision: ins?.precision ?? 4 }) ? " invalid" : "")}
                        size={9}
                        aria-label={`Price for line ${line.line_id} of ${title}`}
                        value={p}
                        onInput={(e) => setPrices({ ...prices, [line.line_id]: e.currentTarget.value })}
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
            <Action venue={v} type="submit" class="primary" label={"Send quote for " + title} run={quote} done="List quote sent">
              {mine ? "Replace quote" : "Quote list"}
            </Action>
            <Action venue={v} label={"Decline " + title} run={() => v.api.call("PUT", `/participant/portfolio-rfq/${l.id}/reject`)} done="List declined">
              Decline
            </Action>
          </div>
        )}
      </form>
    </article>
  );
}
