// The records of the REST API and the stream, as far as the screen reads
// them. Numbers that are money or quantity stay as the API sends them
// (decimal text or exact JSON numbers) and go through decimal.ts.

export type Num = string | number;

export type Role = "VENUE_OPERATOR" | "PARTICIPANT_ADMIN" | "PARTICIPANT_TRADER" | "PARTICIPANT_VIEWER";

export interface Account {
  id: string;
  number: string;
  participant_id: string;
  default_settlement_provider_id?: string | null;
}

export interface Counterparty {
  id: string;
  lei: string;
  name: string;
  country?: string;
}

export interface User {
  id: string;
  email: string;
  role: Role;
  status: string;
  participant_id: string | null;
  accounts?: Account[];
  participant?: { id: string; name: string; lei: string } | null;
}

export interface Participant {
  id: string;
  name: string;
  lei: string;
  accounts?: Account[];
  users?: User[];
  counterparties?: Counterparty[];
}

export interface Market {
  id: string;
  name: string;
  facility_type: string;
  is_enabled: boolean;
  is_partial_fill_allowed: boolean;
  settlement_lag: number;
  /** Changes of the lag from a trade date on (EU T+1). */
  settlement_lags?: { from: string; lag: number }[];
  calendar: string;
  type?: string;
  /** The market's time zone (IANA): its business day, so its trades' trade date. */
  timezone?: string;
  /** The market's daily session in its time zone; null: around the clock. */
  trading_hours?: { open: string; close: string; pre_open_minutes: number } | null;
  /** The market's phase now: pre-open, continuous, closed. */
  trading_phase?: string;
  /** The market's next change of phase (none without hours). */
  next_phase_change?: { phase: string; at: string } | null;
  /** The price collar: a price more than this percent from the reference is refused. */
  price_collar_percent?: string;
  /** The absolute band: a price more than this percent from par is refused. */
  max_price_percent?: string;
  updatedAt?: string;
}

/** KillSwitch is a firm's kill switch (GET/PUT /participant/kill-switch). */
export interface KillSwitch {
  participant_id: string;
  enabled: boolean;
  cancelled: number;
  updatedAt: string | null;
}

/** PriceCollar is GET /instruments/{id}/price-collar: the band of prices a market takes now. */
export interface PriceCollar {
  instrument_id: string;
  market_id: string;
  reference_price: Num | null;
  reference_source: string | null;
  price_collar_percent: string;
  max_price_percent: string;
  low: Num | null;
  high: Num;
  halted: boolean;
  halt_reason: string | null;
}

export interface Limit {
  limit: Num;
  quantity: Num;
  participant_id: string | null;
  participant_name: string | null;
  participant_lei?: string | null;
  offer_id: string | null;
  market_id?: string;
  is_counterparty_enabled: boolean;
  is_executable?: boolean;
  is_market_order?: boolean;
  is_offer?: boolean;
}

export interface Instrument {
  id: string;
  name: string;
  isin: string;
  issuer: string;
  coupon: string;
  coupon_frequency: string;
  day_count: string;
  maturity: string;
  currency: string;
  industry: string;
  country_region: string;
  rank: string;
  precision: number;
  min_piece: Num;
  min_increment: Num;
  par_amount: Num;
  interest_accrual_date: string;
  first_coupon_date: string;
  amt_outstanding: string;
  instrument_limits: { ask: Limit[]; bid: Limit[] };
  static_data?: Record<string, string | boolean>;
  markets?: Market[];
}

export interface Bucket {
  id: string;
  name: string;
  type: string;
  participant_id: string | null;
  is_enabled: boolean;
  instruments: { id: string; name?: string }[];
}

