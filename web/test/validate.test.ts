import { describe, expect, it } from "vitest";
import { describe as describeError } from "../src/client/api";
import { collarWarning, nextBusinessDay, priceError, quantityError, settlementDateError, stepQuantity, yieldError } from "../src/model/validate";

const bond = { min_piece: "100000", min_increment: "1000", precision: 4 };

describe("order ticket validation", () => {
  it("enforces min piece and increment on quantities", () => {
    expect(quantityError("100000", bond)).toBeNull();
    expect(quantityError("101000", bond)).toBeNull();
    expect(quantityError("99000", bond)).toBe("Minimum piece is 100,000");
    expect(quantityError("100500", bond)).toBe("Quantity must be a multiple of 1,000");
    expect(quantityError("100000.5", bond)).toBe("Quantity must be a whole amount");
    expect(quantityError("", bond)).toBe("Enter a quantity");
    expect(quantityError("-5", bond)).toBe("Quantity must be greater than 0");
    expect(quantityError("ten", bond)).toBe("Quantity must be a number");
  });
  it("limits price precision to the instrument's", () => {
    expect(priceError("99.1234", bond)).toBeNull();
    expect(priceError("99.12345", bond)).toBe("Price has at most 4 decimal places");
    expect(priceError("0", bond)).toBe("Price must be greater than 0");
    expect(priceError("", bond)).toBe("Enter a price");
  });
  it("refuses a decimal comma instead of reading 97,50 as 9750", () => {
    expect(priceError("97,50", bond)).toBe("Use a point for decimals: 97.50");
    expect(priceError("1,000.5", bond)).toBe("Write the number without commas");
    expect(yieldError("3,25")).toBe("Use a point for decimals: 3.25");
    expect(quantityError("1,5", bond)).toBe("Use a point for decimals: 1.5");
    expect(quantityError("1,000,000", bond)).toBeNull(); // thousands separators are fine in a quantity
  });
  it("checks yields", () => {
    expect(yieldError("3.25")).toBeNull();
    expect(yieldError("-0.5")).toBeNull();
    expect(yieldError("-100")).toBe("Yield must be above -100 %");
    expect(yieldError("x")).toBe("Yield must be a number");
  });
  it("steps quantities by the increment, never below min piece", () => {
    expect(stepQuantity("100000", bond, 1)).toBe("101000");
    expect(stepQuantity("100000", bond, -1)).toBe("100000");
    expect(stepQuantity("", bond, 1)).toBe("100000");
    expect(stepQuantity("250000", bond, -1)).toBe("249000");
  });
  it("checks settlement dates", () => {
    expect(settlementDateError("", "2026-11-25")).toBeNull();
    expect(settlementDateError("2026-11-27", "2026-11-25")).toBeNull();
    expect(settlementDateError("2026-11-28", "2026-11-25")).toBe("Settlement date falls on a weekend");
    expect(settlementDateError("2026-11-24", "2026-11-25")).toBe("Settlement date is in the past");
    expect(settlementDateError("2026-02-30", "2026-01-01")).toBe("Not a date");
    expect(settlementDateError("27/11/2026", "2026-11-25")).toBe("Use YYYY-MM-DD");
  });
});

describe("settlement on the instrument's calendar", () => {
  const holidays = new Map([
    ["2026-12-25", "Christmas Day"],
    ["2026-12-26", "Boxing Day"],
    ["2027-01-01", "New Year's Day"],
  ]);
  it("refuses a holiday and names the next business day", () => {
    expect(settlementDateError("2026-12-25", "2026-12-21", { holidays, calendar: "TARGET2" })).toBe(
      "2026-12-25 is a holiday on TARGET2 (Christmas Day): the next business day is 2026-12-28",
    );
    expect(settlementDateError("2026-12-24", "2026-12-21", { holidays, calendar: "TARGET2" })).toBeNull();
  });
  it("rolls a date forward past weekends and holidays", () => {
    expect(nextBusinessDay("2026-12-24", holidays)).toBe("2026-12-24");
    expect(nextBusinessDay("2026-12-25", holidays)).toBe("2026-12-28");
    expect(nextBusinessDay("2026-12-31", holidays)).toBe("2026-12-31");
    expect(nextBusinessDay("2027-01-01", holidays)).toBe("2027-01-04");
  });
});

describe("error messages", () => {
  it("turns the venue's error bodies into sentences", () => {
    expect(
      describeError(400, {
        message: "Bad Request",
        error: "risk limit MAX_OFFER breached: limit 50000000, in use 0, this request needs 60000000",
        details: [{ field: "quantity", issue: "MAX_OFFER limit 50000000, in use 0" }],
      }),
    ).toBe("risk limit MAX_OFFER breached: limit 50000000, in use 0, this request needs 60000000");
    expect(
      describeError(400, {
        message: "Validation Error",
        error: "Validation Error",
        details: [
          { field: "quantity", issue: "must be at least min_piece 100000" },
          { field: "valid_until", issue: "must be in the future" },
        ],
      }),
    ).toBe("quantity must be at least min_piece 100000; valid until must be in the future");
    expect(describeError(503, null)).toBe("The venue is busy or failing over; try again in a moment");
    expect(describeError(403, "")).toBe("Your role may not do this");
  });
});

describe("price collar warning", () => {
  const collar = { reference_price: 97.5, reference_source: "mid of the best bid and ask", price_collar_percent: "10", low: 87.75, high: 107.25 };
  it("warns of a fat finger before it is sent", () => {
    expect(collarWarning("97.5", collar)).toBeNull();
    expect(collarWarning("87.75", collar)).toBeNull();
    expect(collarWarning("107.25", collar)).toBeNull();
    expect(collarWarning("9750", collar)).toBe(
      "Price is outside the price collar: ±10% around 97.5 (mid of the best bid and ask), 87.75 to 107.25",
    );
    expect(collarWarning("87.7", collar)).not.toBeNull();
  });
  it("applies the absolute band without a reference", () => {
    const none = { reference_price: null, reference_source: null, price_collar_percent: "10", low: null, high: 200 };
    expect(collarWarning("150", none)).toBeNull();
    expect(collarWarning("9750", none)).toBe("Price is outside the price collar: with no reference price the market takes up to 200");
  });
  it("says nothing without a collar or a price", () => {
    expect(collarWarning("9750", null)).toBeNull();
    expect(collarWarning("", collar)).toBeNull();
  });
});
