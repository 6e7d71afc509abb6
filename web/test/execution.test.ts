import { describe, expect, it } from "vitest";
import { responseTime, saving } from "../src/model/execution";

describe("an execution record on the screen", () => {
  const times: [number | null, string][] = [
    [null, "–"],
    [850_000, "850 ms"],
    [999_400, "999 ms"],
    [2_345_678, "2.346 s"],
    [185_000_000, "3 min 05 s"],
  ];
  for (const [us, want] of times) {
    it(`reads a response time of ${us} µs`, () => {
      expect(responseTime(us)).toBe(want);
    });
  }
  it("says what the done price saved against the cover, or cost", () => {
    expect(saving(0.15, 7500, "EUR", 4)).toBe("saved 0.1500 per 100 (7,500.00 EUR) against the cover");
    expect(saving("-0.05", "-2500", "EUR", 4)).toBe("cost 0.0500 per 100 (2,500.00 EUR) against the cover");
    expect(saving(null, null, "EUR", 4)).toBe("no cover to compare with");
  });
});
