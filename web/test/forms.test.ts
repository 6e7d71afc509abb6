import { describe, expect, it } from "vitest";
import { ApiError } from "../src/client/api";
import { leiIssue, splitErrors } from "../src/ui/forms";
import { changes } from "../src/operator/Audit";
import { delay } from "../src/operator/Settlement";

describe("leiIssue", () => {
  const cases: [string, string | null][] = [
    ["529900T8BM49AURSDO55", null], // a published LEI
    ["529900t8bm49aursdo55", null], // case is not significant
    ["5493001KJTIIGC8Y1R12", null],
    ["529900T8BM49AURSDO56", "has wrong check digits (ISO 17442)"],
    ["529900T8BM49AURSDO5", "must be 20 characters (ISO 17442)"],
    ["529900T8BM49AURSDOX5", "must be 18 letters or digits and 2 check digits"],
    ["", "must be 20 characters (ISO 17442)"],
  ];
  for (const [lei, want] of cases) {
    it(JSON.stringify(lei), () => {
      const got = leiIssue(lei);
      expect(got).toBe(want);
    });
  }
});

describe("splitErrors", () => {
  const body = (details: { field: string; issue: string }[]) => ({ statusCode: 400, message: "Validation Error", error: "", details });
  const cases: { name: string; err: unknown; known: string[]; want: { fields: Record<string, string>; rest: string } }[] = [
    {
      name: "a known field's issue goes next to it",
      err: new ApiError(400, "x", body([{ field: "lei", issue: "must be a 20-character ISO 17442 LEI" }])),
      known: ["name", "lei"],
      want: { fields: { lei: "must be a 20-character ISO 17442 LEI" }, rest: "" },
    },
    {
      name: "an item of a list belongs to the list",
      err: new ApiError(400, "x", body([{ field: "settlement_lags[0].from", issue: "is required" }])),
      known: ["settlement_lags"],
      want: { fields: { settlement_lags: "settlement_lags[0].from: is required" }, rest: "" },
    },
    {
      name: "an unknown field's issue is said in words",
      err: new ApiError(400, "x", body([{ field: "participant_id", issue: "is not a participant" }])),
      known: ["email"],
      want: { fields: {}, rest: "participant id is not a participant" },
    },
    {
      name: "an error without details is its message",
      err: new ApiError(409, "The user is disabled"),
      known: ["email"],
      want: { fields: {}, rest: "The user is disabled" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = splitErrors(c.err, c.known);
      expect(got).toEqual(c.want);
    });
  }
});

describe("changes", () => {
  it("names the fields an audit entry changed", () => {
    const got = changes({ halted: false, reason: "", UpdatedAt: "a" }, { halted: true, reason: "news", UpdatedAt: "b" });
    expect(got).toEqual(['halted: false → true', 'reason: "" → "news"']);
  });
  it("says a creation", () => {
    expect(changes(null, { id: "x" })).toEqual(["created"]);
  });
});

describe("delay", () => {
  const cases: [string, string][] = [
    ["now", "at once"],
    ["15m", "after 15 min"],
    ["eod", "end of day"],
    ["1w", "after 1 week"],
    ["2w", "after 2 weeks"],
  ];
  for (const [d, want] of cases) it(d, () => expect(delay(d)).toBe(want));
});
