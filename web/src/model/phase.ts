// A market's trading phase as the screen says it: a market with trading
// hours is open (continuous) only within them; before the open (pre-open)
// and after the close (closed) the venue refuses new orders.
import * as z from "./zoned";

/** PhaseOf is what the screen reads of a market's phase. */
export interface PhaseOf {
  trading_phase?: string;
  next_phase_change?: { phase: string; at: string } | null;
}

/** phaseNotice says why a market takes no orders now, and when it opens; null while it trades (or has no hours). */
export function phaseNotice(m: PhaseOf | undefined, name: string): string | null {
  const phase = m?.trading_phase;
  if (!phase || phase === "continuous") return null;
  const what = phase === "pre-open" ? `${name} is in its pre-open` : `${name} is closed`;
  const next = m?.next_phase_change;
  const opens = next && next.phase === "continuous" ? `; it opens at ${z.zonedTime(next.at)}` : next ? `; next: ${next.phase} at ${z.zonedTime(next.at)}` : "";
  return `${what}: new orders are refused${opens}.`;
}

/** MarketPhase is a market.phase event: the phase a market entered and its next change. */
export interface MarketPhase {
  market_id: string;
  trading_phase: string;
  next_phase_change: { phase: string; at: string } | null;
}

/** withPhase applies a market.phase event to a market. */
export function withPhase<M extends PhaseOf & { id: string }>(m: M, e: MarketPhase): M {
  return m.id === e.market_id ? { ...m, trading_phase: e.trading_phase, next_phase_change: e.next_phase_change } : m;
}
