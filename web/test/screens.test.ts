// The trading screens' readings a new user met wrong: a best bid and ask
// from two markets, a halt, a kill switch, a quote far from the market, a
// tape whose trades are deferred, and a chart's bars over time.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/client/api";
import type { Limit, Market, Trade, User } from "../src/client/types";
import { gapTimes, maxGap, spaced } from "../src/model/bars";
import { ownDeferred, tapeNote } from "../src/model/deferral";
import { pairOf } from "../src/model/levels";
import { farFromMarket, marketView, warnLimit } from "../src/model/quotecheck";
import { Books } from "../src/state/books";
import type { Host } from "../src/state/host";
import { Venue } from "../src/state/venue";

function host(answers: Record<string, unknown> = {}) {
  const markets = [
    { id: "m1", name: "Continuous", facility_type: "MTF" },
    { id: "m2", name: "All-or-None", facility_type: "MTF" },
    { id: "otc", name: "RFQ", facility_type: "OTC" },
  ] as Market[];
  const h: Host = {
    api: { get: async (path: string) => answers[path] ?? Promise.reject(new Error("no answer for " + path)) } as unknown as Api,
    user: { participant_id: "A" } as User,
    markets,
    isOperator: false,
    now: 0,
    changed: () => {},
    notify: () => {},
    market: (id) => markets.find((m) => m.id === id),
    instrument: () => undefined,
  };
  return h;
}

const level = (limit: string, market_id?: string): Limit =>
  ({ limit, quantity: "1000000", participant_id: null, participant_name: null, offer_id: null, is_counterparty_enabled: true, market_id }) as Limit;

describe("the grid's best bid and ask", () => {
  it("from one market give its spread and mid", () => {
    expect(pairOf(level("98.90", "m1"), level("98.95", "m1"))).toEqual({ spread: "0.05", mid: "98.925", across: false });
  });
  it("from two markets are marked as such, with no one market's mid", () => {
    expect(pairOf(level("98.94", "m1"), level("98.93", "m2"))).toEqual({ spread: "-0.01", mid: null, across: true });
  });
  it("keep each level's market in the books' best over the continuous markets", () => {
    const b = new Books(host());
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "m1", bid: level("98.94"), ask: null, last_price: null, last_quantity: null, occurred_at: "" });
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "m2", bid: null, ask: level("98.93"), last_price: null, last_quantity: null, occurred_at: "" });
    const best = b.bestOf("i");
    expect(pairOf(best.bid, best.ask).across).toBe(true);
  });
});

describe("a halt", () => {
  it("is read with the books from each price collar, and kept live by instrument.halt", async () => {
    const b = new Books(
      host({
        "/tape?limit=500": [],
        "/instruments?market_id=m1": [{ id: "i", instrument_limits: { bid: [], ask: [] } }],
        "/instruments?market_id=m2": [{ id: "i", instrument_limits: { bid: [], ask: [] } }],
        "/instruments?market_id=otc": [],
        "/instruments/i/price-collar?market_id=m1": { instrument_id: "i", market_id: "m1", halted: true, halt_reason: "issuer announcement" },
        "/instruments/i/price-collar?market_id=m2": { instrument_id: "i", market_id: "m2", halted: false, halt_reason: null },
      }),
    );
    await b.load();
    expect(b.haltOf("i", "m1")).toBe("issuer announcement");
    expect(b.haltOf("i", "m2")).toBeNull();
    b.applyInstrument("instrument.halt", { instrument_id: "i", market_id: "m2", halted: true, reason: "fat finger" });
    b.applyInstrument("instrument.halt", { instrument_id: "i", market_id: "m1", halted: false, reason: "" });
    expect(b.haltOf("i", "m1")).toBeNull();
    expect(b.haltOf("i", "m2")).toBe("fat finger");
    expect(b.haltedOn("i", ["m1", "m2", "otc"])).toEqual(["m2"]);
  });
});

