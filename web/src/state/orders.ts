// The firm's own orders and requests: its offers and quotes, the RFQs it
// sent or received, its portfolio lists, and the RFQs declined from this
// tab.
import { query } from "../client/api";
import type { Offer, PortfolioRFQ } from "../client/types";
import { awaitingListAnswer, awaitingQuote } from "../model/rfq";
import type { Host } from "./host";

export class Orders {
  offers = new Map<string, Offer>(); // own offers and quotes
  rfqs = new Map<string, Offer>(); // RFQs sent or received
  /** lists are the portfolio RFQs sent or received, as the firm may see them. */
  lists = new Map<string, PortfolioRFQ>();
  /** declined holds the RFQs declined from this tab until the venue's decline record (a quote without price) arrives. */
  declined = new Set<string>();

  constructor(private readonly host: Host) {}

  private get mine(): string | null | undefined {
    return this.host.user?.participant_id;
  }

  /** inbox is how many RFQs addressed to the firm wait for its quote. */
  get inbox(): number {
    return awaitingQuote(this.rfqs.values(), this.offers.values(), this.mine, this.declined, this.host.now);
  }

  /** listInbox is how many lists addressed to the firm wait for its answer. */
  get listInbox(): number {
    return awaitingListAnswer(this.lists.values(), this.mine, this.host.now);
  }

  /** load reads the firm's offers, RFQs and lists (/offers). */
  async load(): Promise<void> {
    const { api } = this.host;
    // The operator reads the venue's requests and lists, not every firm's offers.
    const [offers, rfqs, lists] = await Promise.all([
      this.host.isOperator ? Promise.resolve([] as Offer[]) : api.get<Offer[]>("/participant/offers" + query({ limit: 500 })),
      api.get<Offer[]>("/participant/rfq" + query({ limit: 500 })),
      api.get<PortfolioRFQ[]>("/participant/portfolio-rfq" + query({ limit: 100 })),
    ]);
    this.lists = new Map(lists.map((l) => [l.id, l]));
    this.offers = new Map(offers.filter((o) => o.type !== "request_for_quote").map((o) => [o.id, o]));
    this.rfqs = new Map(rfqs.map((o) => [o.id, o]));
    for (const r of rfqs) for (const q of r.matched_offers ?? []) if (q.participant_id === this.mine) this.offers.set(q.id, q);
    // The list holds no quotes: the requests shown read theirs one by one.
    const mine = rfqs.filter((r) => r.participant_id === this.mine);
    mine.sort((x, y) => y.createdAt.localeCompare(x.createdAt));
    await Promise.all(
      mine.slice(0, 30).map(async (r) => {
        const full = await api.get<Offer>(`/participant/rfq/${r.id}`).catch(() => null);
        if (full) this.rfqs.set(r.id, { ...r, matched_offers: full.matched_offers ?? [], declined_counterparties: full.declined_counterparties ?? [] });
      }),
    );
  }

  /** applyOffer applies an offer.* or quote.* event; a quote joins its RFQ. */
  applyOffer(o: Offer): void {
    if (this.host.isOperator) {
      // The operator follows the requests and their quotes, not the firms' offers.
      if (o.type === "quote" && o.matched_offer_id) this.attachQuote(o);
      return;
    }
    this.offers.set(o.id, o);
    if (o.type === "quote" && o.matched_offer_id) this.attachQuote(o);
  }

  /** applyRfq applies an rfq.* event; true when it is a request addressed to the firm, arriving live. */
  applyRfq(type: string, r: Offer): boolean {
    const prev = this.rfqs.get(r.id);
    // Stream records are flat: keep the quotes and declines already known.
    this.rfqs.set(r.id, {
      ...r,
      matched_offers: r.matched_offers ?? prev?.matched_offers ?? [],
      declined_counterparties: r.declined_counterparties ?? prev?.declined_counterparties ?? [],
    });
    // A dealer declining changes an own RFQ without saying who: read which.
    if (type === "rfq.update" && r.participant_id === this.mine && r.status === "created") void this.refreshRfq(r.id);
    return type === "rfq.create" && !prev && r.participant_id !== this.mine && !this.host.isOperator;
  }

  /** applyList applies a portfolio_rfq.* event; true when it is a list addressed to the firm, arriving live. */
  applyList(type: string, l: PortfolioRFQ): boolean {
    const prev = this.lists.get(l.id);
    // An event older than what the list already shows (a reload's read) changes nothing.
    if (!prev || prev.updatedAt <= l.updatedAt) this.lists.set(l.id, l);
    return type === "portfolio_rfq.create" && !prev && l.participant_id !== this.mine && !this.host.isOperator;
  }

  /** markDeclined shows a declined RFQ as such at once; the venue's decline record, read after a reload, keeps it so. */
  markDeclined(id: string): void {
    this.declined.add(id);
    this.host.changed();
  }

  /** refreshRfq reads an own RFQ's quotes and declines (the stream's records carry neither); its status stays the stream's. */
  private async refreshRfq(id: string): Promise<void> {
    const full = await this.host.api.get<Offer>(`/participant/rfq/${id}`).catch(() => null);
    const cur = this.rfqs.get(id);
    if (!full || !cur) return;
    this.rfqs.set(id, { ...cur, matched_offers: full.matched_offers ?? cur.matched_offers, declined_counterparties: full.declined_counterparties ?? [] });
    this.host.changed();
  }

  private attachQuote(q: Offer): void {
    const r = this.rfqs.get(q.matched_offer_id!);
    if (!r) return;
    const quotes = (r.matched_offers ?? []).filter((x) => x.id !== q.id);
    this.rfqs.set(r.id, { ...r, matched_offers: [...quotes, q] });
  }

  /** clear forgets the firm's orders at sign-out. */
  clear(): void {
    this.offers.clear();
    this.rfqs.clear();
    this.lists.clear();
    this.declined = new Set();
  }
}
