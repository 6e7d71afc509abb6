import { describe, expect, it } from "vitest";
import { shortName, shortNominal, shortPrice, tradeNotice } from "../src/model/fills";
import type { Trade } from "../src/client/types";

const trade = (buyer: string, seller: string, quantity: string, price: string): Trade => ({
  id: "t1",
  transaction_identification_code: "X",
  bid_order: { id: "o1", direction: "bid", participant_id: buyer, account_id: "", offer_id: "b" },
  ask_order: { id: "o2", direction: "ask", participant_id: seller, account_id: "", offer_id: "a" },
  market_id: "m",
  quantity,
  price: "0",
  price_per_unit: price,
  fee: "0",
  settlement_date: "2026-12-01",
  execution_type: "continuous",
  createdAt: "2026-11-27T10:00:00Z",
  instrument_id: "i",
});

describe("fill notices", () => {
  it("say nominals as the desk does", () => {
    expect(shortNominal("500000")).toBe("500 k");
    expect(shortNominal("1500000")).toBe("1.5 m");
    expect(shortNominal(1000000)).toBe("1 m");
    expect(shortNominal("2250000")).toBe("2.25 m");
    expect(shortNominal("2500")).toBe("2.5 k");
    expect(shortNominal("750")).toBe("750");
    expect(shortNominal(null)).toBe("–");
  });
  it("name the instrument by its short name and the price without padding", () => {
    expect(shortName("DBR 2.30 15/02/2033")).toBe("DBR 2.30 2033");
    expect(shortName("Bund 2033")).toBe("Bund 2033");
    expect(shortPrice("97.5500", 4)).toBe("97.55");
    expect(shortPrice("99.125", 4)).toBe("99.125");
    expect(shortPrice("100", 4)).toBe("100.00");
    expect(shortPrice("99.12345", 4)).toBe("99.1235");
  });
  it("tell the firm its side of its own trades, and nothing of others'", () => {
    const ins = { name: "DBR 2.30 15/02/2033", precision: 4 };
    expect(tradeNotice(trade("A", "B", "500000", "97.55"), "B", ins)).toBe("Sold 500 k DBR 2.30 2033 @ 97.55");
    expect(tradeNotice(trade("A", "B", "1500000", "97.55"), "A", ins)).toBe("Bought 1.5 m DBR 2.30 2033 @ 97.55");
    expect(tradeNotice(trade("A", "B", "1500000", "97.55"), "C", ins)).toBeNull();
    expect(tradeNotice(trade("A", "B", "1500000", "97.55"), null, ins)).toBeNull();
  });
});
