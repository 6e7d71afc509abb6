import { describe, expect, it } from "vitest";
import { bestQuote, parseLines } from "../src/lists/lines";
import type { Instrument, PortfolioQuote } from "../src/client/types";

const instruments = [
  { id: "i1", isin: "DE0001102580" },
  { id: "i2", isin: "FR0014007L00" },
] as Instrument[];

describe("parseLines", () => {
  it("reads pasted lines and CSV, skipping blanks and a header", () => {
    const got = parseLines("isin,side,quantity\nDE0001102580, buy, 1,000,000\n\nfr0014007l00;SELL;500000\r\nDE0001102580\tb\t250000", instruments);
    expect(got.errors).toEqual(["Line 2: give an ISIN, buy or sell, and a nominal"]);
    const ok = parseLines("isin,side,quantity\nDE0001102580, buy, 1000000\n\nfr0014007l00;SELL;500000\r\nDE0001102580\tb\t250000", instruments);
    expect(ok.errors).toEqual([]);
    expect(ok.lines).toEqual([
      { instrument_id: "i1", direction: "bid", quantity: "1000000" },
      { instrument_id: "i2", direction: "ask", quantity: "500000" },
      { instrument_id: "i1", direction: "bid", quantity: "250000" },
    ]);
  });

  it("names every bad line", () => {
    const got = parseLines("XS0000000000 buy 100\nDE0001102580 hold 100\nDE0001102580 sell -5\nDE0001102580 sell", instruments);
    expect(got.errors).toEqual([
      "Line 1: no instrument has ISIN XS0000000000",
      "Line 2: the side must be buy or sell, not hold",
      "Line 3: the nominal must be a positive number",
      "Line 4: give an ISIN, buy or sell, and a nominal",
    ]);
    expect(got.lines).toEqual([]);
  });

  it("refuses more than 200 lines", () => {
    const got = parseLines(Array.from({ length: 201 }, () => "DE0001102580 buy 1000").join("\n"), instruments);
    expect(got.errors).toEqual(["A list holds at most 200 lines, not 201"]);
  });
});

describe("bestQuote", () => {
  const q = (id: string, net: string | null, status = "created", at = "2026-11-29T10:00:00.000Z") =>
    ({ id, net_proceeds: net, status, createdAt: at }) as PortfolioQuote;
  it("takes the most net proceeds among live quotes, the earlier of equals", () => {
    expect(bestQuote([q("a", "-100.50"), q("b", "-99.99"), q("c", "5", "cancelled"), q("d", null)])?.id).toBe("b");
    expect(bestQuote([q("a", "10", "created", "2026-11-29T10:00:01.000Z"), q("b", "10.00")])?.id).toBe("b");
    expect(bestQuote([q("a", "1", "rejected")])).toBeNull();
  });
});
