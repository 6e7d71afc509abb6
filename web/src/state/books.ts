// The public market as the screen shows it: each instrument's best bid
// and ask per market, the books shown level by level, the indicative
// prices, the public tape, and what a click on a level put into the
// order ticket.
import { ApiError, query } from "../client/api";
import type { Depth, IndicativePrice, Instrument, LastTrade, Limit, PriceChange, PriceCollar } from "../client/types";
import { cmpNum } from "../model/decimal";
import type { TicketFill } from "../model/levels";
import { type Print, type TapePrint, tapeOf, withPrint } from "../model/trades";
import type { Host } from "./host";

/** Halt is an instrument.halt record: an instrument halted on a market, or trading again. */
export interface Halt {
  instrument_id: string;
  market_id: string;
  halted: boolean;
  reason: string | null;
}

export interface Best {
  bid: Limit | null;
  ask: Limit | null;
  lastPrice: string | number | null;
  lastQuantity: string | number | null;
}

/** Ladder is one book's top levels per side, best first. */
export interface Ladder {
  bid: Limit[];
  ask: Limit[];
}

/** depthLevels is how many levels per side the screen shows (the stream's default). */
export const depthLevels = 10;

export class Books {
  /** best[instrumentId][marketId] */
  best = new Map<string, Map<string, Best>>();
  /** depth[instrumentId][marketId]: the books the screen shows level by level, kept by instrument.depth. */
  depth = new Map<string, Map<string, Ladder>>();
  /** bookVersion counts the changes to each instrument's books and halts (the ticket's price collar reads again on it). */
  bookVersion = new Map<string, number>();
  indicative = new Map<string, IndicativePrice>();
  /** halts[instrumentId/marketId] is the reason of a halt in force there: read with the books, kept by instrument.halt. */
  halts = new Map<string, string>();
  tape: Print[] = [];
  /** charted holds the instruments whose chart has shown a bar: trades the screen knows of, published on the tape or not. */
  charted = new Set<string>();
  /** ticketFill is what the last click on a book level put into the order ticket; seq tells a new click from the last. */
  ticketFill: (TicketFill & { seq: number }) | null = null;

  /** depthStamp[instrumentId/marketId] is depthEvents when an event last set that book. */
  private depthStamp = new Map<string, number>();
  private depthEvents = 0;
  /** haltsRead is set once the session has read the halts in force. */
  private haltsRead = false;

  constructor(private readonly host: Host) {}

  /** load reads every instrument's best prices on each market, and the books shown level by level (/instruments). */
  async load(): Promise<void> {
    const { api, markets } = this.host;
    const best = new Map<string, Map<string, Best>>();
    // Each book's last trade before this moment, as the stream keeps it
    // after (the price changes after are buffered meanwhile): the venue's
    // last trades, never the public tape, which lists by publication and
    // holds deferred trades back.
    const lasts = new Map<string, LastTrade>();
    for (const t of await api.get<LastTrade[]>("/last-trades").catch(() => [])) lasts.set(t.instrument_id + "/" + t.market_id, t);
    await Promise.all(
      markets.map(async (m) => {
        const list = await api.get<Instrument[]>("/instruments" + query({ market_id: m.id }));
        for (const i of list) {
          const per = best.get(i.id) ?? new Map<string, Best>();
          const prev = this.best.get(i.id)?.get(m.id);
          per.set(m.id, {
            bid: i.instrument_limits.bid[0] ?? null,
            ask: i.instrument_limits.ask[0] ?? null,
            lastPrice: lasts.get(i.id + "/" + m.id)?.last_price ?? prev?.lastPrice ?? null,
            lastQuantity: lasts.get(i.id + "/" + m.id)?.last_quantity ?? prev?.lastQuantity ?? null,
          });
          best.set(i.id, per);
        }
      }),
    );
    this.best = best;
    // The halts in force, each book's as its price collar says, read once
    // a session in the same window (instrument.halt events meanwhile apply
    // after, and keep them; a resumed stream replays the ones it missed).
    if (!this.haltsRead) {
      this.haltsRead = true;
      const halts = new Map<string, string>();
      const continuous = markets.filter((m) => m.facility_type !== "OTC");
      await Promise.all(
        [...best.keys()].flatMap((id) =>
          continuous.map(async (m) => {
            const c = await api.get<PriceCollar>(`/instruments/${id}/price-collar` + query({ market_id: m.id })).catch(() => null);
            if (c?.halted) halts.set(id + "/" + m.id, c.halt_reason ?? "");
          }),
        ),
      );
      this.halts = halts;
    }
    // The books shown level by level, reloaded in the same window:
    // their events meanwhile apply after.
    await Promise.all([...this.depth.keys()].map(async (id) => this.depth.set(id, await this.fetchDepth(id))));
  }

