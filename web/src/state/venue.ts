// The screen's state: REST snapshots kept current by the stream. Every
// record event carries the whole record, so applying it is an upsert; a
// namespace being reloaded by REST buffers its events and applies them
// after the snapshot, in order, so the result is never older than either.
import { Api, ApiError, nameIds, query } from "../client/api";
import { type Dec, add, dec, parse, sub } from "../model/decimal";
import { tradeNotice } from "../model/fills";
import type { TicketFill } from "../model/levels";
import { type Pref, browserPrefs, loadPref, savePref } from "./prefs";
import { awaitingQuote } from "../model/rfq";
import { Stream, type StreamStatus } from "../client/stream";
import { type Print, type TapePrint, participantName, tapeOf, withPrint } from "../model/trades";
import type {
  Account, Allocation, Bar, Bucket, Depth, IndicativePrice, Instrument, Limit, Market, Meta, News, Offer, Participant, PortfolioRFQ, PriceChange,
  RiskLimit, Trade, User,
} from "../client/types";

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

export type { Print } from "../model/trades";

export interface Notice {
  id: number;
  kind: "info" | "error";
  text: string;
}

type Listener = () => void;

const namespaces = ["/offers", "/trades", "/instruments", "/news", "/indicative-prices", "/tape"] as const;

export class Venue {
  readonly api = new Api();
  stream: Stream | null = null;
  status: StreamStatus = "offline";
  user: User | null = null;
  participant: Participant | null = null;
  /** names of the participants the caller may read (all of them for the operator), by id. */
  names = new Map<string, string>();
  expired = false;

  markets: Market[] = [];
  instruments: Instrument[] = [];
  buckets: Bucket[] = [];
  /** best[instrumentId][marketId] */
  best = new Map<string, Map<string, Best>>();
  offers = new Map<string, Offer>(); // own offers and quotes
  rfqs = new Map<string, Offer>(); // RFQs sent or received
  /** lists are the portfolio RFQs sent or received, as the firm may see them. */
  lists = new Map<string, PortfolioRFQ>();
  /** declined holds the RFQs declined from this tab until the venue's decline record (a quote without price) arrives. */
  declined = new Set<string>();
  trades = new Map<string, Trade>();
  /** allocations are the firm's allocations of its side of its trades, by trade. */
  allocations = new Map<string, Allocation>();
  news: News[] = [];
  indicative = new Map<string, IndicativePrice>();
  risk: RiskLimit[] = [];
  tape: Print[] = [];
  /** depth[instrumentId][marketId]: the books the screen shows level by level, kept by instrument.depth. */
  depth = new Map<string, Map<string, Ladder>>();
  /** bookVersion counts the changes to each instrument's books and halts (the ticket's price collar reads again on it). */
  bookVersion = new Map<string, number>();
  /** chart receives /ohlc bars and reloads for the instrument page's chart. */
  chart: { bar(b: Bar): void; reload(): void } | null = null;
  notices: Notice[] = [];
  now = Date.now();
  /** rfqsArrived counts the RFQs addressed to the firm that the stream brought live this session. */
  rfqsArrived = 0;
  /** ticketFill is what the last click on a book level put into the order ticket; seq tells a new click from the last. */
  ticketFill: (TicketFill & { seq: number }) | null = null;

  private listeners = new Set<Listener>();
  private scheduled = false;
  private loading = new Set<string>();
  private buffered = new Map<string, [string, unknown, Meta][]>();
  private riskTimer: ReturnType<typeof setTimeout> | null = null;
  private noticeSeq = 0;
  /** depthStamp[instrumentId/marketId] is depthEvents when an event last set that book. */
  private depthStamp = new Map<string, number>();
  private depthEvents = 0;
  private clock: ReturnType<typeof setInterval> | null = null;

