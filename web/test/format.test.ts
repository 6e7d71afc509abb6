import { describe, expect, it } from "vitest";
import * as f from "../src/model/format";

describe("format", () => {
  it("renders prices at the instrument's precision", () => {
    expect(f.price("99.5", 4)).toBe("99.5000");
    expect(f.price(101.12345, 4)).toBe("101.1235");
    expect(f.price("99.875", 2)).toBe("99.88");
    expect(f.price(null)).toBe("–");
  });
  it("renders amounts and quantities grouped", () => {
    expect(f.amount("1248437.5")).toBe("1,248,437.50");
    expect(f.amount(-2975)).toBe("-2,975.00");
    expect(f.quantity("1000000")).toBe("1,000,000");
    expect(f.quantity("1500.25")).toBe("1,500.25");
    expect(f.compact("1500000")).toBe("1.5M");
    expect(f.compact("250000")).toBe("250k");
    expect(f.compact("999")).toBe("999");
  });
  it("renders yields and coupons in percent", () => {
    expect(f.yieldPct("4.3750924803673800024")).toBe("4.375 %");
    expect(f.yieldPct("-0.1236")).toBe("-0.124 %");
    expect(f.coupon("3.375")).toBe("3.375 %");
  });
  it("renders every coupon with the same places, so 3 % and 3.375 % line up", () => {
    expect(f.coupon("3")).toBe("3.000 %");
    expect(f.coupon("2.3")).toBe("2.300 %");
    expect(f.coupon("0.0625")).toBe("0.0625 %");
  });
  it("renders money with its currency", () => {
    expect(f.money("-6250", "EUR")).toBe("-6,250.00 EUR");
    expect(f.money("1517851.875", "USD")).toBe("1,517,851.88 USD");
    expect(f.money(null, "EUR")).toBe("–");
  });
  it("gives net proceeds their currency when a list has one", () => {
    expect(f.oneCurrency(["EUR", "EUR", undefined])).toBe("EUR");
    expect(f.oneCurrency(["EUR", "USD"])).toBe("");
    expect(f.money("2991234.5", f.oneCurrency(["EUR"]))).toBe("2,991,234.50 EUR");
  });
  it("marks prices stale while the stream is not live", () => {
    expect(f.stale("live")).toBe(false);
    for (const s of ["offline", "reconnecting", "stale", "connecting"]) expect(f.stale(s)).toBe(true);
  });
  it("names risk limits for people", () => {
    expect(f.limitName("MAX_OFFER")).toBe("Largest single order");
    expect(f.limitName("ALL_OFFER_SUM")).toBe("Firm's open orders");
    expect(f.limitName("ALL_OFFER_USER_SUM")).toBe("Your open orders");
    expect(f.limitName("MAX_OFFER_VALUE")).toBe("Largest order value");
    expect(f.limitName("SOME_NEW_LIMIT")).toBe("some new limit");
  });
  it("says each part of an allocation, not only in a tooltip", () => {
    const parts = [
      { account_id: "a1", quantity: "600000", price: "607225.5" },
      { account_id: "a2", quantity: "400000", price: "404817" },
    ];
    expect(f.allocationLines(parts, (id) => "ACC-" + id, "EUR")).toEqual(["ACC-a1 · 600,000 · 607,225.50 EUR", "ACC-a2 · 400,000 · 404,817.00 EUR"]);
  });
  it("says a risk-limit refusal in words with the currency", () => {
    expect(f.riskRefusal("risk limit MAX_OFFER breached: limit 50000000, in use 0, this request needs 60000000", "EUR")).toBe(
      "Over the limit Largest single order: limit 50,000,000 EUR, in use 0 EUR, this order needs 60,000,000 EUR",
    );
    expect(f.riskRefusal("quantity MAX_OFFER limit 50000000, in use 0", "EUR")).toBeNull();
    expect(f.riskRefusal("offer not found", "EUR")).toBeNull();
  });
  it("renders times in the local zone with UTC on hover", () => {
    const iso = "2026-11-25T14:05:09.123Z";
    const t = new Date(iso);
    const hh = String(t.getHours()).padStart(2, "0");
    const mm = String(t.getMinutes()).padStart(2, "0");
    const zone = f.zoneName(t);
    expect(zone).not.toBe("");
    expect(f.time(iso, new Date(iso))).toBe(`${hh}:${mm}:09 ${zone}`);
    expect(f.time(iso, new Date("2026-12-01T12:00:00Z"))).toBe(`${f.localDate(t)} ${hh}:${mm} ${zone}`);
    expect(f.stamp(iso)).toBe(`${f.localDate(t)} ${hh}:${mm}:09 ${zone}`);
    expect(f.utcTitle(iso)).toBe("2026-11-25 14:05:09 UTC");
    expect(f.time("not a time")).toBe("–");
  });
  it("counts down to expiry", () => {
    const now = Date.parse("2026-11-25T14:00:00Z");
    expect(f.countdown("2026-11-25T14:04:05Z", now)).toBe("4:05");
    expect(f.countdown("2026-11-25T15:00:01Z", now)).toBe("1:00:01");
    expect(f.countdown("2026-11-25T13:59:59Z", now)).toBe("expired");
  });
});

describe("order states", () => {
  const o = (status: string, quantity: string, filled: string) => ({ status, quantity, filled_quantity: filled });
  it("names filled and partly filled orders with what is left", () => {
    expect(f.offerStatus(o("created", "1000000", "0"))).toBe("open");
    expect(f.offerStatus(o("created", "1000000", "400000"))).toBe("partially filled · 600,000 left");
    expect(f.offerStatus(o("closed", "1000000", "1000000"))).toBe("filled");
    expect(f.offerStatus(o("cancelled", "1000000", "250000"))).toBe("cancelled · 250,000 filled");
    expect(f.offerStatus(o("cancelled", "1000000", "0"))).toBe("cancelled");
  });
  it("says what became of an order just sent, once per fill: a filled order's trade notice says the rest", () => {
    expect(f.placed("bid", o("created", "1000000", "0"))).toBe("Bid placed");
    expect(f.placed("ask", o("closed", "2000000", "2000000"))).toBeNull();
    expect(f.placed("ask", o("created", "1000000", "400000"))).toBe("Ask placed for the rest: 600,000 left");
    expect(f.placed("bid", null)).toBe("Bid placed");
  });
});

describe("chart time", () => {
  it("plots bars in the trader's zone, like every other time on the screen", () => {
    const utc = Date.parse("2026-11-27T10:00:00Z") / 1000;
    expect(f.chartTime("2026-11-27T10:00:00Z", -60)).toBe(utc + 3600); // Berlin: 11:00 on the axis
    expect(f.chartTime("2026-11-27T10:00:00Z", 300)).toBe(utc - 5 * 3600); // New York: 05:00
    expect(f.chartTime("2026-11-27T10:00:00Z")).toBe(utc - new Date("2026-11-27T10:00:00Z").getTimezoneOffset() * 60);
  });
});
