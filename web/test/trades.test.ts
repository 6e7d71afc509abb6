import { describe, expect, it } from "vitest";
import { participantName, tapeOf, tradeSides } from "../src/trades";
import type { Trade } from "../src/types";

const names = new Map([
  ["0b7e0000-0000-4000-8000-000000000001", "Banque Lumière S.A."],
  ["0b7e0000-0000-4000-8000-000000000002", "Hanseatic Capital Markets"],
]);
const name = (id: string) => participantName(id, names);
const trade = {
  bid_order: { participant_id: "0b7e0000-0000-4000-8000-000000000001" },
  ask_order: { participant_id: "0b7e0000-0000-4000-8000-000000000002" },
} as unknown as Trade;

describe("trades in the blotter", () => {
  it("show a party its side and the counterparty", () => {
    expect(tradeSides(trade, "0b7e0000-0000-4000-8000-000000000001", name)).toMatchObject({ side: "Bought", counterparty: "Hanseatic Capital Markets" });
    expect(tradeSides(trade, "0b7e0000-0000-4000-8000-000000000002", name)).toMatchObject({ side: "Sold", counterparty: "Banque Lumière S.A." });
  });
  it("show the operator both sides by name, and no side of its own", () => {
    expect(tradeSides(trade, null, name)).toEqual({ side: "", buyer: "Banque Lumière S.A.", seller: "Hanseatic Capital Markets", counterparty: "" });
  });
  it("never name a participant by an id prefix that every record shares", () => {
    expect(participantName("0b7e0000-0000-4000-8000-000000000009", names)).toBe("participant 0b7e0000-0000-4000-8000-000000000009");
  });
});

describe("the tape read at sign-in", () => {
  it("gives the prints newest first and each book's last price", () => {
    const got = tapeOf([
      { instrument_id: "i1", market_id: "m1", price: 99.6, quantity: 100000, execution_type: "continuous", occurred_at: "2026-11-27T10:02:00.000Z" },
      { instrument_id: "i1", market_id: "m1", price: 99.5, quantity: 200000, execution_type: "continuous", occurred_at: "2026-11-27T10:01:00.000Z" },
      { instrument_id: "i2", market_id: "m2", price: 101, quantity: 1000000, execution_type: "otc", occurred_at: "2026-11-27T10:00:00.000Z" },
    ]);
    expect(got.prints.map((p) => [p.instrumentId, p.price, p.at])).toEqual([
      ["i1", 99.6, "2026-11-27T10:02:00.000Z"],
      ["i1", 99.5, "2026-11-27T10:01:00.000Z"],
      ["i2", 101, "2026-11-27T10:00:00.000Z"],
    ]);
    expect(got.last.get("i1/m1")).toEqual({ price: 99.6, quantity: 100000 });
    expect(got.last.get("i2/m2")).toEqual({ price: 101, quantity: 1000000 });
  });
});
