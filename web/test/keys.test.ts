import { describe, expect, it } from "vitest";
import { arrowStep } from "../src/ui/keys";

describe("radio groups", () => {
  it("move with the arrow keys and wrap", () => {
    expect(arrowStep("ArrowRight", 0, 2)).toBe(1);
    expect(arrowStep("ArrowDown", 1, 2)).toBe(0);
    expect(arrowStep("ArrowLeft", 0, 2)).toBe(1);
    expect(arrowStep("ArrowUp", 1, 2)).toBe(0);
    expect(arrowStep("Home", 1, 2)).toBe(0);
    expect(arrowStep("End", 0, 2)).toBe(1);
    expect(arrowStep("Enter", 0, 2)).toBeNull();
  });
});
