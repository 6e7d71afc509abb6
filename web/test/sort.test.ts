import { describe, expect, it } from "vitest";
import { nextSort, sortRows } from "../src/market/sort";

const rows = [
  { name: "BTPS 4.00 2035", coupon: "4", bid: "101.25" },
  { name: "DBR 2.30 2033", coupon: "2.3", bid: null },
  { name: "OAT 3.00 2034", coupon: "3", bid: "99.5" },
  { name: "BGB 0.10 2030", coupon: "0.1", bid: "88" },
];
const by = (r: (typeof rows)[number], c: string) => r[c as keyof typeof r];

describe("the market grid's order", () => {
  it("sorts decimals exactly, not as text", () => {
    expect(sortRows(rows, { column: "coupon", dir: "ascending" }, by).map((r) => r.coupon)).toEqual(["0.1", "2.3", "3", "4"]);
    expect(sortRows(rows, { column: "coupon", dir: "descending" }, by).map((r) => r.coupon)).toEqual(["4", "3", "2.3", "0.1"]);
  });
  it("keeps rows without a value last either way", () => {
    expect(sortRows(rows, { column: "bid", dir: "ascending" }, by).map((r) => r.bid)).toEqual(["88", "99.5", "101.25", null]);
    expect(sortRows(rows, { column: "bid", dir: "descending" }, by).map((r) => r.bid)).toEqual(["101.25", "99.5", "88", null]);
  });
  it("sorts text by name, and keeps the given order with no column", () => {
    expect(sortRows(rows, { column: "name", dir: "ascending" }, by)[0]?.name).toBe("BGB 0.10 2030");
    expect(sortRows(rows, { column: "", dir: "ascending" }, by)).toEqual(rows);
  });
  it("turns the order on a second click", () => {
    expect(nextSort({ column: "", dir: "ascending" }, "bid")).toEqual({ column: "bid", dir: "ascending" });
    expect(nextSort({ column: "bid", dir: "ascending" }, "bid")).toEqual({ column: "bid", dir: "descending" });
    expect(nextSort({ column: "bid", dir: "descending" }, "ask")).toEqual({ column: "ask", dir: "ascending" });
  });
});
