import { describe, expect, it } from "vitest";
import { fillFrom, isOwn, midOf, moved, spreadOf, ticketQuantity } from "../src/model/levels";

const terms = { min_piece: "1000", min_increment: "1000" };

describe("a click on a level", () => {
  it("fills the opposite side at its price", () => {
    expect(fillFrom("ask", { limit: "99.5", quantity: "1000000" }, terms)).toEqual({ direction: "bid", price: "99.5", quantity: "1000000" });
    expect(fillFrom("bid", { limit: 97.125, quantity: "250000" }, terms)).toEqual({ direction: "ask", price: "97.125", quantity: "250000" });
  });
  it("takes the level's quantity down to the increment and up to the minimum piece", () => {
    expect(ticketQuantity("1500500", terms)).toBe("1500000");
    expect(ticketQuantity("500", terms)).toBe("1000");
    expect(ticketQuantity("250000", { min_piece: "100000", min_increment: "50000" })).toBe("250000");
    expect(ticketQuantity("130000", { min_piece: "100000", min_increment: "50000" })).toBe("100000");
    expect(ticketQuantity("x", terms)).toBe("1000");
  });
});

describe("the grid's figures", () => {
  it("spread and mid are exact", () => {
    expect(spreadOf("99.5", "99.75")).toBe("0.25");
    expect(midOf("99.5", "99.75")).toBe("99.625");
    expect(midOf("99.01", "99.02")).toBe("99.015");
    expect(spreadOf(null, "99")).toBeNull();
    expect(midOf("99", undefined)).toBeNull();
  });
  it("a price moved up, down or not", () => {
    expect(moved("99.5", "99.75")).toBe("up");
    expect(moved("99.5", 99.25)).toBe("down");
    expect(moved("99.50", "99.5")).toBe("");
    expect(moved(null, "99")).toBe("");
  });
  it("own levels are the firm's", () => {
    expect(isOwn({ participant_id: "A" }, "A")).toBe(true);
    expect(isOwn({ participant_id: null }, "A")).toBe(false);
    expect(isOwn({ participant_id: "A" }, null)).toBe(false);
  });
});
