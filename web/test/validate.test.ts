import { describe, expect, it } from "vitest";
import { describe as describeError } from "../src/client/api";
import {
  collarWarning, defaultQuantity, expandQuantity, limitError, localInstant, nextBusinessDay, validUntilError, priceError, quantityError, settlementDateError, stepQuantity, yieldError,
} from "../src/model/validate";

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
  it("steps quantities by a step that follows the size, never below min piece", () => {
    expect(stepQuantity("1000000", bond, 1)).toBe("2000000");
    expect(stepQuantity("1000000", bond, -1)).toBe("900000");
    expect(stepQuantity("2500000", bond, 1)).toBe("3500000");
    expect(stepQuantity("100000", bond, 1)).toBe("200000");
    expect(stepQuantity("100000", bond, -1)).toBe("100000");
    expect(stepQuantity("", bond, 1)).toBe("100000");
    expect(stepQuantity("250000", bond, -1)).toBe("150000");
    expect(stepQuantity("1m", bond, 1)).toBe("2000000");
    // Never finer than the increment, and a multiple of it.
    expect(stepQuantity("600000", { min_piece: "300000", min_increment: "300000", precision: 4 }, 1)).toBe("900000");
  });
  it("reads the desk's shorthand for nominals", () => {
    expect(expandQuantity("1m")).toBe("1000000");
    expect(expandQuantity("2M")).toBe("2000000");
    expect(expandQuantity("3mm")).toBe("3000000");
    expect(expandQuantity("1.5m")).toBe("1500000");
    expect(expandQuantity("500k")).toBe("500000");
    expect(expandQuantity("250 k")).toBe("250000");
    expect(expandQuantity("1bn")).toBe("1000000000");
    expect(expandQuantity("1,000,000")).toBe("1000000");
    expect(expandQuantity("1 000 000")).toBe("1000000");
    expect(expandQuantity("ten")).toBe("ten");
    expect(quantityError("1m", bond)).toBeNull();
    expect(quantityError("3mm", bond)).toBeNull();
    expect(quantityError("1.0005m", bond)).toBe("Quantity must be a multiple of 1,000");
  });
  it("starts the ticket at a round million where the instrument takes it", () => {
    expect(defaultQuantity(bond)).toBe("1000000");
    expect(defaultQuantity({ min_piece: "2000000", min_increment: "1000", precision: 4 })).toBe("2000000");
    expect(defaultQuantity({ min_piece: "300000", min_increment: "300000", precision: 4 })).toBe("300000");
  });
  it("checks the firm's risk limits before sending, in words with the currency", () => {
    const limits = [
      { name: "MAX_OFFER", value: "50000000", used: "0" },
      { name: "ALL_OFFER_SUM", value: "100000000", used: "95000000" },
      { name: "ALL_OFFER_USER_SUM", value: "200000000", used: "0" },
      { name: "MAX_OFFER_VALUE", value: "20000000", used: "0" },
    ];
    expect(limitError("1000000", "99.5", limits, "EUR")).toBeNull();
    expect(limitError("60000000", "99.5", limits, "EUR")).toBe("Over the limit Largest single order: at most 50,000,000 EUR, this order is 60,000,000 EUR");
    expect(limitError("6000000", "99.5", limits, "EUR")).toBe(
      "Over the limit Firm's open orders: 100,000,000 EUR, 95,000,000 EUR in use, room for 5,000,000 EUR",
    );
    expect(limitError("4000000", "99.5", [{ name: "MAX_OFFER_VALUE", value: "3000000", used: "0" }], "EUR")).toBe(
      "Over the limit Largest order value: at most 3,000,000 EUR, this order is 3,980,000 EUR",
    );
    expect(limitError("", "99.5", limits, "EUR")).toBeNull();
  });
  it("reads times in the screen's one format, YYYY-MM-DD HH:MM, never the browser's mm/dd/yyyy", () => {
    expect(localInstant("2026-12-08 16:30")).toBe(new Date(2026, 11, 8, 16, 30).toISOString());
    expect(localInstant("12/08/2026 04:30 PM")).toBeNull();
    expect(localInstant("2026-02-30 10:00")).toBeNull();
    expect(validUntilError("")).toBe("Enter the time the offer expires");
    expect(validUntilError("08/12/2026 16:30")).toBe("Use YYYY-MM-DD HH:MM");
    expect(validUntilError("2026-12-08 16:30")).toBeNull();
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