describe("a kill switch", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  it("tells the firm's trader why its orders went, and when it may trade again; another firm's says nothing", () => {
    const v = new Venue();
    v.user = { id: "u", email: "", role: "PARTICIPANT_TRADER", status: "active", participant_id: "A" };
    const apply = (v as unknown as { apply(type: string, r: unknown): void }).apply.bind(v);
    apply("offer.delete", { id: "o1", type: "offer", status: "cancelled", participant_id: "A" });
    apply("participant.kill_switch", { participant_id: "A", enabled: true, cancelled: 3, updatedAt: "" });
    apply("participant.kill_switch", { participant_id: "B", enabled: true, cancelled: 1, updatedAt: "" });
    apply("participant.kill_switch", { participant_id: "A", enabled: false, cancelled: 0, updatedAt: "" });
    expect(v.notices.map((n) => [n.kind, n.text])).toEqual([
      ["error", "Your firm's kill switch is on: 3 open orders cancelled, and new orders are refused until it is off"],
      ["info", "Your firm's kill switch is off: you may trade again"],
    ]);
  });
});

describe("a dealer's quote", () => {
  const m = marketView({ bid: level("101.55"), ask: level("101.65"), lastPrice: "101.58" });
  it("sees the market beside it: best bid and ask, mid, last", () => {
    expect(m).toEqual({ bid: "101.55", ask: "101.65", mid: "101.6", last: "101.58" });
  });
  it("far from the market asks for confirmation; near it does not", () => {
    expect(farFromMarket("103.00", m, "1", 2)).toBe("103.00 is 1.40 above the mid 101.60, more than 1% away: send it?");
    expect(farFromMarket("100.50", m)).toBe("100.5000 is 1.1000 below the mid 101.6000, more than 1% away: send it?");
    expect(farFromMarket("102.616", m)).toBeNull(); // exactly 1 %
    expect(farFromMarket("102.6161", m)).not.toBeNull();
    expect(farFromMarket("101.70", m)).toBeNull();
  });
  it("without a two-way price compares with the last trade, and without either says nothing", () => {
    const last = marketView({ bid: null, ask: level("101.65"), lastPrice: "101.58" });
    expect(farFromMarket("103.00", last)).toBe("103.0000 is 1.4200 above the last trade 101.5800, more than 1% away: send it?");
    expect(farFromMarket("103.00", marketView({ bid: null, ask: null, lastPrice: null }))).toBeNull();
  });
  it("strays at most the market's price collar when tighter than 1%", () => {
    expect(warnLimit("0.5")).toBe("0.5");
    expect(warnLimit("5")).toBe("1");
    expect(warnLimit(null)).toBe("1");
    expect(farFromMarket("102.20", m, warnLimit("0.5"))).not.toBeNull();
  });
});

describe("the tape of an instrument whose trades are deferred", () => {
  const at = (iso: string) => iso.slice(11, 16);
  const now = new Date("2026-11-29T10:05:00.000Z").getTime();
  const trade = (createdAt: string, price_due_at: string, published_price_at: string | null = null) =>
    ({ instrument_id: "i", createdAt, publication: { deferral: "SL1", price_due_at, volume_due_at: price_due_at, published_price_at, published_volume_at: null } }) as Trade;
  it("says when the firm's own trade is due", () => {
    const own = ownDeferred(
      [trade("2026-11-29T10:02:00.000Z", "2026-11-29T10:17:00.000Z"), trade("2026-11-29T09:00:00.000Z", "2026-11-29T09:00:00.000Z", "2026-11-29T09:00:00.000Z"), { ...trade("2026-11-29T10:03:00.000Z", "2026-11-29T10:18:00.000Z"), instrument_id: "j" }],
      "i",
      now,
    );
    expect(tapeNote(0, own, true, at)).toBe("Your trade of 10:02 is deferred under the venue's transparency rules: on the public tape from 10:17.");
  });
  it("says the trades are deferred when none is published while the screen knows of some, and nothing otherwise", () => {
    expect(tapeNote(0, [], true, at)).toMatch(/^Trades deferred: /);
    expect(tapeNote(0, [], false, at)).toBeNull();
    expect(tapeNote(3, [], true, at)).toBeNull();
  });
});

describe("the chart's bars", () => {
  it("stand as far apart as their times: the intervals without a trade are empty points", () => {
    const bar = (time: number) => ({ time, open: 1, high: 1, low: 1, close: 1 });
    expect(spaced([bar(0), bar(60), bar(240)], 60)).toEqual([bar(0), bar(60), { time: 120 }, { time: 180 }, bar(240)]);
    expect(spaced([bar(0)], 60)).toEqual([bar(0)]);
    expect(gapTimes(0, 60 * 5000, 60)).toHaveLength(maxGap);
    expect(gapTimes(0, 60 * 5000, 60)[maxGap - 1]).toBe(60 * 4999);
  });
});
