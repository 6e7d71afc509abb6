import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Venue } from "../src/state/venue";
import { nameIds } from "../src/client/api";

describe("notices", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  it("stack at most four, errors stay 6 s and infos 4 s, and each can be dismissed", () => {
    const v = new Venue();
    for (let i = 0; i < 6; i++) v.notify("error", "e" + i);
    expect(v.notices.map((n) => n.text)).toEqual(["e2", "e3", "e4", "e5"]);
    v.dismiss(v.notices[0]!.id);
    expect(v.notices.map((n) => n.text)).toEqual(["e3", "e4", "e5"]);
    v.notify("info", "done");
    vi.advanceTimersByTime(4001);
    expect(v.notices.map((n) => n.text)).toEqual(["e3", "e4", "e5"]);
    vi.advanceTimersByTime(2000);
    expect(v.notices).toEqual([]);
  });
});

describe("ids in the venue's messages", () => {
  it("are named, never shown raw", () => {
    const names = new Map([["3f2a1c4e-0000-4000-8000-00000000abcd", "Clearstream"]]);
    expect(nameIds("settlement provider 3f2a1c4e-0000-4000-8000-00000000abcd is disabled", names)).toBe("settlement provider Clearstream is disabled");
    expect(nameIds("settlement provider 9f2a1c4e-0000-4000-8000-00000000abcd is disabled", names)).toBe("settlement provider is disabled");
  });
});

describe("trade notices", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  it("tell the firm of each own trade once, from the stream", () => {
    const v = new Venue();
    v.user = { id: "u", email: "", role: "PARTICIPANT_TRADER", status: "active", participant_id: "B" };
    v.instruments = [{ id: "i", name: "DBR 2.30 15/02/2033", precision: 4 } as never];
    const t = {
      id: "t1",
      bid_order: { participant_id: "A", offer_id: "b" },
      ask_order: { participant_id: "B", offer_id: "a" },
      quantity: "500000",
      price_per_unit: "97.55",
      instrument_id: "i",
    };
    const apply = (v as unknown as { apply(type: string, r: unknown, m: unknown): void }).apply.bind(v);
    apply("trade.create", t, { seq: 1, type: "trade.create", occurred_at: "" });
    apply("trade.create", t, { seq: 1, type: "trade.create", occurred_at: "" });
    apply("trade.create", { ...t, id: "t2", ask_order: { participant_id: "C", offer_id: "c" } }, { seq: 2, type: "trade.create", occurred_at: "" });
    expect(v.notices.map((n) => n.text)).toEqual(["Sold 500 k DBR 2.30 2033 @ 97.55"]);
  });
});

describe("RFQs arriving", () => {
  it("are counted when addressed to the firm, live", () => {
    const v = new Venue();
    v.user = { id: "u", email: "", role: "PARTICIPANT_TRADER", status: "active", participant_id: "A" };
    const apply = (v as unknown as { apply(type: string, r: unknown, m: unknown): void }).apply.bind(v);
    const meta = { seq: 1, type: "rfq.create", occurred_at: "" };
    apply("rfq.create", { id: "r1", participant_id: "C", status: "created" }, meta);
    apply("rfq.create", { id: "r1", participant_id: "C", status: "created" }, meta);
    apply("rfq.create", { id: "r2", participant_id: "A", status: "created" }, meta);
    apply("rfq.update", { id: "r3", participant_id: "C", status: "created" }, meta);
    expect(v.rfqsArrived).toBe(1);
  });
});

describe("yields in the blotter", () => {
  it("are asked once per instrument, price and settlement date", async () => {
    const v = new Venue();
    const asked: string[] = [];
    v.api.get = (async (path: string) => {
      asked.push(path);
      return { yield: "2.5" };
    }) as typeof v.api.get;
    expect(v.yieldAt("i", "99.5", "2026-12-01T00:00:00Z")).toBeUndefined();
    expect(v.yieldAt("i", "99.5", "2026-12-01")).toBeNull(); // in flight
    await Promise.resolve();
    await Promise.resolve();
    expect(v.yieldAt("i", "99.5", "2026-12-01")).toBe("2.5");
    expect(v.yieldAt("i", null)).toBeNull();
    v.yieldAt("i", "99.5");
    expect(asked).toEqual(["/instruments/i/analytics?price=99.5&settlement_date=2026-12-01", "/instruments/i/analytics?price=99.5"]);
  });
});
