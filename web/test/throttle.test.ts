import { describe, expect, it } from "vitest";
import { throttleDelay } from "../src/instrument/throttle";

describe("throttleDelay", () => {
  it("lets the first call through at once", () => {
    expect(throttleDelay(null, 5_000, 1_000)).toBe(0);
  });
  it("holds a call inside the gap until the gap has passed", () => {
    expect(throttleDelay(5_000, 5_200, 1_000)).toBe(800);
    expect(throttleDelay(5_000, 5_999, 1_000)).toBe(1);
  });
  it("lets a call after the gap through at once", () => {
    expect(throttleDelay(5_000, 6_000, 1_000)).toBe(0);
    expect(throttleDelay(5_000, 9_000, 1_000)).toBe(0);
  });
});