export interface Offer {
  id: string;
  type: "offer" | "request_for_quote" | "quote";
  direction: string;
  status: string;
  price_per_unit: Num | { limit_price: Num } | null;
  price_per_unit_clean?: Num | null;
  quantity: Num;
  filled_quantity: Num;
  validity: string;
  valid_until: string | null;
  settlement_date: string | null;
  matched_offer_id?: string | null;
  matched_offers?: Offer[];
  counterparties?: string[];
  /** declined_counterparties: the dealers that declined an RFQ (the requester's GET /participant/rfq/{id} only). */
  declined_counterparties?: string[];
  /** outcome: how a quote ended (done, cover, tied, done_away, passed, declined, withdrawn, expired, cancelled); null while open. */
  outcome?: string | null;
  /** cover_price: on the done quote, the best other quote's price (its dealer and the requester only). */
  cover_price?: Num | null;
  participant_id: string;
  account_id: string;
  market_id: string;
  instrument_id: string;
  user_id: string;
  accrued_interest?: string;
  message?: string | null;
  notes?: string;
  is_executable?: boolean;
  participant?: { id: string; name: string } | null;
  instrument?: { id: string; name: string; isin: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface Order {
  id: string;
  direction: string;
  participant_id: string;
  account_id: string;
  offer_id: string;
  instrument_id?: string;
  participant?: { id: string; name: string } | null;
}

export interface Trade {
  id: string;
  transaction_identification_code: string;
  ask_order: Order;
  bid_order: Order;
  market_id: string;
  quantity: Num;
  price: Num;
  price_per_unit: Num;
  fee: Num;
  accrued_interest?: Num;
  settlement_date: string;
  execution_type: string;
  createdAt: string;
  instrument_id?: string;
  /** publication is when the public tape shows the trade. */
  publication?: Publication;
}

/** Publication is a trade's post-trade transparency: when its price and size are due on the public tape, and when published. */
export interface Publication {
  deferral: string;
  price_due_at: string;
  volume_due_at: string;
  published_price_at: string | null;
  published_volume_at: string | null;
}

/** Allocation is the firm's split of its side of a trade to its accounts. */
export interface Allocation {
  trade_id: string;
  participant_id: string;
  direction: string;
  late: boolean;
  createdAt: string;
  allocations: { id: string; account_id: string; quantity: Num; accrued_interest: Num; price: Num; late: boolean }[];
}

export interface RiskLimit {
  id: string;
  name: string;
  value: Num;
  used: Num;
}

export interface News {
  id: string;
  title: string;
  body: string;
  source: string;
  url: string | null;
  published_at: string;
}

export interface IndicativePrice {
  id: string;
  instrument_id: string;
  participant_id?: string;
  participant_name?: string;
  bid_price: Num | null;
  ask_price: Num | null;
  bid_yield?: Num | null;
  ask_yield?: Num | null;
  valid_until?: string | null;
  updatedAt?: string;
}

export interface SettlementProvider {
  id: string;
  provider: string;
  status: string;
  type: string;
  enabled: boolean;
  account_id: string;
  agent_name: string;
  custody_account_number: string;
}

/** LastTrade is a book's latest trade (GET /last-trades), in price_change's field names. */
export interface LastTrade {
  instrument_id: string;
  market_id: string;
  last_price: string | number;
  last_quantity: string | number;
  occurred_at: string;
}

export interface PriceChange {
  instrument_id: string;
  market_id: string;
  bid: Limit | null;
  ask: Limit | null;
  last_price: Num | null;
  last_quantity: Num | null;
  occurred_at: string;
}

/** Depth is an instrument.depth record: the top levels of a book on one market. */
export interface Depth {
  instrument_id: string;
  market_id: string;
  bid: Limit[];
  ask: Limit[];
  occurred_at: string;
}

export interface Bar {
  instrument_id: string;
  market_id: string;
  interval: string;
  open_time: string;
  open: Num;
  high: Num;
  low: Num;
  close: Num;
  volume: Num;
  trades: number;
}

export interface Analytics {
  clean_price: string;
  dirty_price: string;
  yield: string;
  accrued_interest: string;
  accrued_interest_per_100: string;
  accrued_days: number;
  settlement_date: string;
  previous_coupon_date: string;
  next_coupon_date: string;
}

export interface Meta {
  seq: number;
  type: string;
  occurred_at: string;
}

/** A portfolio (list) RFQ as the caller may see it: a dealer sees only its own quotes. */
export interface PortfolioRFQ {
  id: string;
  market_id: string;
  participant_id: string;
  counterparties: string[];
  settlement_date: string;
  valid_until: string;
  status: string;
  notes: string;
  lines: PortfolioLine[];
  quotes: PortfolioQuote[];
  createdAt: string;
  updatedAt: string;
}

export interface PortfolioLine {
  line_id: string;
  instrument_id: string;
  /** The requester's side of the line. */
  direction: string;
  quantity: Num;
  trade_id: string | null;
}

export interface PortfolioQuote {
  id: string;
  portfolio_rfq_id: string;
  participant_id: string;
  lines: { line_id: string; price_per_unit: Num; accrued_interest: string; settlement_amount: string }[];
  /** The requester's net proceeds (null on a decline). */
  net_proceeds: string | null;
  valid_until: string | null;
  status: string;
  outcome: string | null;
  cover_net_proceeds: string | null;
  createdAt: string;
  updatedAt: string;
}

/** ParticipantRecord is a participant as the operator reads it (GET /participants), with what is nested in it. */
export interface ParticipantRecord extends Participant {
  type?: string;
  country?: string;
  status?: string;
  kyc_status?: string;
  risk_limits?: RiskLimit[];
}

/** Credential is a user's client id; client_secret only in the answer that issues it. */
export interface Credential {
  client_id: string;
  client_secret?: string;
  user_id: string;
  createdAt: string;
  revoked_at: string | null;
}

/** AuditEntry is one entry of the audit trail (GET /admin/audit-log): who changed what, when and why. */
export interface AuditEntry {
  seq: number;
  at: string;
  user_id: string;
  role: string;
  channel: string;
  action: string;
  entity_type: string;
  entity_id: string;
  before: unknown;
  after: unknown;
  reason: string;
  prev_hash: string;
  hash: string;
}

/** Halt is an instrument's halt on one market (PUT /admin/markets/{m}/instruments/{i}/halt). */
export interface Halt {
  market_id: string;
  instrument_id: string;
  halted: boolean;
  reason: string;
  updatedAt: string;
}

/** ReplayedBook is a book rebuilt from the order records at an instant. */
export interface ReplayedBook {
  market_id: string;
  instrument_id: string;
  at: string;
  records: number;
  last_sequence_number: number;
  bids: RestingRecord[];
  asks: RestingRecord[];
}

export interface RestingRecord {
  order_id: string;
  participant_id: string;
  price: string;
  remaining_quantity: string;
  priority_time: string;
}

/** DeferralTable is the post-trade transparency table the venue runs with, as the audit trail records it. */
export interface DeferralTable {
  name: string;
  classes: { class: string; industries?: string[]; min_amt_issue?: string; about?: string }[];
  bands: { id: string; class: string; from: string; price: string; volume: string }[];
}

/** MarketMark is the market around an RFQ at one moment (the best prices of the continuous books, the indicative mid). */
export interface MarketMark {
  best_bid: Num | null;
  best_ask: Num | null;
  indicative_mid: Num | null;
  at: string;
}

/** ExecutionRecord is an RFQ's best-execution record (GET /participant/rfq/{id}/execution-record). */
export interface ExecutionRecord {
  rfq_id: string;
  instrument_id: string;
  isin: string;
  instrument_name: string;
  currency: string;
  direction: string;
  quantity: Num;
  settlement_date: string | null;
  status: string;
  sent_at: string;
  accepted_at: string | null;
  market_at_sent: MarketMark | null;
  market_at_accept: MarketMark | null;
  done_quote_id: string | null;
  done_price: Num | null;
  cover_price: Num | null;
  saving_vs_cover: Num | null;
  saving_vs_cover_amount: Num | null;
  dealers: {
    participant_id: string;
    name: string;
    invited_at: string;
    responded_at: string | null;
    response_time_us: number | null;
    declined: boolean;
    outcome: string | null;
    quotes: { quote_id: string; price: Num | null; yield: Num | null; status: string; outcome: string | null; quoted_at: string; ended_at: string | null }[];
  }[];
}