  /** loadTape reads the public tape (/tape). */
  async loadTape(): Promise<void> {
    this.tape = tapeOf(await this.host.api.get<TapePrint[]>("/tape" + query({ limit: 500 })));
  }

  /** loadIndicative reads the indicative prices (/indicative-prices). */
  async loadIndicative(): Promise<void> {
    const list = await this.host.api.get<IndicativePrice[]>("/participant/indicative-price" + query({ limit: 500 }));
    this.indicative = new Map(list.map((p) => [p.id, p]));
  }

  /** applyInstrument applies an instrument.* event: a book's levels, a price change, or a halt (which changes no price). */
  applyInstrument(type: string, record: unknown): void {
    const id = (record as { instrument_id: string }).instrument_id;
    if (type === "instrument.depth") this.applyDepth(record as Depth);
    else if (type === "instrument.price_change") this.applyPriceChange(record as PriceChange);
    else if (type === "instrument.halt") this.applyHalt(record as Halt);
    // A halt changes no price; the views that read the collar read it again.
    this.bookVersion.set(id, (this.bookVersion.get(id) ?? 0) + 1);
  }

  /** applyHalt keeps an instrument's halt on a market, or its end. */
  private applyHalt(h: Halt): void {
    const key = h.instrument_id + "/" + h.market_id;
    if (h.halted) this.halts.set(key, h.reason ?? "");
    else this.halts.delete(key);
  }

  /** noteCollar keeps the halt a price collar read says, for the views that read one. */
  noteCollar(c: PriceCollar): void {
    const key = c.instrument_id + "/" + c.market_id;
    if (c.halted === this.halts.has(key)) return;
    if (c.halted) this.halts.set(key, c.halt_reason ?? "");
    else this.halts.delete(key);
    this.host.changed();
  }

  /** noteBars keeps that the chart has shown an instrument's trades, for the tape to say when none is published. */
  noteBars(instrumentId: string, bars: number): void {
    if (bars === 0 || this.charted.has(instrumentId)) return;
    this.charted.add(instrumentId);
    this.host.changed();
  }

  /** haltOf is the reason of the instrument's halt on the market, or null when it trades. */
  haltOf(instrumentId: string, marketId: string): string | null {
    return this.halts.get(instrumentId + "/" + marketId) ?? null;
  }

  /** haltedOn are the markets (of those given) the instrument is halted on. */
  haltedOn(instrumentId: string, marketIds: string[]): string[] {
    return marketIds.filter((m) => this.halts.has(instrumentId + "/" + m));
  }

  applyTape(p: TapePrint): void {
    this.tape = withPrint(this.tape, p);
  }

  applyIndicative(type: string, p: IndicativePrice): void {
    if (type.endsWith(".delete")) this.indicative.delete(p.id);
    else this.indicative.set(p.id, p);
  }

  private applyPriceChange(pc: PriceChange): void {
    const per = this.best.get(pc.instrument_id) ?? new Map<string, Best>();
    per.set(pc.market_id, { bid: pc.bid, ask: pc.ask, lastPrice: pc.last_price, lastQuantity: pc.last_quantity });
    this.best.set(pc.instrument_id, per);
    // The trades are on the screen's tape when the public tape shows them (tape.publish).
  }

