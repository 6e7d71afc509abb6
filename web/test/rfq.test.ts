import { describe, expect, it } from "vitest";
import { awaitingQuote, dealerOutcome, requestOutcome, tradeOf } from "../src/model/rfq";
import { shouldBeep } from "../src/app/sound";
import type { Offer, Trade } from "../src/client/types";

function offer(o: Partial<Offer>): Offer {
  return {
    id: "o",
    type: "request_for_quote",
    direction: "bid",
    status: "created",
    price_per_unit: null,
    quantity: "5000000",
    filled_quantity: "0",
    validity: "gtd",
    valid_until: null,
    settlement_date: null,
    participant_id: "req",
    account_id: "",
    market_id: "m",
    instrument_id: "i",
    user_id: "",
    createdAt: "",
    updatedAt: "",
    ...o,
  };
}

const rfq = offer({ id: "rfq1", counterparties: ["d1", "d2"] });
const quote = offer({ id: "q1", type: "quote", direction: "ask", participant_id: "d1", matched_offer_id: "rfq1", price_per_unit: { limit_price: "101.1" } });
const trade = {
  id: "t1",
  bid_order: { id: "b", direction: "bid", participant_id: "req", account_id: "", offer_id: "rfq1" },
  ask_order: { id: "a", direction: "ask", participant_id: "d1", account_id: "", offer_id: "q1", participant: { id: "d1", name: "Dealer One" } },
  quantity: "5000000",
  price_per_unit: "101.1",
} as unknown as Trade;
const names = (id: string) => ({ d1: "Dealer One", d2: "Dealer Two" })[id] ?? id;

describe("the requester's RFQ outcome", () => {
  it("is traded with the price after a reload, when the list has no quotes", () => {
    expect(tradeOf(["rfq1"], [trade])).toBe(trade);
    expect(requestOutcome({ ...rfq, status: "closed", matched_offers: [] }, [trade], 4, names)).toEqual({
      state: "traded",
      label: "traded 5,000,000 at 101.1000 with Dealer One",
    });
  });
  it("says every dealer declined, not that quotes are awaited", () => {
    expect(requestOutcome({ ...rfq, status: "rejected" }, [], 4, names)).toEqual({ state: "declined", label: "declined by all 2 dealers" });
    expect(requestOutcome({ ...rfq, counterparties: ["d1"], status: "rejected" }, [], 4, names).label).toBe("declined by the dealer");
  });
  it("counts the dealers that declined while it stays open for the others", () => {
    expect(requestOutcome({ ...rfq, declined_counterparties: ["d2"] }, [], 4, names)).toEqual({ state: "open", label: "open · 1 of 2 dealers declined" });
  });
  it("is open, expired or cancelled otherwise", () => {
    expect(requestOutcome(rfq, [], 4, names).state).toBe("open");
    expect(requestOutcome({ ...rfq, status: "expired" }, [], 4, names).state).toBe("expired");
    expect(requestOutcome({ ...rfq, status: "cancelled" }, [], 4, names).state).toBe("cancelled");
  });
});

