import { describe, expect, it } from "vitest";
import { phaseNotice, withPhase } from "../src/model/phase";

describe("a market's trading phase on the ticket", () => {
  it("says nothing while the market trades or has no hours", () => {
    expect(phaseNotice(undefined, "Day")).toBeNull();
    expect(phaseNotice({}, "Day")).toBeNull();
    expect(phaseNotice({ trading_phase: "continuous" }, "Day")).toBeNull();
  });
  it("says a closed or pre-open market refuses new orders, and when it opens", () => {
    const closed = phaseNotice({ trading_phase: "closed", next_phase_change: { phase: "pre-open", at: "2026-12-09T06:45:00Z" } }, "bondvenue Day Session");
    expect(closed).toMatch(/^bondvenue Day Session is closed: new orders are refused; next: pre-open at 2026-12-09 \d\d:45:00 /);
    const pre = phaseNotice({ trading_phase: "pre-open", next_phase_change: { phase: "continuous", at: "2026-12-09T07:00:00Z" } }, "Day");
    expect(pre).toMatch(/^Day is in its pre-open: new orders are refused; it opens at 2026-12-09 \d\d:00:00 /);
  });
  it("follows the market.phase events of its market only", () => {
    const m = { id: "m", name: "Day", trading_phase: "closed" };
    const e = { market_id: "m", trading_phase: "continuous", next_phase_change: { phase: "closed", at: "2026-12-09T16:30:00Z" } };
    expect(withPhase(m, e).trading_phase).toBe("continuous");
    expect(phaseNotice(withPhase(m, e), "Day")).toBeNull();
    expect(withPhase({ ...m, id: "other" }, e).trading_phase).toBe("closed");
  });
});
