import { describe, expect, it } from "vitest";
import { add, cmp, fixed, isMultipleOf, mul, parse, round, shift, sub, text } from "../src/model/decimal";

describe("decimal", () => {
  it("parses decimal text and JSON numbers exactly", () => {
    expect(text(parse("99.875")!)).toBe("99.875");
    expect(text(parse(0.1)!)).toBe("0.1");
    expect(text(parse("1e6")!)).toBe("1000000");
    expect(text(parse("-0.0500")!)).toBe("-0.05");
    expect(text(parse("1,000,000")!)).toBe("1000000");
    expect(parse("abc")).toBeNull();
    expect(parse("")).toBeNull();
    expect(parse(".")).toBeNull();
    expect(parse(Number.NaN)).toBeNull();
  });
  it("adds, subtracts and multiplies without binary rounding", () => {
    expect(text(add(parse("0.1")!, parse("0.2")!))).toBe("0.3");
    expect(text(sub(parse("100")!, parse("99.995")!))).toBe("0.005");
    // 1,250,000 nominal at 99.875 % = 1,248,437.5
    expect(text(shift(mul(parse("1250000")!, parse("99.875")!), -2))).toBe("1248437.5");
    expect(text(shift(parse("12.5")!, 3))).toBe("12500");
  });
  it("compares and checks multiples", () => {
    expect(cmp(parse("99.5")!, parse("99.50")!)).toBe(0);
    expect(cmp(parse("-1")!, parse("0.5")!)).toBe(-1);
    expect(isMultipleOf(parse("101000")!, parse("1000")!)).toBe(true);
    expect(isMultipleOf(parse("100500")!, parse("1000")!)).toBe(false);
    expect(isMultipleOf(parse("0.75")!, parse("0.25")!)).toBe(true);
  });
  it("rounds half away from zero for display", () => {
    expect(text(round(parse("2.345")!, 2))).toBe("2.35");
    expect(text(round(parse("-2.345")!, 2))).toBe("-2.35");
    expect(text(round(parse("2.344")!, 2))).toBe("2.34");
    expect(fixed(parse("1234567.5")!, 2, true)).toBe("1,234,567.50");
    expect(fixed(parse("0.00049")!, 3)).toBe("0.000");
    expect(fixed(parse("-0.5")!, 0)).toBe("-1");
  });
});
