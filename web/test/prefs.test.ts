import { describe, expect, it } from "vitest";
import { confirmLines } from "../src/model/fills";
import { loadPref, savePref } from "../src/state/prefs";

function memory() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

describe("preferences", () => {
  it("are off until chosen, and kept per user", () => {
    const s = memory();
    expect(loadPref(s, "u1", "confirm")).toBe(false);
    savePref(s, "u1", "confirm", true);
    expect(loadPref(s, "u1", "confirm")).toBe(true);
    expect(loadPref(s, "u2", "confirm")).toBe(false);
    expect(loadPref(s, "u1", "sound")).toBe(false);
    savePref(s, "u1", "confirm", false);
    expect(loadPref(s, "u1", "confirm")).toBe(false);
  });
  it("survive a storage that refuses", () => {
    const broken = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("full"); } };
    expect(() => savePref(broken, "u", "sound", true)).not.toThrow();
    expect(loadPref(broken, "u", "sound")).toBe(false);
    expect(loadPref(null, "u", "sound")).toBe(false);
  });
});

describe("the confirmation", () => {
  it("restates side, nominal, instrument, price, market and settlement amount", () => {
    const o = { direction: "ask", quantity: "1000000", instrument: "DBR 2.30 15/02/2033", price: "99.5", precision: 4, market: "bondvenue Continuous", amount: "1003456.78", currency: "EUR" };
    expect(confirmLines(o)).toEqual(["Sell 1,000,000 DBR 2.30 15/02/2033 at 99.5000", "on bondvenue Continuous, settlement amount 1,003,456.78 EUR"]);
    expect(confirmLines({ ...o, direction: "bid", amount: null })[1]).toBe("on bondvenue Continuous, settlement amount not known yet");
  });
});
