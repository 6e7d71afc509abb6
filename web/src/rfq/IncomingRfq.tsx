import { useState } from "preact/hooks";
import { ApiError, newKey } from "../client/api";
import { withParties } from "../client/requests";
import type { Offer } from "../client/types";
import * as f from "../model/format";
import { limitPrice } from "../model/offers";
import { farFromMarket } from "../model/quotecheck";
import { dealerOutcome } from "../model/rfq";
import { quoteValidity } from "../model/rfqterms";
import { priceError, quantityError } from "../model/validate";
import type { Venue } from "../state/venue";
import { Action, Field, Num, Time } from "../ui/components";
import { FarWarning, MarketBeside, marketOf } from "../ui/MarketBeside";

/** IncomingRfq is a request addressed to the firm: a row, and the dealer's quote form while it may quote or decline. */
export function IncomingRfq(props: { venue: Venue; r: Offer }) {
  const v = props.venue;
  const { r } = props;
  const ins = v.instrument(r.instrument_id);
  const mine = [...v.orders.offers.values()].filter((o) => o.matched_offer_id === r.id && o.type === "quote");
  const myQuote = mine.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  const [price, setPrice] = useState("");
  const [qty, setQty] = useState(String(r.quantity));
  // A price far from the market waits for the dealer's confirmation.
  const [far, setFar] = useState<string | null>(null);
  const market = marketOf(v, r.instrument_id);
  const [validFor, setValidFor] = useState("");
  const validity = quoteValidity(validFor, r.valid_until, v.now);
  const outcome = dealerOutcome(r, myQuote, v.orders.declined.has(r.id), v.deals.trades.values(), ins?.precision ?? 4, v.canTrade);
  const open = r.status === "created" && outcome.state !== "declined";
  const quoting = outcome.canQuote;
  const requester = r.participant?.name ?? v.counterpartyName(r.participant_id);
  const title = `${requester} ${f.side(r.direction).toLowerCase()}s ${f.quantity(r.quantity)} ${ins?.name ?? ""}`;
  const pErr = price ? priceError(price, { precision: ins?.precision ?? 4 }) : null;
  const quote = async () => {
    const e = priceError(price, { precision: ins?.precision ?? 4 }) ?? (ins ? quantityError(qty, ins) : null);
    if (e) throw new Error(e);
    const warning = farFromMarket(price.trim(), market, undefined, ins?.precision ?? 4);
    if (warning) {
      setFar(warning);
      return false;
    }
    await send();
    return true;
  };
  const send = async () => {
    setFar(null);
    const until = quoteValidity(validFor, r.valid_until, Date.now());
    if ("error" in until) throw new Error(until.error);
    await v.api.call(
      "POST",
      "/participant/offers",
      withParties({
        instrument_id: r.instrument_id,
        market_id: r.market_id,
        account_id: v.accountId,
        direction: r.direction === "bid" || r.direction === "buy" ? "ask" : "bid",
        price_per_unit: price.trim(),
        quantity: qty.trim(),
        matched_offer_id: r.id,
        ...until,
      }, v.parties),
      newKey(),
    );
  };
  const quoteNow = async () => {
    if (await quote()) v.notify("info", "Quote sent");
  };
  const decline = async () => {
    try {
      await v.api.call("PUT", `/participant/rfq/${r.id}/reject`);
    } catch (e) {
      // Declined already (from another screen): show it so.
      if (!(e instanceof ApiError && e.status === 409)) throw e;
    }
    v.orders.markDeclined(r.id);
  };
  return (
    <>
      <tr data-rfq={r.id} class={outcome.state}>
        <td>
          <Time at={r.createdAt} />
        </td>
        <td class="wrap">{requester}</td>
        <td>{f.side(r.direction) === "Buy" ? "buys" : "sells"}</td>
        <td class="wrap">{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : ""}</td>
        <Num>{f.quantity(r.quantity)}</Num>
        <td>{open ? f.countdown(r.valid_until, v.now) : ""}</td>
        <td class="outcome">{outcome.label}</td>
        <Num>{myQuote ? f.price(limitPrice(myQuote), ins?.precision ?? 4) : ""}</Num>
      </tr>
      {quoting && (
        <tr class="quote-form">
          <td colSpan={8}>
            <form class="row" onSubmit={(e) => e.preventDefault()} aria-label={"Quote " + title}>
              <Field label="Quote price (%)" error={pErr}>
                <input
                  inputMode="decimal"
                  class="num"
                  aria-label={"Quote price for " + title}
                  value={price}
                  onInput={(e) => {
                    setPrice(e.currentTarget.value);
                    setFar(null);
                  }}
                />
              </Field>
              <MarketBeside m={market} precision={ins?.precision ?? 4} label={"Market for " + title} />
              <Field label="Quote quantity">
                <input inputMode="numeric" class="num" aria-label={"Quote quantity for " + title} value={qty} onInput={(e) => setQty(e.currentTarget.value)} />
              </Field>
              <Field label="Quote valid for (seconds)" error={"error" in validity ? validity.error : null} hint="Blank: until the request expires">
                <input inputMode="numeric" class="num" size={6} aria-label={"Quote validity in seconds for " + title} value={validFor} onInput={(e) => setValidFor(e.currentTarget.value)} />
              </Field>
              <Action venue={v} type="submit" class="primary" label={"Send quote for " + title} run={quoteNow}>
                Quote
              </Action>
              {outcome.canDecline && (
                <Action venue={v} label={"Decline " + title} run={decline} done="Request declined">
                  Decline
                </Action>
              )}
            </form>
            {far && <FarWarning venue={v} text={[far]} send={send} change={() => setFar(null)} label={"Confirm the quote for " + title} done="Quote sent" />}
          </td>
        </tr>
      )}
    </>
  );
}
