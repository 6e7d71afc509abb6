import { describe, expect, it } from "vitest";
import { type RfqTerms, type TermsError, quoteValidity, rfqTermsError, rfqTermsFields } from "../src/model/rfqterms";

const none: RfqTerms = { settlement: "", limit: "", executable: false };
const today = "2026-12-08";

describe("an RFQ's terms", () => {
  const cases: [string, RfqTerms, TermsError | null][] = [
    ["none", none, null],
    ["a limit", { ...none, limit: "101.25" }, null],
    ["executable with a limit", { ...none, limit: "101.25", executable: true }, null],
    ["executable without a limit", { ...none, executable: true }, { field: "limit", message: "An executable request needs a limit price" }],
    ["a limit past the precision", { ...none, limit: "101.12345" }, { field: "limit", message: "Price has at most 4 decimal places" }],
    ["a limit with a decimal comma", { ...none, limit: "101,25" }, { field: "limit", message: "Use a point for decimals: 101.25" }],
    ["a settlement date", { ...none, settlement: "2026-12-10" }, null],
    ["a past settlement date", { ...none, settlement: "2026-12-01" }, { field: "settlement", message: "Settlement date is in the past" }],
    ["a weekend settlement date", { ...none, settlement: "2026-12-12" }, { field: "settlement", message: "Settlement date falls on a weekend" }],
  ];
  for (const [name, t, want] of cases) {
    it(name, () => {
      expect(rfqTermsError(t, 4, today)).toEqual(want);
    });
  }
  it("send only the terms given", () => {
    expect(rfqTermsFields(none)).toEqual({});
    expect(rfqTermsFields({ settlement: "2026-12-10", limit: " 101.25 ", executable: true })).toEqual({ settlement_date: "2026-12-10", price_per_unit: "101.25", is_executable: true });
  });
});

describe("a dealer's quote validity", () => {
  const now = Date.parse("2026-12-08T10:00:00.000Z");
  const rfqUntil = "2026-12-08T10:05:00.000Z";
  it("is the request's deadline when blank", () => {
    expect(quoteValidity("", rfqUntil, now)).toEqual({ validity: "gtd", valid_until: rfqUntil });
    expect(quoteValidity("", null, now)).toEqual({ validity: "gtc" });
  });
  it("is the seconds typed from now", () => {
    expect(quoteValidity("30", rfqUntil, now)).toEqual({ validity: "gtd", valid_until: "2026-12-08T10:00:30.000Z" });
  });
  it("never outlives the request", () => {
    expect(quoteValidity("600", rfqUntil, now)).toEqual({ validity: "gtd", valid_until: rfqUntil });
  });
  it("names a bad number", () => {
    for (const s of ["0", "-5", "1.5", "abc", "86401"]) expect(quoteValidity(s, rfqUntil, now)).toEqual({ error: "Quote validity: between 1 and 86400 seconds" });
  });
});
