import { describe, expect, it } from "vitest";
import { participantName, tradeSides } from "../src/trades";
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
