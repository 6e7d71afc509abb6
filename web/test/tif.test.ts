import { describe, expect, it } from "vitest";
import { type TimeInForce, marketDone, tifError, tifFields, timesInForce } from "../src/model/tif";

const now = new Date("2026-12-08T10:00:00").getTime();

describe("the ticket's time in force", () => {
  it("offers what the venue takes: gtc, gtd and market (immediate or cancel)", () => {
    expect(timesInForce.map(([t]) => t)).toEqual(["gtc", "gtd", "market"]);
  });
  const cases: [TimeInForce, string, string | null][] = [
    ["gtc", "", null],
    ["market", "", null],
    ["gtd", "", "Enter the time the offer expires"],
    ["gtd", "tomorrow", "Use YYYY-MM-DD HH:MM"],
    ["gtd", "2026-12-08T09:59", "The expiry must be in the future"],
    ["gtd", "2026-12-08T10:00", "The expiry must be in the future"],
    ["gtd", "2026-12-08T17:30", null],
    ["gtd", "2026-12-08 17:30", null],
  ];
  for (const [tif, until, want] of cases) {
    it(`${tif} ${until || "without a time"}`, () => {
      expect(tifError(tif, until, now)).toBe(want);
    });
  }
  it("sends the offer's fields: a market order without validity, a gtd with its instant", () => {
    expect(tifFields("gtc", "")).toEqual({ validity: "gtc" });
    expect(tifFields("market", "")).toEqual({ market_order: true });
    expect(tifFields("gtd", "2026-12-08T17:30")).toEqual({ validity: "gtd", valid_until: new Date("2026-12-08T17:30").toISOString() });
  });
});

describe("what became of a market order", () => {
  it("says filled, partly filled with the rest cancelled, or cancelled", () => {
    expect(marketDone("bid", { quantity: 1000000, filled_quantity: 1000000 })).toBe("Market bid filled: 1,000,000");
    expect(marketDone("ask", { quantity: "1000000", filled_quantity: "250000" })).toBe("Market ask: 250,000 done, the rest (750,000) cancelled");
    expect(marketDone("bid", { quantity: 1000000, filled_quantity: 0 })).toBe("Market bid: nothing to trade against, cancelled");
  });
});
