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
  it("renders times in the local zone with UTC on hover", () => {
    const iso = "2026-11-25T14:05:09.123Z";
    const t = new Date(iso);
    const hh = String(t.getHours()).padStart(2, "0");
    const mm = String(t.getMinutes()).padStart(2, "0");
    expect(f.time(iso, new Date(iso))).toBe(`${hh}:${mm}:09`);
    expect(f.time(iso, new Date("2026-12-01T12:00:00Z"))).toBe(`${f.localDate(t)} ${hh}:${mm}`);
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
  it("says what became of an order just sent", () => {
    expect(f.placed("bid", o("created", "1000000", "0"))).toBe("Bid placed");
    expect(f.placed("ask", o("closed", "1000000", "1000000"))).toBe("Ask filled: 1,000,000");
    expect(f.placed("ask", o("created", "1000000", "400000"))).toBe("Ask partially filled: 400,000 done, 600,000 left");
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
