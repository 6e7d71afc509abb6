// The firm's positions, as GET /participant/positions answers them, kept
// current: read again shortly after each of the firm's trades (a burst is
// read once) and whenever the last price of an instrument it holds moves
// away from the position's mark.
import type { Num, Trade } from "../client/types";
import { type Dec, add, cmp, parse, text } from "../model/decimal";
import type { Host } from "../state/host";

/** Position is one instrument in one account: nominal held, the open part's average price, P&L at the mark. */
export interface Position {
  participant_id: string;
  instrument_id: string;
  isin: string;
  name: string;
  account_id: string;
  currency: string;
  net_nominal: string;
  bought_nominal: string;
  sold_nominal: string;
  fills: number;
  average_price: string | null;
  realised_pnl: string;
  unrealised_pnl: string;
  mark_price: string | null;
  mark_source: string | null;
  mark_market_id: string | null;
  mark_at: string | null;
}

/** concerns reports whether a trade is one the firm is party to. */
export function concerns(t: Trade, firm: string | null | undefined): boolean {
  return !!firm && (t.bid_order.participant_id === firm || t.ask_order.participant_id === firm);
}

/** remarks reports whether a new last price of an instrument moves the mark of a position held in it. */
export function remarks(list: readonly Position[], instrumentId: string, lastPrice: Num | null | undefined): boolean {
  const last = parse(lastPrice);
  if (!last) return false;
  return list.some((p) => {
    if (p.instrument_id !== instrumentId) return false;
    const mark = parse(p.mark_price);
    return !mark || cmp(mark, last) !== 0;
  });
}

/** Totals are the P&L of the positions in one currency. */
export interface Totals {
  currency: string;
  realised: string;
  unrealised: string;
}

/** totals sums realised and unrealised P&L by currency (amounts are never added across currencies), currencies in order. */
export function totals(list: readonly Position[]): Totals[] {
  const by = new Map<string, { realised: Dec; unrealised: Dec }>();
  for (const p of list) {
    const r = parse(p.realised_pnl);
    const u = parse(p.unrealised_pnl);
    if (!r || !u) continue;
    const t = by.get(p.currency);
    by.set(p.currency, t ? { realised: add(t.realised, r), unrealised: add(t.unrealised, u) } : { realised: r, unrealised: u });
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, t]) => ({ currency, realised: text(t.realised), unrealised: text(t.unrealised) }));
}

/** PositionBook holds the firm's positions for the screen. */
export class PositionBook {
  list: Position[] = [];
  /** loaded is false until the first answer. */
  loaded = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private wanted = false;

  constructor(
    private readonly host: Host,
    private readonly delay = 150,
  ) {}

  /** active is true for the users that hold positions: a firm's traders and admins. */
  get active(): boolean {
    const role = this.host.user?.role;
    return !!this.host.user?.participant_id && (role === "PARTICIPANT_TRADER" || role === "PARTICIPANT_ADMIN");
  }

  async load(): Promise<void> {
    if (!this.active) return;
    try {
      this.list = await this.host.api.get<Position[]>("/participant/positions");
      this.loaded = true;
      this.host.changed();
    } catch {
      /* the last list stays; the next trade reads again */
    }
  }

  /** onTrade reads the positions again soon when the firm is party to the trade. */
  onTrade(t: Trade): void {
    if (concerns(t, this.host.user?.participant_id)) this.soon();
  }

  /** onLastPrice reads the positions again soon when a held instrument's last price moved from its mark. */
  onLastPrice(instrumentId: string, lastPrice: Num | null | undefined): void {
    if (remarks(this.list, instrumentId, lastPrice)) this.soon();
  }

  /** soon reads the positions again in a moment: a burst of events reads them once. */
  soon(): void {
    if (!this.active || this.timer) {
      this.wanted = true;
      return;
    }
    this.wanted = false;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.load().then(() => {
        if (this.wanted) this.soon();
      });
    }, this.delay);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wanted = false;
    this.list = [];
    this.loaded = false;
  }
}