describe("the dealer's view of an RFQ", () => {
  it("offers quote and decline while open", () => {
    expect(dealerOutcome(rfq, undefined, false, [], 4, true)).toEqual({ state: "open", label: "open", canQuote: true, canDecline: true });
    expect(dealerOutcome(rfq, undefined, false, [], 4, false)).toMatchObject({ canQuote: false, canDecline: false });
  });
  it("offers nothing once declined, though the RFQ stays open for the others", () => {
    expect(dealerOutcome(rfq, undefined, true, [], 4, true)).toEqual({ state: "declined", label: "declined", canQuote: false, canDecline: false });
  });
  it("shows the live quote", () => {
    expect(dealerOutcome(rfq, quote, false, [], 4, true)).toMatchObject({ state: "quoted", label: "quoted 101.1000", canQuote: false });
  });
  it("says done with the price when its quote traded, and not done when another did", () => {
    const closed = { ...rfq, status: "closed" };
    expect(dealerOutcome(closed, { ...quote, status: "closed" }, false, [trade], 4, true)).toMatchObject({
      state: "traded",
      label: "done · traded 5,000,000 at 101.1000",
    });
    expect(dealerOutcome(closed, { ...quote, id: "q2", status: "rejected" }, false, [trade], 4, true)).toMatchObject({
      state: "lost",
      label: "not done: traded elsewhere",
    });
  });
  it("reads the venue's outcome of its quote: cover, tied, done away, passed, cancelled", () => {
    const closed = { ...rfq, status: "closed" };
    const ended = (outcome: string, status = "rejected") => ({ ...quote, id: "q9", status, outcome });
    expect(dealerOutcome(closed, ended("cover"), false, [trade], 4, true)).toMatchObject({ state: "lost", label: "not done: you were cover" });
    expect(dealerOutcome(closed, ended("tied"), false, [trade], 4, true).label).toBe("not done: tied with the done price");
    expect(dealerOutcome(closed, ended("done_away"), false, [trade], 4, true).label).toBe("not done: traded away");
    expect(dealerOutcome(rfq, ended("passed"), false, [], 4, true)).toMatchObject({ state: "open", label: "passed: quote again", canQuote: true });
    expect(dealerOutcome({ ...rfq, status: "cancelled" }, ended("cancelled"), false, [], 4, true).label).toBe("cancelled by the requester");
  });
  it("shows its decline after a reload: the venue keeps it as a record without price", () => {
    const decline = { ...quote, id: "d1", status: "cancelled", outcome: "declined", price_per_unit: null, price_per_unit_clean: null };
    expect(dealerOutcome(rfq, decline, false, [], 4, true)).toEqual({ state: "declined", label: "declined", canQuote: false, canDecline: false });
  });
  it("tells the winner the cover", () => {
    const closed = { ...rfq, status: "closed" };
    expect(dealerOutcome(closed, { ...quote, status: "closed", outcome: "done", cover_price: "101.05" }, false, [trade], 4, true).label).toBe(
      "done · traded 5,000,000 at 101.1000 · cover 101.0500",
    );
  });
});

describe("the RFQ inbox", () => {
  const rfq = (id: string, over: Partial<Offer> = {}): Offer =>
    ({ id, type: "request_for_quote", status: "created", participant_id: "C", valid_until: null, createdAt: "2026-11-27T10:00:00Z", ...over }) as Offer;
  const quote = (rfqId: string, status: string, createdAt = "2026-11-27T10:01:00Z"): Offer =>
    ({ id: "q-" + rfqId + createdAt, type: "quote", status, matched_offer_id: rfqId, participant_id: "A", createdAt }) as Offer;
  const now = Date.parse("2026-11-27T10:05:00Z");
  it("counts the open requests addressed to the firm that wait for its quote", () => {
    const rfqs = [
      rfq("open"),
      rfq("quoted"),
      rfq("requoted"),
      rfq("declined"),
      rfq("expired", { valid_until: "2026-11-27T10:04:00Z" }),
      rfq("later", { valid_until: "2026-11-27T10:09:00Z" }),
      rfq("closed", { status: "closed" }),
      rfq("own", { participant_id: "A" }),
    ];
    const quotes = [
      quote("quoted", "created"),
      quote("requoted", "cancelled", "2026-11-27T10:02:00Z"),
      quote("requoted", "created", "2026-11-27T10:01:00Z"),
      { ...quote("declined-elsewhere", "cancelled"), outcome: "declined" },
    ];
    rfqs.push(rfq("declined-elsewhere")); // declined from another tab: its record says so
    // "requoted": its latest quote was withdrawn, so it waits again.
    expect(awaitingQuote(rfqs, quotes, "A", new Set(["declined"]), now)).toBe(3);
    expect(awaitingQuote(rfqs, quotes, null, new Set(), now)).toBe(0);
  });
  it("beeps only for new arrivals, and only when the trader turned the sound on", () => {
    expect(shouldBeep(0, 1, true)).toBe(true);
    expect(shouldBeep(1, 1, true)).toBe(false);
    expect(shouldBeep(0, 1, false)).toBe(false);
  });
});
