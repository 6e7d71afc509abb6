// The firm's trades (every trade for the operator), their allocations to
// the firm's accounts, and the use of its risk limits, read again shortly
// after each change of its orders or trades.
import { query } from "../client/api";
import type { Allocation, RiskLimit, Trade } from "../client/types";
import { tradeNotice } from "../model/fills";
import type { Host } from "./host";

export class Deals {
  trades = new Map<string, Trade>();
  /** allocations are the firm's allocations of its side of its trades, by trade. */
  allocations = new Map<string, Allocation>();
  risk: RiskLimit[] = [];

  private riskTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly host: Host) {}

  /** load reads the trades and the firm's allocations (/trades). */
  async load(): Promise<void> {
    const { api } = this.host;
    const trades = await api.get<Trade[]>("/trades" + query({ limit: 500 }));
    this.trades = new Map(trades.map((t) => [t.id, t]));
    // The firm's allocations (the operator allocates nothing).
    if (!this.host.isOperator) {
      const allocs = await api.get<Allocation[]>("/allocations" + query({ limit: 500 }));
      this.allocations = new Map(allocs.map((a) => [a.trade_id, a]));
    }
  }

  /** applyTrade applies a trade.* event: the firm's own new trade is a notice, said as the desk says it. */
  applyTrade(type: string, t: Trade): void {
    const known = this.trades.has(t.id);
    this.trades.set(t.id, t);
    // The firm's own fill, said as the desk says it (the blotter keeps the detail).
    if (type === "trade.create" && !known) {
      const line = tradeNotice(t, this.host.user?.participant_id, this.host.instrument(t.instrument_id ?? t.bid_order.instrument_id ?? ""));
      if (line) this.host.notify("info", line);
    }
    this.riskSoon();
  }

  applyAllocation(a: Allocation): void {
    this.allocations.set(a.trade_id, a);
  }

  /** riskSoon reads the risk limits again in a moment: a burst of events reads them once. */
  riskSoon(): void {
    if (!this.host.user?.participant_id || this.riskTimer) return;
    this.riskTimer = setTimeout(() => {
      this.riskTimer = null;
      void this.loadRisk();
    }, 150);
  }

  async loadRisk(): Promise<void> {
    try {
      this.risk = await this.host.api.get<RiskLimit[]>("/participant/risk-limits");
      this.host.changed();
    } catch {
      /* shown as stale; the next event retries */
    }
  }

  /** clear forgets the firm's trades at sign-out. */
  clear(): void {
    this.trades.clear();
    this.allocations.clear();
    this.risk = [];
  }
}
