import { describe, expect, it } from "vitest";
import { participantName, tapeOf, tradeDate, tradeSides, withPrint } from "../src/model/trades";
import type { Trade } from "../src/client/types";

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

const pub = { volume_due_at: "2026-11-27T18:00:00.000Z" };
const print = (trade_id: string, instrument_id: string, market_id: string, price: number, quantity: number | null, occurred_at: string) => ({
  trade_id, instrument_id, market_id, price, quantity, execution_type: "continuous", occurred_at, flags: quantity === null ? ["LMTF"] : [], publication: pub,
});

describe("the tape read at sign-in", () => {
  it("gives the prints newest first", () => {
    const got = tapeOf([
      print("t3", "i1", "m1", 99.6, 100000, "2026-11-27T10:02:00.000Z"),
      print("t2", "i1", "m1", 99.5, 200000, "2026-11-27T10:01:00.000Z"),
      print("t1", "i2", "m2", 101, 1000000, "2026-11-27T10:00:00.000Z"),
    ]);
    expect(got.map((p) => [p.instrumentId, p.price, p.at])).toEqual([
      ["i1", 99.6, "2026-11-27T10:02:00.000Z"],
      ["i1", 99.5, "2026-11-27T10:01:00.000Z"],
      ["i2", 101, "2026-11-27T10:00:00.000Z"],
    ]);
  });
});

describe("a publication on the tape", () => {
  it("adds a trade's price, then replaces it with its size when that is due", () => {
    let tape = tapeOf([print("t1", "i1", "m1", 99.5, 200000, "2026-11-27T10:01:00.000Z")]);
    tape = withPrint(tape, print("t2", "i1", "m1", 99.7, null, "2026-11-27T10:03:00.000Z"));
    expect(tape.map((p) => [p.tradeId, p.quantity, p.sizeDueAt])).toEqual([
      ["t2", null, "2026-11-27T18:00:00.000Z"],
      ["t1", 200000, "2026-11-27T18:00:00.000Z"],
    ]);
    tape = withPrint(tape, print("t2", "i1", "m1", 99.7, 25000000, "2026-11-27T10:03:00.000Z"));
    expect(tape.map((p) => [p.tradeId, p.quantity])).toEqual([
      ["t2", 25000000],
      ["t1", 200000],
    ]);
    // A deferred trade published later than newer trades keeps its place by trade time.
    tape = withPrint(tape, print("t0", "i1", "m1", 99.1, 30000000, "2026-11-27T09:00:00.000Z"));
    expect(tape.map((p) => p.tradeId)).toEqual(["t2", "t1", "t0"]);
  });
});

describe("a trade's trade date", () => {
  it("is the date in its market's time zone, not in UTC", () => {
    // 00:15 in Berlin on 2 December is 23:15 UTC on the 1st.
    expect(tradeDate("2026-12-01T23:15:00.000Z", "Europe/Berlin")).toBe("2026-12-02");
    expect(tradeDate("2026-12-01T23:15:00.000Z", "UTC")).toBe("2026-12-01");
    expect(tradeDate("2026-12-01T23:15:00.000Z", undefined)).toBe("2026-12-01");
    expect(tradeDate("2026-07-01T22:30:00.000Z", "Europe/Berlin")).toBe("2026-07-02"); // CEST
    expect(tradeDate("2026-12-01T23:15:00.000Z", "Not/AZone")).toBe("2026-12-01");
    expect(tradeDate("not a time", "UTC")).toBe("");
  });
});
