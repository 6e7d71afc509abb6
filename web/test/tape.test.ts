import { describe, expect, it } from "vitest";
import { deferred, onTape } from "../src/model/tape";
import { zonedTime } from "../src/model/zoned";
import { type Print, tapeOf } from "../src/model/trades";

const pub = { volume_due_at: "2026-12-08T17:00:00.000Z" };
const tape: Print[] = tapeOf([
  { trade_id: "t2", instrument_id: "i2", isin: "FR0011883966", market_id: "m1", price: 101.1, quantity: null, execution_type: "otc", occurred_at: "2026-12-08T10:01:00.000Z", flags: ["LMTF"], publication: pub },
  { trade_id: "t1", instrument_id: "i1", isin: "DE0001102606", market_id: "m1", price: 99.5, quantity: 1000000, execution_type: "continuous", occurred_at: "2026-12-08T10:00:00.000Z", flags: [], publication: pub },
]);

describe("the public tape page", () => {
  it("keeps each print's ISIN and flags", () => {
    expect(tape.map((p) => [p.isin, p.flags])).toEqual([
      ["FR0011883966", ["LMTF"]],
      ["DE0001102606", []],
    ]);
  });
  it("shows a size held back as deferred", () => {
    expect(tape.map(deferred)).toEqual([true, false]);
  });
  it("filters by instrument, newest first", () => {
    expect(onTape(tape, "").map((p) => p.tradeId)).toEqual(["t2", "t1"]);
    expect(onTape(tape, "i1").map((p) => p.tradeId)).toEqual(["t1"]);
  });
  const times: [string, string | undefined, string][] = [
    ["2026-12-08T10:00:00.000Z", "Europe/Berlin", "2026-12-08 11:00:00 CET"],
    ["2026-07-01T10:00:00.000Z", "Europe/Berlin", "2026-07-01 12:00:00 CEST"],
    ["2026-12-08T23:30:05.000Z", "UTC", "2026-12-08 23:30:05 UTC"],
    ["2026-12-08T23:30:05.000Z", "Asia/Tokyo", "2026-12-09 08:30:05 GMT+9"],
    ["not a time", "UTC", "–"],
  ];
  for (const [iso, zone, want] of times) {
    it(`reads ${iso} in ${zone} with its zone`, () => {
      expect(zonedTime(iso, zone)).toBe(want);
    });
  }
});