  constructor() {
    this.api.onUnauthorized = () => this.expire();
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** changed schedules one render for any number of changes in a frame. */
  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      for (const l of this.listeners) l();
    });
  }

  get role(): string {
    return this.user?.role ?? "";
  }
  get canTrade(): boolean {
    return this.role === "PARTICIPANT_TRADER" || this.role === "PARTICIPANT_ADMIN";
  }
  get isAdmin(): boolean {
    return this.role === "PARTICIPANT_ADMIN";
  }
  get isOperator(): boolean {
    return this.role === "VENUE_OPERATOR";
  }
  /** accountNumber names one of the firm's accounts by its number. */
  accountNumber(id: string): string {
    const a = (this.user?.accounts ?? []).find((x) => x.id === id) ?? (this.participant?.accounts ?? []).find((x) => x.id === id);
    return a?.number ?? "account " + id;
  }
  /** accounts are the firm's accounts, by number. */
  get accounts(): Account[] {
    const list = this.user?.accounts?.length ? this.user.accounts : (this.participant?.accounts ?? []);
    return [...list].sort((a, b) => a.number.localeCompare(b.number));
  }
  /** accountId is the account the screen trades on: the firm's first by number (its own book in the demo). */
  get accountId(): string {
    return this.accounts[0]?.id ?? "";
  }

  /** notify shows a notice: at most four stacked, an error for 6 s and an info for 4 s, each dismissible. */
  notify(kind: Notice["kind"], text: string): void {
    // The venue's messages name records by id: shown by name.
    const n = { id: ++this.noticeSeq, kind, text: nameIds(text, this.names) };
    this.notices = [...this.notices.slice(-3), n];
    this.changed();
    setTimeout(() => this.dismiss(n.id), kind === "error" ? 6000 : 4000);
  }

  /** dismiss takes a notice away. */
  dismiss(id: number): void {
    if (!this.notices.some((x) => x.id === id)) return;
    this.notices = this.notices.filter((x) => x.id !== id);
    this.changed();
  }

  /** inbox is how many RFQs addressed to the firm wait for its quote. */
  get inbox(): number {
    return awaitingQuote(this.rfqs.values(), this.offers.values(), this.user?.participant_id, this.declined, this.now);
  }

  /** pref is the signed-in user's choice (off unless chosen), kept in localStorage. */
  pref(name: Pref): boolean {
    return loadPref(browserPrefs(), this.user?.id ?? "", name);
  }

  setPref(name: Pref, on: boolean): void {
    savePref(browserPrefs(), this.user?.id ?? "", name, on);
    this.changed();
  }

  /** fillTicket puts a clicked level into the instrument's order ticket. */
  fillTicket(fill: TicketFill): void {
    this.ticketFill = { ...fill, seq: (this.ticketFill?.seq ?? 0) + 1 };
    this.changed();
  }

  /** resuming is set while a reload takes up the tab's session. */
  resuming = false;

  async signIn(clientId: string, clientSecret: string): Promise<void> {
    await this.api.signIn(clientId, clientSecret);
    await this.start();
  }

  /** resume takes up the tab's session after a reload, if it has one still valid. */
  async resume(): Promise<void> {
    if (!this.api.resume()) return;
    this.resuming = true;
    this.changed();
    try {
      await this.start();
    } catch {
      this.signOut(); // refused or unreachable: sign in again
    } finally {
      this.resuming = false;
      this.changed();
    }
  }

  private async start(): Promise<void> {
    this.expired = false;
    const me = await this.api.get<User>("/auth/me");
    this.user = me;
    const [markets, instruments, participants] = await Promise.all([
      this.api.get<Market[]>("/markets"),
      this.api.get<Instrument[]>("/instruments"),
      this.api.get<Participant[]>("/participants"),
    ]);
    this.markets = markets.filter((m) => m.is_enabled);
    this.instruments = instruments.sort((a, b) => a.maturity.localeCompare(b.maturity) || a.name.localeCompare(b.name));
    this.participant = participants.find((p) => p.id === me.participant_id) ?? null;
    this.names = new Map(participants.map((p) => [p.id, p.name]));
    for (const c of this.participant?.counterparties ?? []) this.names.set(c.id, c.name);
    await this.loadBuckets();
    this.clock = setInterval(() => {
      this.now = Date.now();
      this.changed();
    }, 1000);
    this.stream = new Stream(() => this.api.accessToken, {
      event: (nsp, type, record, meta) => this.onEvent(nsp, type, record, meta),
      reload: (nsp) => void this.reload(nsp),
      expired: () => this.expire(),
      status: (s) => {
        this.status = s;
        this.changed();
      },
    });
    for (const nsp of namespaces) {
      if (nsp === "/offers" && !this.user.participant_id) continue;
      this.stream.open(nsp);
    }
    if (this.user.participant_id) void this.loadRisk();
    this.changed();
  }

  signOut(): void {
    this.stream?.close();
    this.stream = null;
    this.api.signOut();
    if (this.clock) clearInterval(this.clock);
    this.user = null;
    this.participant = null;
    this.offers.clear();
    this.rfqs.clear();
    this.lists.clear();
    this.declined = new Set();
    this.trades.clear();
    this.allocations.clear();
    this.best.clear();
    this.depth.clear();
    this.indicative.clear();
    this.news = [];
    this.tape = [];
    this.risk = [];
    this.status = "offline";
    this.changed();
  }

  /** markDeclined shows a declined RFQ as such at once; the venue's decline record, read after a reload, keeps it so. */
  markDeclined(id: string): void {
    this.declined.add(id);
    this.changed();
  }

  private expire(): void {
    if (!this.user) return;
    this.signOut();
    this.expired = true;
    this.changed();
  }

  /** reload fetches a namespace's state by REST, buffering its live events meanwhile. */
  async reload(nsp: string): Promise<void> {
    if (this.loading.has(nsp)) return;
    this.loading.add(nsp);
    this.buffered.set(nsp, []);
    try {
      switch (nsp) {
        case "/offers": {
          const [offers, rfqs, lists] = await Promise.all([
            this.api.get<Offer[]>("/participant/offers" + query({ limit: 500 })),
            this.api.get<Offer[]>("/participant/rfq" + query({ limit: 500 })),
            this.api.get<PortfolioRFQ[]>("/participant/portfolio-rfq" + query({ limit: 100 })),
          ]);
          this.lists = new Map(lists.map((l) => [l.id, l]));
          this.offers = new Map(offers.filter((o) => o.type !== "request_for_quote").map((o) => [o.id, o]));
          this.rfqs = new Map(rfqs.map((o) => [o.id, o]));
          for (const r of rfqs) for (const q of r.matched_offers ?? []) if (q.participant_id === this.user?.participant_id) this.offers.set(q.id, q);
          // The list holds no quotes: the requests shown read theirs one by one.
          const mine = rfqs.filter((r) => r.participant_id === this.user?.participant_id);
          mine.sort((x, y) => y.createdAt.localeCompare(x.createdAt));
          await Promise.all(
            mine.slice(0, 30).map(async (r) => {
              const full = await this.api.get<Offer>(`/participant/rfq/${r.id}`).catch(() => null);
              if (full) this.rfqs.set(r.id, { ...r, matched_offers: full.matched_offers ?? [], declined_counterparties: full.declined_counterparties ?? [] });
            }),
          );
          break;
        }
        case "/trades": {
          const trades = await this.api.get<Trade[]>("/trades" + query({ limit: 500 }));
          this.trades = new Map(trades.map((t) => [t.id, t]));
          // The firm's allocations (the operator allocates nothing).
          if (!this.isOperator) {
            const allocs = await this.api.get<Allocation[]>("/allocations" + query({ limit: 500 }));
            this.allocations = new Map(allocs.map((a) => [a.trade_id, a]));
          }
          break;
        }
        case "/tape":
          this.tape = tapeOf(await this.api.get<TapePrint[]>("/tape" + query({ limit: 500 }))).prints;
          break;
        case "/instruments": {
          const best = new Map<string, Map<string, Best>>();
          // The trades before this moment: the tape and each book's last
          // trade (the price changes after are buffered meanwhile).
          const tape = tapeOf(await this.api.get<TapePrint[]>("/tape" + query({ limit: 500 })).catch(() => []));
          await Promise.all(
            this.markets.map(async (m) => {
              const list = await this.api.get<Instrument[]>("/instruments" + query({ market_id: m.id }));
              for (const i of list) {
                const per = best.get(i.id) ?? new Map<string, Best>();
                const prev = this.best.get(i.id)?.get(m.id);
                per.set(m.id, {
                  bid: i.instrument_limits.bid[0] ?? null,
                  ask: i.instrument_limits.ask[0] ?? null,
                  lastPrice: prev?.lastPrice ?? tape.last.get(i.id + "/" + m.id)?.price ?? null,
                  lastQuantity: prev?.lastQuantity ?? tape.last.get(i.id + "/" + m.id)?.quantity ?? null,
                });
                best.set(i.id, per);
              }
            }),
          );
          this.best = best;
          // The books shown level by level, reloaded in the same window:
          // their events meanwhile apply after.
          await Promise.all([...this.depth.keys()].map(async (id) => this.depth.set(id, await this.fetchDepth(id))));
          break;
        }
        case "/ohlc":
          this.chart?.reload();
          break;
        case "/news":
          this.news = await this.api.get<News[]>("/news" + query({ limit: 50 }));
          break;
        case "/indicative-prices": {
          const list = await this.api.get<IndicativePrice[]>("/participant/indicative-price" + query({ limit: 500 }));
          this.indicative = new Map(list.map((p) => [p.id, p]));
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) this.notify("error", `Could not load ${nsp.slice(1)}: ${(e as Error).message}`);
    } finally {
      this.loading.delete(nsp);
      const pending = this.buffered.get(nsp) ?? [];
      this.buffered.delete(nsp);
      for (const [type, record, meta] of pending) this.apply(type, record, meta);
      this.changed();
    }
  }

  private onEvent(nsp: string, type: string, record: unknown, meta: Meta): void {
    const buf = this.buffered.get(nsp);
    if (buf) {
      buf.push([type, record, meta]);
      return;
    }
    this.apply(type, record, meta);
    this.changed();
  }

  private apply(type: string, record: unknown, meta: Meta): void {
    const family = type.slice(0, type.indexOf("."));
    switch (family) {
      case "offer":
      case "quote": {
        const o = record as Offer;
        this.offers.set(o.id, o);
        if (o.type === "quote" && o.matched_offer_id) this.attachQuote(o);
        this.riskSoon();
        break;
      }
      case "rfq": {
        const r = record as Offer;
        const prev = this.rfqs.get(r.id);
        // Stream records are flat: keep the quotes and declines already known.
        this.rfqs.set(r.id, {
          ...r,
          matched_offers: r.matched_offers ?? prev?.matched_offers ?? [],
          declined_counterparties: r.declined_counterparties ?? prev?.declined_counterparties ?? [],
        });
        // A request addressed to the firm, as it happens (the inbox's sound follows it).
        if (type === "rfq.create" && !prev && r.participant_id !== this.user?.participant_id) this.rfqsArrived++;
        // A dealer declining changes an own RFQ without saying who: read which.
        if (type === "rfq.update" && r.participant_id === this.user?.participant_id && r.status === "created") void this.refreshRfq(r.id);
        break;
      }
      case "portfolio_rfq": {
        const l = record as PortfolioRFQ;
        const prev = this.lists.get(l.id);
        // An event older than what the list already shows (a reload's read) changes nothing.
        if (!prev || prev.updatedAt <= l.updatedAt) this.lists.set(l.id, l);
        if (type === "portfolio_rfq.create" && !prev && l.participant_id !== this.user?.participant_id) this.rfqsArrived++;
        break;
      }
      case "allocation": {
        const a = record as Allocation;
        this.allocations.set(a.trade_id, a);
        break;
      }
      case "tape":
        this.tape = withPrint(this.tape, record as TapePrint);
        break;
      case "trade": {
        const t = record as Trade;
        const known = this.trades.has(t.id);
        this.trades.set(t.id, t);
        // The firm's own fill, said as the desk says it (the blotter keeps the detail).
        if (type === "trade.create" && !known) {
          const line = tradeNotice(t, this.user?.participant_id, this.instrument(t.instrument_id ?? t.bid_order.instrument_id ?? ""));
          if (line) this.notify("info", line);
        }
        this.riskSoon();
        break;
      }
      case "instrument": {
        const id = (record as { instrument_id: string }).instrument_id;
        if (type === "instrument.depth") this.applyDepth(record as Depth);
        else if (type === "instrument.price_change")
          this.applyPriceChange(record as PriceChange & { trades?: { price: string | number; quantity: string | number }[] }, meta);
        // instrument.halt changes no price; the views that show the halt read it again.
        this.bookVersion.set(id, (this.bookVersion.get(id) ?? 0) + 1);
        break;
      }
      case "ohlc":
        this.chart?.bar(record as Bar);
        break;
      case "news": {
        const n = record as News;
        this.news = [n, ...this.news.filter((x) => x.id !== n.id)];
        if (type === "news.create") this.notify("info", "News: " + n.title);
        break;
      }
      case "indicative_price": {
        const p = record as IndicativePrice;
        if (type.endsWith(".delete")) this.indicative.delete(p.id);
        else this.indicative.set(p.id, p);
        break;
      }
    }
  }

  /** refreshRfq reads an own RFQ's quotes and declines (the stream's records carry neither); its status stays the stream's. */
  private async refreshRfq(id: string): Promise<void> {
    const full = await this.api.get<Offer>(`/participant/rfq/${id}`).catch(() => null);
    const cur = this.rfqs.get(id);
    if (!full || !cur) return;
    this.rfqs.set(id, { ...cur, matched_offers: full.matched_offers ?? cur.matched_offers, declined_counterparties: full.declined_counterparties ?? [] });
    this.changed();
  }

  private attachQuote(q: Offer): void {
    const r = this.rfqs.get(q.matched_offer_id!);
    if (!r) return;
    const quotes = (r.matched_offers ?? []).filter((x) => x.id !== q.id);
    this.rfqs.set(r.id, { ...r, matched_offers: [...quotes, q] });
  }

  private applyPriceChange(pc: PriceChange & { trades?: { price: string | number; quantity: string | number }[] }, meta: Meta): void {
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
      this.changed();
    } catch (e) {
      this.depth.delete(instrumentId);
      if (!(e instanceof ApiError && e.status === 401)) this.notify("error", `Could not load the depth: ${(e as Error).message}`);
    }
  }

  /** fetchDepth reads an instrument's books by REST, per market. */
  private async fetchDepth(instrumentId: string): Promise<Map<string, Ladder>> {
    const ins = await this.api.get<Instrument>(`/instruments/${instrumentId}` + query({ market_depth: 0 }));
    const out = new Map<string, Ladder>(this.markets.map((m) => [m.id, { bid: [], ask: [] }]));
    for (const side of ["bid", "ask"] as const) {
      for (const l of ins.instrument_limits[side]) {
        const ladder = out.get(l.market_id ?? "");
        if (ladder && ladder[side].length < depthLevels) ladder[side].push(l);
      }
    }
    return out;
  }

  /** loadBuckets reads the buckets again: they have no stream, so views that filter by them call it when shown. */
  async loadBuckets(): Promise<void> {
    try {
      this.buckets = await this.api.get<Bucket[]>("/participant/buckets");
      this.changed();
    } catch {
      /* the last list stays */
    }
  }

  private riskSoon(): void {
    if (!this.user?.participant_id || this.riskTimer) return;
    this.riskTimer = setTimeout(() => {
      this.riskTimer = null;
      void this.loadRisk();
    }, 150);
  }

  async loadRisk(): Promise<void> {
    try {
      this.risk = await this.api.get<RiskLimit[]>("/participant/risk-limits");
      this.changed();
    } catch {
      /* shown as stale; the next event retries */
    }
  }

  private yields = new Map<string, string | null>();

  /**
   * yieldAt is the yield to maturity of an instrument at a clean price,
   * settling on settlement (the default date when not given), fetched once
   * and cached: undefined while asked, null when there is none.
   */
  yieldAt(instrumentId: string, price: string | number | null | undefined, settlement?: string | null): string | null | undefined {
    if (price === null || price === undefined) return null;
    const on = settlement ? settlement.slice(0, 10) : "";
    const key = instrumentId + "@" + String(price) + "/" + on;
    if (this.yields.has(key)) return this.yields.get(key);
    this.yields.set(key, null); // in flight: asked once
    void this.api
      .get<{ yield: string }>(`/instruments/${instrumentId}/analytics` + query({ price: String(price), settlement_date: on || undefined }))
      .then((a) => {
        this.yields.set(key, a.yield);
        this.changed();
      })
      .catch(() => this.yields.set(key, null));
    return undefined;
  }

  instrument(id: string): Instrument | undefined {
    return this.instruments.find((i) => i.id === id);
  }

  market(id: string): Market | undefined {
    return this.markets.find((m) => m.id === id);
  }

  get continuousMarkets(): Market[] {
    return this.markets.filter((m) => m.facility_type !== "OTC");
  }

  get rfqMarkets(): Market[] {
    return this.markets.filter((m) => m.facility_type === "OTC");
  }

  /** bestOf is an instrument's best bid and ask over the given markets (all continuous when none). */
  bestOf(instrumentId: string, marketId?: string): Best {
    const per = this.best.get(instrumentId);
    const out: Best = { bid: null, ask: null, lastPrice: null, lastQuantity: null };
    if (!per) return out;
    for (const [mid, b] of per) {
      if (marketId ? mid !== marketId : this.market(mid)?.facility_type === "OTC") continue;
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
      if (p.valid_until && new Date(p.valid_until).getTime() < this.now) continue;
      if (p.bid_price !== null && (!bid || cmpNum(p.bid_price, bid.bid_price) > 0)) bid = p;
      if (p.ask_price !== null && (!ask || cmpNum(p.ask_price, ask.ask_price) < 0)) ask = p;
    }
    return { bid, ask };
  }

  counterpartyName(id: string | null | undefined): string {
    return participantName(id, this.names);
  }
}

/** cmpNum compares two decimal values exactly; unparsable values sort last. */
export function cmpNum(a: string | number | null | undefined, b: string | number | null | undefined): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  const d: Dec = sub(x, y);
  return d.c < 0n ? -1 : d.c > 0n ? 1 : 0;
}

/** sumOf adds decimal values exactly. */
export function sumOf(values: (string | number)[]): Dec {
  return values.reduce<Dec>((acc, v) => add(acc, parse(v) ?? dec(0)), dec(0));
}
