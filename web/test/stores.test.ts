import { describe, expect, it } from "vitest";
import type { Api } from "../src/client/api";
import type { Instrument, Limit, Market, Offer, PortfolioRFQ, Trade, User } from "../src/client/types";
import { cmpNum, percentOf } from "../src/model/decimal";
import { bestRfqQuote } from "../src/model/rfq";
import { accruedOf } from "../src/model/trades";
import { Books } from "../src/state/books";
import type { Host } from "../src/state/host";
import { Orders } from "../src/state/orders";

/** host is a session with two continuous markets and an OTC one, answering REST reads from answers. */
function host(answers: Record<string, unknown> = {}, user: Partial<User> = { participant_id: "A" }) {
  const markets = [
    { id: "m1", facility_type: "MTF" },
    { id: "m2", facility_type: "MTF" },
    { id: "otc", facility_type: "OTC" },
  ] as Market[];
  let changes = 0;
  const h: Host & { changes(): number } = {
    api: { get: async (path: string) => answers[path] ?? Promise.reject(new Error("no answer for " + path)) } as unknown as Api,
    user: user as User,
    markets,
    isOperator: false,
    now: 0,
    changed: () => void changes++,
    notify: () => {},
    market: (id) => markets.find((m) => m.id === id),
    instrument: () => undefined,
    changes: () => changes,
  };
  return h;
}

const level = (limit: string, market_id?: string): Limit =>
  ({ limit, quantity: "1000000", participant_id: null, participant_name: null, offer_id: null, is_counterparty_enabled: true, market_id }) as Limit;

describe("decimal reads", () => {
  it("compare exactly, unparsable last", () => {
    expect(cmpNum("99.10", 99.1)).toBe(0);
    expect(cmpNum("99.1", "99.09")).toBe(1);
    expect(cmpNum(null, "1")).toBe(1);
    expect(cmpNum("1", undefined)).toBe(-1);
  });
  it("give a share in percent, cut to one place", () => {
    expect(percentOf("1", "3")).toBe(33.3);
    expect(percentOf("2500000", "10000000")).toBe(25);
    expect(percentOf("5", "0")).toBe(0);
    expect(percentOf(null, "1")).toBe(0);
  });
  it("work out a trade's accrued interest when it is not sent", () => {
    expect(accruedOf({ price: "995123.29", quantity: "1000000", price_per_unit: "99.5" } as Trade)).toBe("123.29");
    expect(accruedOf({ price: "1", quantity: "1", price_per_unit: "1", accrued_interest: "7.5" } as Trade)).toBe("7.5");
  });
});

describe("the best RFQ quote", () => {
  const q = (id: string, price: string) => ({ id, price_per_unit: price }) as Offer;
  it("is the lowest to buy, the highest to sell, the first of equals", () => {
    const quotes = [q("a", "99.5"), q("b", "99.4"), q("c", "99.4"), q("d", "99.6")];
    expect(bestRfqQuote({ direction: "bid" } as Offer, quotes)?.id).toBe("b");
    expect(bestRfqQuote({ direction: "ask" } as Offer, quotes)?.id).toBe("d");
    expect(bestRfqQuote({ direction: "bid" } as Offer, [])).toBeNull();
  });
});

