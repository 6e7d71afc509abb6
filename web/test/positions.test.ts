import { describe, expect, it } from "vitest";
import type { Api } from "../src/client/api";
import type { Trade, User } from "../src/client/types";
import { type Position, PositionBook, concerns, remarks, totals } from "../src/positions/positions";
import type { Host } from "../src/state/host";

const pos = (p: Partial<Position>): Position => ({
  participant_id: "A",
  instrument_id: "i1",
  isin: "DE0001102580",
  name: "DBR 2.30 2033",
  account_id: "acc1",
  currency: "EUR",
  net_nominal: "1000000",
  bought_nominal: "1000000",
  sold_nominal: "0",
  fills: 1,
  average_price: "99.5",
  realised_pnl: "0.00",
  unrealised_pnl: "0.00",
  mark_price: "99.5",
  mark_source: "last_trade",
  mark_market_id: "m1",
  mark_at: "2026-12-08T09:00:00.000Z",
  ...p,
});

const trade = (buyer: string, seller: string) => ({ bid_order: { participant_id: buyer }, ask_order: { participant_id: seller } }) as Trade;

describe("positions", () => {
  it("follow the firm's own trades only", () => {
    expect(concerns(trade("A", "B"), "A")).toBe(true);
    expect(concerns(trade("B", "A"), "A")).toBe(true);
    expect(concerns(trade("B", "C"), "A")).toBe(false);
    expect(concerns(trade("A", "B"), null)).toBe(false);
  });
  it("are marked again when a held instrument's last price leaves the mark", () => {
    const list = [pos({}), pos({ instrument_id: "i2", mark_price: null })];
    expect(remarks(list, "i1", "99.50")).toBe(false); // the same price, written otherwise
    expect(remarks(list, "i1", "99.625")).toBe(true);
    expect(remarks(list, "i2", "101")).toBe(true); // no mark yet
    expect(remarks(list, "i3", "101")).toBe(false); // not held
    expect(remarks(list, "i1", null)).toBe(false);
  });
  it("total P&L per currency, never across currencies", () => {
    const list = [
      pos({ realised_pnl: "2500.00", unrealised_pnl: "-6250.00" }),
      pos({ account_id: "acc2", realised_pnl: "0.00", unrealised_pnl: "11250.00" }),
      pos({ currency: "USD", realised_pnl: "-10.50", unrealised_pnl: "0.25" }),
    ];
    expect(totals(list)).toEqual([
      { currency: "EUR", realised: "2500", unrealised: "5000" },
      { currency: "USD", realised: "-10.5", unrealised: "0.25" },
    ]);
  });
  it("are read again once for a burst of the firm's trades", async () => {
    let reads = 0;
    const answers: Position[][] = [[pos({})], [pos({ net_nominal: "2000000" })]];
    const host = {
      api: { get: async () => answers[Math.min(reads++, answers.length - 1)] } as unknown as Api,
      user: { participant_id: "A", role: "PARTICIPANT_TRADER" } as User,
      changed: () => {},
    } as unknown as Host;
    const book = new PositionBook(host, 0);
    await book.load();
    expect(book.list[0]?.net_nominal).toBe("1000000");
    book.onTrade(trade("A", "B"));
    book.onTrade(trade("B", "A"));
    book.onTrade(trade("B", "C"));
    await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 5));
    expect(book.list[0]?.net_nominal).toBe("2000000");
    expect(reads).toBeLessThanOrEqual(3);
  });
  it("are not read for a viewer", async () => {
    let reads = 0;
    const host = {
      api: { get: async () => (reads++, []) } as unknown as Api,
      user: { participant_id: "A", role: "PARTICIPANT_VIEWER" } as User,
      changed: () => {},
    } as unknown as Host;
    const book = new PositionBook(host, 0);
    await book.load();
    expect(reads).toBe(0);
    expect(book.active).toBe(false);
  });
});