  /** applyDepth keeps a book's levels, for an instrument the screen shows level by level. */
  private applyDepth(d: Depth): void {
    const per = this.depth.get(d.instrument_id);
    if (!per) return; // not shown: a page that opens it loads it
    per.set(d.market_id, { bid: d.bid.slice(0, depthLevels), ask: d.ask.slice(0, depthLevels) });
    this.depthStamp.set(d.instrument_id + "/" + d.market_id, ++this.depthEvents);
  }

  /** loadDepth starts showing an instrument's books level by level: loaded by REST, then kept by the stream. */
  async loadDepth(instrumentId: string): Promise<void> {
    if (this.depth.has(instrumentId)) return;
    this.depth.set(instrumentId, new Map());
    const since = this.depthEvents;
    try {
      const loaded = await this.fetchDepth(instrumentId);
      const per = this.depth.get(instrumentId);
      if (!per) return;
      for (const [mid, ladder] of loaded) {
        // A book the stream set while the answer was on its way keeps that.
        if ((this.depthStamp.get(instrumentId + "/" + mid) ?? 0) <= since) per.set(mid, ladder);
      }
      this.host.changed();
    } catch (e) {
      this.depth.delete(instrumentId);
      if (!(e instanceof ApiError && e.status === 401)) this.host.notify("error", `Could not load the depth: ${(e as Error).message}`);
    }
  }

  /** fetchDepth reads an instrument's books by REST, per market. */
  private async fetchDepth(instrumentId: string): Promise<Map<string, Ladder>> {
    const ins = await this.host.api.get<Instrument>(`/instruments/${instrumentId}` + query({ market_depth: 0 }));
    const out = new Map<string, Ladder>(this.host.markets.map((m) => [m.id, { bid: [], ask: [] }]));
    for (const side of ["bid", "ask"] as const) {
      for (const l of ins.instrument_limits[side]) {
        const ladder = out.get(l.market_id ?? "");
        if (ladder && ladder[side].length < depthLevels) ladder[side].push(l);
      }
    }
    return out;
  }

  /** fillTicket puts a clicked level into the instrument's order ticket. */
  fillTicket(fill: TicketFill): void {
    this.ticketFill = { ...fill, seq: (this.ticketFill?.seq ?? 0) + 1 };
    this.host.changed();
  }

  /** bestOf is an instrument's best bid and ask over the given markets (all continuous when none). */
  bestOf(instrumentId: string, marketId?: string): Best {
    const per = this.best.get(instrumentId);
    const out: Best = { bid: null, ask: null, lastPrice: null, lastQuantity: null };
    if (!per) return out;
    for (const [mid, b] of per) {
      if (marketId ? mid !== marketId : this.host.market(mid)?.facility_type === "OTC") continue;
      // Each level keeps its market: a click on it fills the ticket there.
      if (b.bid && (!out.bid || cmpNum(b.bid.limit, out.bid.limit) > 0)) out.bid = { ...b.bid, market_id: b.bid.market_id ?? mid };
      if (b.ask && (!out.ask || cmpNum(b.ask.limit, out.ask.limit) < 0)) out.ask = { ...b.ask, market_id: b.ask.market_id ?? mid };
      if (b.lastPrice !== null) {
        out.lastPrice = b.lastPrice;
        out.lastQuantity = b.lastQuantity;
      }
    }
    return out;
  }

  /** indicativeOf is the tightest indicative bid and ask published for an instrument. */
  indicativeOf(instrumentId: string): { bid: IndicativePrice | null; ask: IndicativePrice | null } {
    let bid: IndicativePrice | null = null;
    let ask: IndicativePrice | null = null;
    for (const p of this.indicative.values()) {
      if (p.instrument_id !== instrumentId) continue;
      if (p.valid_until && new Date(p.valid_until).getTime() < this.host.now) continue;
      if (p.bid_price !== null && (!bid || cmpNum(p.bid_price, bid.bid_price) > 0)) bid = p;
      if (p.ask_price !== null && (!ask || cmpNum(p.ask_price, ask.ask_price) < 0)) ask = p;
    }
    return { bid, ask };
  }

  /** clear forgets the market at sign-out. */
  clear(): void {
    this.best.clear();
    this.depth.clear();
    this.indicative.clear();
    this.halts.clear();
    this.haltsRead = false;
    this.tape = [];
  }
}