describe("the books", () => {
  it("give the best over the continuous markets, each level keeping its market", () => {
    const b = new Books(host());
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "m1", bid: level("99.1"), ask: level("99.5"), last_price: null, last_quantity: null });
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "m2", bid: level("99.2"), ask: level("99.6"), last_price: "99.3", last_quantity: "1" });
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "otc", bid: level("99.9"), ask: level("99.0"), last_price: null, last_quantity: null });
    const best = b.bestOf("i");
    expect([best.bid?.limit, best.bid?.market_id, best.ask?.limit, best.ask?.market_id, best.lastPrice]).toEqual(["99.2", "m2", "99.5", "m1", "99.3"]);
    expect(b.bestOf("i", "otc").bid?.limit).toBe("99.9");
    expect(b.bookVersion.get("i")).toBe(3);
  });

  it("take each book's Last from the venue's last trades, not from the public tape, on a load and a reload", async () => {
    // The tape lists by publication: an older trade published later comes
    // first, and a deferred trade is not on it yet; the book's last trade
    // is the latest executed, as the stream keeps it.
    const answers: Record<string, unknown> = {
      "/tape?limit=500": [
        { trade_id: "t1", instrument_id: "i", market_id: "m1", price: "104.79", quantity: "1000000", occurred_at: "2026-12-01T10:00:00Z" },
      ],
      "/last-trades": [
        { instrument_id: "i", market_id: "m1", last_price: "105.06", last_quantity: "2000000", occurred_at: "2026-12-01T10:05:00Z" },
        { instrument_id: "j", market_id: "m2", last_price: "119.72", last_quantity: "5000000", occurred_at: "2026-12-01T10:06:00Z" },
      ],
    };
    for (const m of ["m1", "m2", "otc"]) {
      answers["/instruments?market_id=" + m] = [
        { id: "i", instrument_limits: { bid: [], ask: [] } },
        { id: "j", instrument_limits: { bid: [], ask: [] } },
      ];
    }
    const b = new Books(host(answers));
    await b.load();
    expect([b.bestOf("i", "m1").lastPrice, b.bestOf("j", "m2").lastPrice, b.bestOf("i", "m2").lastPrice]).toEqual(["105.06", "119.72", null]);
    // A reconnect reads again: a trade made while the screen was away wins over what it had.
    b.applyInstrument("instrument.price_change", { instrument_id: "i", market_id: "m1", bid: null, ask: null, last_price: "105.06", last_quantity: "2000000" });
    answers["/last-trades"] = [{ instrument_id: "i", market_id: "m1", last_price: "105.10", last_quantity: "1000000", occurred_at: "2026-12-01T10:07:00Z" }];
    await b.load();
    expect(b.bestOf("i", "m1").lastPrice).toBe("105.10");
  });

  it("keep a book the stream set while its REST read was on its way", async () => {
    let answer: (i: Instrument) => void = () => {};
    const h = host();
    h.api.get = (() => new Promise<Instrument>((r) => (answer = r))) as Api["get"];
    const b = new Books(h);
    const loading = b.loadDepth("i");
    b.applyInstrument("instrument.depth", { instrument_id: "i", market_id: "m1", bid: [level("99.3")], ask: [], occurred_at: "" });
    answer({ instrument_limits: { bid: [level("99.0", "m1"), level("98.9", "m2")], ask: [] } } as unknown as Instrument);
    await loading;
    expect(b.depth.get("i")?.get("m1")?.bid.map((l) => l.limit)).toEqual(["99.3"]);
    expect(b.depth.get("i")?.get("m2")?.bid.map((l) => l.limit)).toEqual(["98.9"]);
  });
});

describe("the orders", () => {
  it("attach a quote to its RFQ and say which requests arrive for the firm", () => {
    const o = new Orders(host());
    expect(o.applyRfq("rfq.create", { id: "r", participant_id: "C", status: "created" } as Offer)).toBe(true);
    expect(o.applyRfq("rfq.create", { id: "r", participant_id: "C", status: "created" } as Offer)).toBe(false);
    o.applyOffer({ id: "q", type: "quote", matched_offer_id: "r", participant_id: "A" } as Offer);
    expect(o.rfqs.get("r")?.matched_offers?.map((x) => x.id)).toEqual(["q"]);
    expect(o.applyList("portfolio_rfq.create", { id: "l", participant_id: "A", updatedAt: "1" } as PortfolioRFQ)).toBe(false);
    o.clear();
    expect([o.offers.size, o.rfqs.size, o.lists.size]).toEqual([0, 0, 0]);
  });
});

describe("the operator's orders", () => {
  it("hold every request and list on the venue, their quotes, and no firm's offers; nothing arrives as the operator's inbox", async () => {
    const h = { ...host({}, {}), isOperator: true };
    h.api.get = (async (path: string) => {
      if (path.startsWith("/participant/offers")) throw new Error("the operator reads no offers");
      if (path.startsWith("/participant/rfq")) return [{ id: "r", participant_id: "C", status: "created", createdAt: "1" }];
      if (path.startsWith("/participant/portfolio-rfq")) return [{ id: "l", participant_id: "C", createdAt: "1" }];
      throw new Error("no answer for " + path);
    }) as Api["get"];
    const o = new Orders(h);
    await o.load();
    expect([...o.rfqs.keys(), ...o.lists.keys()]).toEqual(["r", "l"]);
    o.applyOffer({ id: "x", type: "offer", participant_id: "A" } as Offer);
    o.applyOffer({ id: "q", type: "quote", matched_offer_id: "r", participant_id: "B" } as Offer);
    expect(o.offers.size).toBe(0);
    expect(o.rfqs.get("r")?.matched_offers?.map((x) => x.id)).toEqual(["q"]);
    expect(o.applyRfq("rfq.create", { id: "r2", participant_id: "D", status: "created" } as Offer)).toBe(false);
    expect(o.rfqs.has("r2")).toBe(true);
    expect(o.applyList("portfolio_rfq.create", { id: "l2", participant_id: "D", updatedAt: "1" } as PortfolioRFQ)).toBe(false);
  });
});
