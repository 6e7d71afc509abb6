// The screen's state: REST snapshots kept current by the stream. Every
// record event carries the whole record, so applying it is an upsert; a
// namespace being reloaded by REST buffers its events and applies them
// after the snapshot, in order, so the result is never older than either.
//
// The Venue is the session: who is signed in, the markets and instruments
// read at sign-in, the stream, the notices. It holds a small store per
// concern (books, orders, deals, news), routes each namespace's reload
// and each event to the store it belongs to, and renders once for any
// number of changes in a frame.
import { Api, ApiError, nameIds, query } from "../client/api";
import { Stream, type StreamStatus } from "../client/stream";
import { type MarketPhase, withPhase } from "../model/phase";
import type {
  Account, Allocation, Bar, Bucket, IndicativePrice, Instrument, KillSwitch, Market, Meta, News, Offer, Participant, PortfolioRFQ, Trade, User,
} from "../client/types";
import { type TapePrint, participantName } from "../model/trades";
import { Books } from "./books";
import { Deals } from "./deals";
import type { Host } from "./host";
import { NewsFeed } from "./news";
import { Orders } from "./orders";
import { type OrderParties, loadParties, saveParties } from "./parties";
import { type Pref, browserPrefs, loadPref, savePref } from "./prefs";
import { PositionBook } from "../positions/positions";

export interface Notice {
  id: number;
  kind: "info" | "error";
  text: string;
}

type Listener = () => void;

const namespaces = ["/offers", "/trades", "/instruments", "/news", "/indicative-prices", "/tape"] as const;

export class Venue implements Host {
  readonly api = new Api();
  stream: Stream | null = null;
  status: StreamStatus = "offline";
  user: User | null = null;
  participant: Participant | null = null;
  /** names of the participants the caller may read (all of them for the operator), by id. */
  names = new Map<string, string>();
  expired = false;
  /** resuming is set while a reload takes up the tab's session. */
  resuming = false;

  markets: Market[] = [];
  instruments: Instrument[] = [];
  buckets: Bucket[] = [];
  notices: Notice[] = [];
  now = Date.now();
  /** rfqsArrived counts the RFQs and lists addressed to the firm that the stream brought live this session (the inbox's sound follows it). */
  rfqsArrived = 0;
  /** chart receives /ohlc bars and reloads for the instrument page's chart. */
  chart: { bar(b: Bar): void; reload(): void } | null = null;

  readonly books = new Books(this);
  readonly orders = new Orders(this);
  readonly deals = new Deals(this);
  readonly news = new NewsFeed(this);
  readonly positions = new PositionBook(this);

  private listeners = new Set<Listener>();
  private scheduled = false;
  private loading = new Set<string>();
  private buffered = new Map<string, [string, unknown][]>();
  private noticeSeq = 0;
  private clock: ReturnType<typeof setInterval> | null = null;
  private yields = new Map<string, string | null>();

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

  counterpartyName(id: string | null | undefined): string {
    return participantName(id, this.names);
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

  /** pref is the signed-in user's choice (off unless chosen), kept in localStorage. */
  pref(name: Pref): boolean {
    return loadPref(browserPrefs(), this.user?.id ?? "", name);
  }

  setPref(name: Pref, on: boolean): void {
    savePref(browserPrefs(), this.user?.id ?? "", name, on);
    this.changed();
  }

  /** parties are the signed-in user's own identifiers for the order records, sent with every order the screen enters. */
  get parties(): OrderParties {
    return loadParties(browserPrefs(), this.user?.id ?? "");
  }

  setParties(p: OrderParties): void {
    saveParties(browserPrefs(), this.user?.id ?? "", p);
    this.changed();
  }

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
    // The operator follows /offers too: every RFQ and list on the venue
    // (its RFQ and Lists tabs), not the firms' offers.
    for (const nsp of namespaces) this.stream.open(nsp);
    if (this.user.participant_id) void this.deals.loadRisk();
    void this.positions.load();
    this.changed();
  }

  signOut(): void {
    this.stream?.close();
    this.stream = null;
    this.api.signOut();
    if (this.clock) clearInterval(this.clock);
    this.user = null;
    this.participant = null;
    this.orders.clear();
    this.deals.clear();
    this.books.clear();
    this.news.clear();
    this.positions.clear();
    this.status = "offline";
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
        case "/offers":
          await this.orders.load();
          break;
        case "/trades":
          await this.deals.load();
          this.positions.soon();
          break;
        case "/tape":
          await this.books.loadTape();
          break;
        case "/instruments":
          await this.books.load();
          break;
        case "/ohlc":
          this.chart?.reload();
          break;
        case "/news":
          await this.news.load();
          break;
        case "/indicative-prices":
          await this.books.loadIndicative();
          break;
      }
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) this.notify("error", `Could not load ${nsp.slice(1)}: ${(e as Error).message}`);
    } finally {
      this.loading.delete(nsp);
      const pending = this.buffered.get(nsp) ?? [];
      this.buffered.delete(nsp);
      for (const [type, record] of pending) this.apply(type, record);
      this.changed();
    }
  }

  private onEvent(nsp: string, type: string, record: unknown, _meta: Meta): void {
    const buf = this.buffered.get(nsp);
    if (buf) {
      buf.push([type, record]);
      return;
    }
    this.apply(type, record);
    this.changed();
  }

  /** apply hands an event's record to the store of its family. */
  private apply(type: string, record: unknown): void {
    switch (type.slice(0, type.indexOf("."))) {
      case "offer":
      case "quote":
        this.orders.applyOffer(record as Offer);
        if (!this.isOperator) this.deals.riskSoon();
        break;
      case "rfq":
        if (this.orders.applyRfq(type, record as Offer)) this.rfqsArrived++;
        break;
      case "portfolio_rfq":
        if (this.orders.applyList(type, record as PortfolioRFQ)) this.rfqsArrived++;
        break;
      case "allocation":
        this.deals.applyAllocation(record as Allocation);
        this.positions.soon(); // the parts move the position to their accounts
        break;
      case "tape":
        this.books.applyTape(record as TapePrint);
        break;
      case "trade":
        this.deals.applyTrade(type, record as Trade);
        this.positions.onTrade(record as Trade);
        break;
      case "instrument":
        this.books.applyInstrument(type, record);
        if (type === "instrument.price_change") {
          const pc = record as { instrument_id: string; last_price?: string | number | null };
          this.positions.onLastPrice(pc.instrument_id, pc.last_price);
        }
        break;
      case "ohlc":
        this.chart?.bar(record as Bar);
        break;
      case "news":
        this.news.apply(type, record as News);
        break;
      case "indicative_price":
        this.books.applyIndicative(type, record as IndicativePrice);
        break;
      case "participant":
        if (type === "participant.kill_switch") this.killSwitch(record as KillSwitch);
        break;
      case "market":
        // A market with trading hours opened, closed or entered its pre-open: the tickets say so.
        if (type === "market.phase") this.markets = this.markets.map((m) => withPhase(m, record as MarketPhase));
        break;
    }
  }

  /** killSwitch tells the firm's users why their orders went (its kill switch cancelled them), and when they may trade again. */
  private killSwitch(k: KillSwitch): void {
    if (!this.user?.participant_id || k.participant_id !== this.user.participant_id) return;
    const n = k.cancelled === 1 ? "1 open order" : `${k.cancelled} open orders`;
    if (k.enabled) this.notify("error", `Your firm's kill switch is on: ${n} cancelled, and new orders are refused until it is off`);
    else this.notify("info", "Your firm's kill switch is off: you may trade again");
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
}
