import { describe, expect, it } from "vitest";
import { partiesBody, withParties } from "../src/client/requests";
import { clientIdError, decisionMakerError, validLEI } from "../src/model/validate";
import { loadParties, noParties, saveParties } from "../src/state/parties";

function memory() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

const mine = { client_id_code: "5493001KJTIIGC8Y1R12", investment_decision_id: "pm.1", execution_decision_id: "", trading_capacity: "AOTC" } as const;

describe("the trader's order identifiers", () => {
  it("are none until saved, and kept per user", () => {
    const s = memory();
    expect(loadParties(s, "u1")).toEqual(noParties);
    saveParties(s, "u1", { ...mine });
    expect(loadParties(s, "u1")).toEqual(mine);
    expect(loadParties(s, "u2")).toEqual(noParties);
  });
  it("survive a storage that refuses or holds something else", () => {
    const broken = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("full"); } };
    expect(() => saveParties(broken, "u", { ...mine })).not.toThrow();
    expect(loadParties(broken, "u")).toEqual(noParties);
    const s = memory();
    s.setItem("bondvenue.parties.u", '{"trading_capacity":"BROKER","client_id_code":7}');
    expect(loadParties(s, "u")).toEqual(noParties);
    s.setItem("bondvenue.parties.u", "not json");
    expect(loadParties(s, "u")).toEqual(noParties);
  });
  it("go into an order's body by their REST names, only those given", () => {
    expect(withParties({ quantity: "100000" }, mine)).toEqual({
      quantity: "100000", client_id_code: "5493001KJTIIGC8Y1R12", investment_decision_id: "pm.1", trading_capacity: "AOTC",
    });
    expect(withParties({ quantity: "100000" }, noParties)).toEqual({ quantity: "100000" });
    expect(partiesBody(noParties)).toBeUndefined(); // an accept then sends no body, as before
    expect(partiesBody({ ...noParties, execution_decision_id: " algo-7 " })).toEqual({ execution_decision_id: "algo-7" });
  });
  it("are checked as the venue checks them", () => {
    expect(validLEI("5493001KJTIIGC8Y1R12")).toBe(true);
    expect(validLEI("7LTWFZYICNSX8D621K86")).toBe(true);
    expect(validLEI("5493001KJTIIGC8Y1R13")).toBe(false);
    expect(clientIdError("")).toBeNull();
    expect(clientIdError("AGGR")).toBeNull();
    expect(clientIdError("PNAL")).toBeNull();
    expect(clientIdError("client42")).toBeNull();
    expect(clientIdError("5493001KJTIIGC8Y1R13")).toBe("This LEI's check digits are wrong");
    expect(clientIdError("client 42")).not.toBeNull();
    expect(clientIdError("c".repeat(51))).not.toBeNull();
    expect(decisionMakerError("algo.v2_desk-1")).toBeNull();
    expect(decisionMakerError("trader/7")).not.toBeNull();
    expect(decisionMakerError("p".repeat(51))).not.toBeNull();
  });
});
