package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is the event log's format: how each record is kept in an
// event's data, and read back. It is a stored format, so it changes only
// in ways that still read what is stored; it is not the REST interface's,
// which adapters render from the typed records. (It began as the REST
// record, and its keys are still those, so every event ever written reads
// back the same.)
//
// It stays apart from internal/wire on purpose: wire's shapes follow the
// API and may change with it, while a log written years ago must still
// read. So logOffer, logTrade, logOrder, logIndicative and logNews repeat
// wire's records field by field rather than embed them, and
// TestEventLogFollowsWire (log_wire_test.go) fails when the two drift:
// a field added to either side must be given its stored form here, or be
// listed there as derived when the event is read (or as kept by the log
// only), with the reason.

// logNum is a decimal as the log keeps it: a JSON number written from the
// exact decimal's digits (a JSON string of digits also reads).
type logNum = json.Number

func toLogNum(d udecimal.Decimal) logNum { return logNum(d.String()) }

func toLogNumPtr(d *udecimal.Decimal) *logNum {
	if d == nil {
		return nil
	}
	n := toLogNum(*d)
	return &n
}

func fromLogNum(n logNum) (udecimal.Decimal, error) {
	if n == "" {
		return udecimal.Zero, nil
	}
	return udecimal.Parse(string(n))
}

func fromLogNumPtr(n *logNum) (*udecimal.Decimal, error) {
	if n == nil {
		return nil, nil
	}
	d, err := fromLogNum(*n)
	return &d, err
}

func toLogTime(t time.Time) string { return t.UTC().Format(venue.TimestampLayout) }

func toLogTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := toLogTime(*t)
	return &s
}

func fromLogTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

func fromLogTimePtr(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := fromLogTime(*s)
	return &t, err
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// logDecoder collects the first error of a record's fields.
type logDecoder struct{ err error }

func (d *logDecoder) num(n logNum) udecimal.Decimal {
	v, err := fromLogNum(n)
	d.keep(err)
	return v
}

func (d *logDecoder) numPtr(n *logNum) *udecimal.Decimal {
	v, err := fromLogNumPtr(n)
	d.keep(err)
	return v
}

func (d *logDecoder) text(s string) udecimal.Decimal {
	if s == "" {
		return udecimal.Zero
	}
	v, err := udecimal.Parse(s)
	d.keep(err)
	return v
}

func (d *logDecoder) time(s string) time.Time {
	v, err := fromLogTime(s)
	d.keep(err)
	return v
}

func (d *logDecoder) timePtr(s *string) *time.Time {
	v, err := fromLogTimePtr(s)
	d.keep(err)
	return v
}

func (d *logDecoder) date(s *string) bondmath.Date {
	if s == nil || *s == "" {
		return bondmath.Date{}
	}
	v, err := bondmath.ParseDate(*s)
	d.keep(err)
	return v
}

func (d *logDecoder) keep(err error) {
	if d.err == nil {
		d.err = err
	}
}

// logOffer is an offer, quote or RFQ as an event keeps it: wire.Offer's
// fields under the same keys, less those derived at read time, plus the
// owner's ClOrdID and the book's state after the batch.
type logOffer struct {
	ID                   string   `json:"id"`
	Type                 string   `json:"type"`
	Direction            string   `json:"direction"`
	Price                *logNum  `json:"price"`
	Quantity             logNum   `json:"quantity"`
	FilledQuantity       logNum   `json:"filled_quantity"`
	Status               string   `json:"status"`
	MatchedOfferID       *string  `json:"matched_offer_id"`
	Notes                string   `json:"notes"`
	MarketOrder          bool     `json:"market_order"`
	IsExecutable         bool     `json:"is_executable"`
	SettlementDate       *string  `json:"settlement_date"`
	Validity             string   `json:"validity"`
	ValidUntil           *string  `json:"valid_until"`
	ParticipantID        string   `json:"participant_id"`
	AccountID            string   `json:"account_id"`
	MarketID             string   `json:"market_id"`
	InstrumentID         string   `json:"instrument_id"`
	UserID               string   `json:"user_id"`
	SettlementProviderID *string  `json:"settlement_provider_id"`
	Counterparties       []string `json:"counterparties,omitempty"`
	ClientOrderID        string   `json:"client_order_id,omitempty"`
	Outcome              *string  `json:"outcome"`
	CoverPrice           *logNum  `json:"cover_price"`
	ClientIDCode         string   `json:"client_id_code,omitempty"`
	InvestmentDecisionID string   `json:"investment_decision_id,omitempty"`
	ExecutionDecisionID  string   `json:"execution_decision_id,omitempty"`
	TradingCapacity      string   `json:"trading_capacity,omitempty"`
	AccruedInterest      string   `json:"accrued_interest"`
	Message              *string  `json:"message"`
	ModifiedAt           string   `json:"modified_at"`
	CreatedAt            string   `json:"createdAt"`
	UpdatedAt            string   `json:"updatedAt"`
	// Moved is the book's top after the batch (Event.Moved).
	Moved *logPriceChange `json:"price_change,omitempty"`
	// Depth is the book's ladder after the batch (Event.Ladder).
	Depth *logDepth `json:"depth,omitempty"`
}

func toLogOffer(o *venue.Offer) logOffer {
	out := logOffer{ID: o.ID, Type: o.Type, Direction: o.Direction, Quantity: toLogNum(o.Quantity),
		FilledQuantity: toLogNum(o.Filled), Status: o.Status, MatchedOfferID: orNull(o.MatchedOfferID), Notes: o.Notes,
		MarketOrder: o.MarketOrder, IsExecutable: o.IsExecutable, Validity: o.Validity, ValidUntil: toLogTimePtr(o.ValidUntil),
		ParticipantID: o.ParticipantID, AccountID: o.AccountID, MarketID: o.MarketID, InstrumentID: o.InstrumentID,
		UserID: o.UserID, SettlementProviderID: orNull(o.SettlementProviderID), AccruedInterest: o.AccruedInterest.String(),
		Message: orNull(o.Message), ModifiedAt: toLogTime(o.ModifiedAt), CreatedAt: toLogTime(o.CreatedAt),
		UpdatedAt: toLogTime(o.UpdatedAt), ClientOrderID: o.ClientOrderID, Outcome: orNull(o.Outcome),
		ClientIDCode: o.Parties.ClientID, InvestmentDecisionID: o.Parties.InvestmentDecision,
		ExecutionDecisionID: o.Parties.ExecutionDecision, TradingCapacity: o.Parties.Capacity}
	if o.HasPrice {
		out.Price = toLogNumPtr(&o.Price)
	}
	if o.HasCover {
		out.CoverPrice = toLogNumPtr(&o.CoverPrice)
	}
	if !o.SettlementDate.IsZero() {
		out.SettlementDate = orNull(o.SettlementDate.String())
	}
	if o.Type == venue.TypeRFQ {
		out.Counterparties = o.Counterparties
	}
	return out
}

func (l *logOffer) offer(d *logDecoder) *venue.Offer {
	o := &venue.Offer{ID: l.ID, Type: l.Type, Direction: l.Direction, Quantity: d.num(l.Quantity),
		Filled: d.num(l.FilledQuantity), Status: l.Status, MatchedOfferID: orEmpty(l.MatchedOfferID), Notes: l.Notes,
		MarketOrder: l.MarketOrder, IsExecutable: l.IsExecutable, SettlementDate: d.date(l.SettlementDate),
		Validity: l.Validity, ValidUntil: d.timePtr(l.ValidUntil), ParticipantID: l.ParticipantID, AccountID: l.AccountID,
		MarketID: l.MarketID, InstrumentID: l.InstrumentID, UserID: l.UserID,
		SettlementProviderID: orEmpty(l.SettlementProviderID), AccruedInterest: d.text(l.AccruedInterest),
		Message: orEmpty(l.Message), Counterparties: l.Counterparties, ModifiedAt: d.time(l.ModifiedAt),
		CreatedAt: d.time(l.CreatedAt), UpdatedAt: d.time(l.UpdatedAt), ClientOrderID: l.ClientOrderID,
		Outcome: orEmpty(l.Outcome), Parties: venue.Parties{ClientID: l.ClientIDCode, InvestmentDecision: l.InvestmentDecisionID,
			ExecutionDecision: l.ExecutionDecisionID, Capacity: l.TradingCapacity}}
	if l.Price != nil {
		o.Price, o.HasPrice = d.num(*l.Price), true
	}
	if l.CoverPrice != nil {
		o.CoverPrice, o.HasCover = d.num(*l.CoverPrice), true
	}
	return o
}

type logOrder struct {
	ID             string  `json:"id"`
	Direction      string  `json:"direction"`
	Quantity       string  `json:"quantity"`
	PricePerUnit   string  `json:"price_per_unit"`
	FilledQuantity string  `json:"filled_quantity"`
	Status         string  `json:"status"`
	Type           string  `json:"type"`
	ExpiresAt      *string `json:"expires_at"`
	AccountID      string  `json:"account_id"`
	ParticipantID  string  `json:"participant_id"`
	MarketID       string  `json:"market_id"`
	InstrumentID   string  `json:"instrument_id"`
	OfferID        string  `json:"offer_id"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

func toLogOrder(o *venue.Order) logOrder {
	return logOrder{ID: o.ID, Direction: o.Direction, Quantity: o.Quantity.String(), PricePerUnit: o.PricePerUnit.String(),
		FilledQuantity: o.Filled.String(), Status: o.Status, Type: o.Type, ExpiresAt: toLogTimePtr(o.ExpiresAt),
		AccountID: o.AccountID, ParticipantID: o.ParticipantID, MarketID: o.MarketID, InstrumentID: o.InstrumentID,
		OfferID: o.OfferID, CreatedAt: toLogTime(o.CreatedAt), UpdatedAt: toLogTime(o.UpdatedAt)}
}

func (l *logOrder) order(d *logDecoder) venue.Order {
	return venue.Order{ID: l.ID, OfferID: l.OfferID, Direction: l.Direction, ParticipantID: l.ParticipantID,
		AccountID: l.AccountID, MarketID: l.MarketID, InstrumentID: l.InstrumentID, Quantity: d.text(l.Quantity),
		PricePerUnit: d.text(l.PricePerUnit), Filled: d.text(l.FilledQuantity), Status: l.Status, Type: l.Type,
		ExpiresAt: d.timePtr(l.ExpiresAt), CreatedAt: d.time(l.CreatedAt), UpdatedAt: d.time(l.UpdatedAt)}
}

type logTrade struct {
	ID                            string   `json:"id"`
	TransactionIdentificationCode string   `json:"transaction_identification_code"`
	MarketID                      string   `json:"market_id"`
	InstrumentID                  string   `json:"instrument_id"`
	Status                        string   `json:"status"`
	Quantity                      logNum   `json:"quantity"`
	Price                         logNum   `json:"price"`
	PricePerUnit                  logNum   `json:"price_per_unit"`
	AccruedInterest               string   `json:"accrued_interest"`
	PortfolioRFQID                string   `json:"portfolio_rfq_id,omitempty"`
	Fee                           logNum   `json:"fee"`
	SettlementDate                *string  `json:"settlement_date"`
	ExecutionType                 string   `json:"execution_type"`
	CreatedAt                     string   `json:"createdAt"`
	UpdatedAt                     string   `json:"updatedAt"`
	AskOrder                      logOrder `json:"ask_order"`
	BidOrder                      logOrder `json:"bid_order"`
	// Publication is the trade's on the public tape (absent on events
	// written before it had one: published at once).
	Publication *logPublication `json:"publication,omitempty"`
	// Moved is the book's top after the batch (Event.Moved).
	Moved *logPriceChange `json:"price_change,omitempty"`
	// Depth is the book's ladder after the batch (Event.Ladder).
	Depth *logDepth `json:"depth,omitempty"`
}

// toLogTrade keeps a trade for its trade.create event, with both orders'
// accounts (events written before the log had a format of its own have
// none). Readers see the trade without them (reader.redact) and their own
// order with its account (order.create).
func toLogTrade(t *venue.Trade) logTrade {
	return logTrade{ID: t.ID, TransactionIdentificationCode: t.TransactionIdentificationCode, MarketID: t.MarketID,
		InstrumentID: t.InstrumentID, Status: t.Status, Quantity: toLogNum(t.Quantity), Price: toLogNum(t.SettlementAmount),
		PricePerUnit: toLogNum(t.PricePerUnit), AccruedInterest: t.AccruedInterest.String(), Fee: toLogNum(t.Fee),
		SettlementDate: orNull(t.SettlementDate.String()), ExecutionType: t.ExecutionType, PortfolioRFQID: t.PortfolioRFQID,
		CreatedAt: toLogTime(t.CreatedAt), UpdatedAt: toLogTime(t.UpdatedAt),
		AskOrder: toLogOrder(&t.AskOrder), BidOrder: toLogOrder(&t.BidOrder), Publication: toLogPublication(t.Publication)}
}

type logPublication struct {
	Deferral          string  `json:"deferral"`
	PriceDueAt        string  `json:"price_due_at"`
	VolumeDueAt       string  `json:"volume_due_at"`
	PublishedPriceAt  *string `json:"published_price_at"`
	PublishedVolumeAt *string `json:"published_volume_at"`
}

func toLogPublication(p venue.Publication) *logPublication {
	if p.PriceDueAt.IsZero() {
		return nil
	}
	return &logPublication{Deferral: p.Deferral, PriceDueAt: toLogTime(p.PriceDueAt), VolumeDueAt: toLogTime(p.VolumeDueAt),
		PublishedPriceAt: toLogTimePtr(p.PublishedPriceAt), PublishedVolumeAt: toLogTimePtr(p.PublishedVolumeAt)}
}

// publication reads a trade's publication; none is one published at
// once, at created.
func (l *logPublication) publication(d *logDecoder, created time.Time) venue.Publication {
	if l == nil {
		return venue.Publication{PriceDueAt: created, VolumeDueAt: created, PublishedPriceAt: &created, PublishedVolumeAt: &created}
	}
	return venue.Publication{Deferral: l.Deferral, PriceDueAt: d.time(l.PriceDueAt), VolumeDueAt: d.time(l.VolumeDueAt),
		PublishedPriceAt: d.timePtr(l.PublishedPriceAt), PublishedVolumeAt: d.timePtr(l.PublishedVolumeAt)}
}

func (l *logTrade) trade(d *logDecoder) *venue.Trade {
	created := d.time(l.CreatedAt)
	return &venue.Trade{Publication: l.Publication.publication(d, created), ID: l.ID, TransactionIdentificationCode: l.TransactionIdentificationCode, MarketID: l.MarketID,
		InstrumentID: l.InstrumentID, AskOrder: l.AskOrder.order(d), BidOrder: l.BidOrder.order(d), Status: l.Status,
		Quantity: d.num(l.Quantity), PricePerUnit: d.num(l.PricePerUnit), AccruedInterest: d.text(l.AccruedInterest),
		SettlementAmount: d.num(l.Price), Fee: d.num(l.Fee), SettlementDate: d.date(l.SettlementDate),
		ExecutionType: l.ExecutionType, PortfolioRFQID: l.PortfolioRFQID, CreatedAt: d.time(l.CreatedAt), UpdatedAt: d.time(l.UpdatedAt)}
}

type logIndicative struct {
	ID             string  `json:"id"`
	ParticipantID  *string `json:"participant_id"`
	AccountID      *string `json:"account_id"`
	UserID         *string `json:"user_id"`
	InstrumentID   string  `json:"instrument_id"`
	BidPrice       *logNum `json:"bid_price"`
	AskPrice       *logNum `json:"ask_price"`
	BidQuantity    *logNum `json:"bid_quantity"`
	AskQuantity    *logNum `json:"ask_quantity"`
	BidYield       *logNum `json:"bid_yield"`
	AskYield       *logNum `json:"ask_yield"`
	SettlementDate *string `json:"settlement_date"`
	ValidUntil     *string `json:"valid_until"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

func toLogIndicative(ip *venue.IndicativePrice) logIndicative {
	return logIndicative{ID: ip.ID, ParticipantID: orNull(ip.ParticipantID), AccountID: orNull(ip.AccountID),
		UserID: orNull(ip.UserID), InstrumentID: ip.InstrumentID, BidPrice: toLogNumPtr(ip.BidPrice),
		AskPrice: toLogNumPtr(ip.AskPrice), BidQuantity: toLogNumPtr(ip.BidQuantity), AskQuantity: toLogNumPtr(ip.AskQuantity),
		BidYield: toLogNumPtr(ip.BidYield), AskYield: toLogNumPtr(ip.AskYield),
		SettlementDate: orNull(ip.SettlementDate.String()), ValidUntil: toLogTimePtr(ip.ValidUntil),
		CreatedAt: toLogTime(ip.CreatedAt), UpdatedAt: toLogTime(ip.UpdatedAt)}
}

func (l *logIndicative) indicative(d *logDecoder) *venue.IndicativePrice {
	return &venue.IndicativePrice{ID: l.ID, ParticipantID: orEmpty(l.ParticipantID), AccountID: orEmpty(l.AccountID),
		UserID: orEmpty(l.UserID), InstrumentID: l.InstrumentID, BidPrice: d.numPtr(l.BidPrice), AskPrice: d.numPtr(l.AskPrice),
		BidQuantity: d.numPtr(l.BidQuantity), AskQuantity: d.numPtr(l.AskQuantity), BidYield: d.numPtr(l.BidYield),
		AskYield: d.numPtr(l.AskYield), SettlementDate: d.date(l.SettlementDate), ValidUntil: d.timePtr(l.ValidUntil),
		CreatedAt: d.time(l.CreatedAt), UpdatedAt: d.time(l.UpdatedAt)}
}

type logNews struct {
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Body        string  `json:"body"`
	Source      string  `json:"source"`
	URL         *string `json:"url"`
	PublishedAt string  `json:"published_at"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

func toLogNews(n *venue.News) logNews {
	return logNews{ID: n.ID, Title: n.Title, Body: n.Body, Source: n.Source, URL: orNull(n.URL),
		PublishedAt: toLogTime(n.PublishedAt), CreatedAt: toLogTime(n.CreatedAt), UpdatedAt: toLogTime(n.UpdatedAt)}
}

func (l *logNews) news(d *logDecoder) *venue.News {
	return &venue.News{ID: l.ID, Title: l.Title, Body: l.Body, Source: l.Source, URL: orEmpty(l.URL),
		PublishedAt: d.time(l.PublishedAt), CreatedAt: d.time(l.CreatedAt), UpdatedAt: d.time(l.UpdatedAt)}
}

// logControl is a pre-trade control's record; each event type keeps its
// own fields.
type logControl struct {
	ParticipantID      string  `json:"participant_id,omitempty"`
	MarketID           string  `json:"market_id,omitempty"`
	InstrumentID       string  `json:"instrument_id,omitempty"`
	Enabled            bool    `json:"enabled,omitempty"`
	Cancelled          int     `json:"cancelled,omitempty"`
	Halted             bool    `json:"halted,omitempty"`
	Reason             string  `json:"reason,omitempty"`
	PriceCollarPercent *logNum `json:"price_collar_percent,omitempty"`
	MaxPricePercent    *logNum `json:"max_price_percent,omitempty"`
	Phase              string  `json:"phase,omitempty"`
	NextPhase          string  `json:"next_phase,omitempty"`
	NextPhaseAt        string  `json:"next_phase_at,omitempty"`
	UpdatedAt          string  `json:"updatedAt"`
}

func toLogControl(c *Control) logControl {
	l := logControl{ParticipantID: c.ParticipantID, MarketID: c.MarketID, InstrumentID: c.InstrumentID, Enabled: c.Enabled,
		Cancelled: c.Cancelled, Halted: c.Halted, Reason: c.Reason, PriceCollarPercent: toLogNumPtr(c.PriceCollarPercent),
		MaxPricePercent: toLogNumPtr(c.MaxPricePercent), Phase: c.Phase, NextPhase: c.NextPhase, UpdatedAt: toLogTime(c.UpdatedAt)}
	if !c.NextPhaseAt.IsZero() {
		l.NextPhaseAt = toLogTime(c.NextPhaseAt)
	}
	return l
}

func (l *logControl) control(d *logDecoder) *Control {
	c := &Control{ParticipantID: l.ParticipantID, MarketID: l.MarketID, InstrumentID: l.InstrumentID, Enabled: l.Enabled,
		Cancelled: l.Cancelled, Halted: l.Halted, Reason: l.Reason, Phase: l.Phase, NextPhase: l.NextPhase, UpdatedAt: d.time(l.UpdatedAt)}
	if l.NextPhaseAt != "" {
		c.NextPhaseAt = d.time(l.NextPhaseAt)
	}
	c.PriceCollarPercent = d.numPtr(l.PriceCollarPercent)
	c.MaxPricePercent = d.numPtr(l.MaxPricePercent)
	return c
}

// logBest is a best bid or ask: the resting offer's own facts. Who may
// trade with it, and the firm's name, are the reader's view of it.
type logBest struct {
	OfferID       string `json:"offer_id"`
	ParticipantID string `json:"participant_id"`
	Limit         logNum `json:"limit"`
	Quantity      logNum `json:"quantity"`
	MarketOrder   bool   `json:"is_market_order"`
	CSD           string `json:"csd,omitempty"`
}

type logPriceChange struct {
	InstrumentID string     `json:"instrument_id"`
	MarketID     string     `json:"market_id"`
	Bid          *logBest   `json:"bid"`
	Ask          *logBest   `json:"ask"`
	LastPrice    *logNum    `json:"last_price"`
	LastQuantity *logNum    `json:"last_quantity"`
	Trades       []logPrint `json:"trades,omitempty"`
}

type logPrint struct {
	Price    logNum `json:"price"`
	Quantity logNum `json:"quantity"`
}

func toLogBest(e *LimitEntry) *logBest {
	if e == nil {
		return nil
	}
	return &logBest{OfferID: e.OfferID, ParticipantID: e.ParticipantID, Limit: toLogNum(e.Limit),
		Quantity: toLogNum(e.Quantity), MarketOrder: e.IsMarketOrder, CSD: e.CSD}
}

func (l *logBest) entry(d *logDecoder, market string) *LimitEntry {
	if l == nil {
		return nil
	}
	return &LimitEntry{Limit: d.num(l.Limit), Quantity: d.num(l.Quantity), MarketID: market, ParticipantID: l.ParticipantID,
		OfferID: l.OfferID, IsExecutable: true, IsMarketOrder: l.MarketOrder, IsOffer: true, CSD: l.CSD}
}

func toLogPriceChange(pc *PriceChange) logPriceChange {
	out := logPriceChange{InstrumentID: pc.InstrumentID, MarketID: pc.MarketID, Bid: toLogBest(pc.Bid),
		Ask: toLogBest(pc.Ask), LastPrice: toLogNumPtr(pc.LastPrice), LastQuantity: toLogNumPtr(pc.LastQuantity)}
	for _, p := range pc.Trades {
		out.Trades = append(out.Trades, logPrint{Price: toLogNum(p.Price), Quantity: toLogNum(p.Quantity)})
	}
	return out
}

func (l *logPriceChange) priceChange(d *logDecoder) *PriceChange {
	pc := &PriceChange{InstrumentID: l.InstrumentID, MarketID: l.MarketID, Bid: l.Bid.entry(d, l.MarketID), Ask: l.Ask.entry(d, l.MarketID),
		LastPrice: d.numPtr(l.LastPrice), LastQuantity: d.numPtr(l.LastQuantity)}
	for _, p := range l.Trades {
		pc.Trades = append(pc.Trades, Print{Price: d.num(p.Price), Quantity: d.num(p.Quantity)})
	}
	return pc
}

// logDepth is a book's ladder: each level the resting offer's own facts,
// as logBest, written compactly (log_depth.go).
type logDepth struct {
	InstrumentID, MarketID string
	Bid, Ask               []logBest
	From                   int
}

func toLogDepth(d *Depth) *logDepth {
	if d == nil {
		return nil
	}
	side := func(les []LimitEntry) []logBest {
		out := make([]logBest, len(les))
		for i := range les {
			out[i] = *toLogBest(&les[i])
		}
		return out
	}
	return &logDepth{InstrumentID: d.InstrumentID, MarketID: d.MarketID, Bid: side(d.Bid), Ask: side(d.Ask), From: d.From}
}

func (l *logDepth) depth(d *logDecoder) *Depth {
	if l == nil {
		return nil
	}
	side := func(ls []logBest) []LimitEntry {
		out := make([]LimitEntry, len(ls))
		for i := range ls {
			out[i] = *ls[i].entry(d, l.MarketID)
		}
		return out
	}
	return &Depth{InstrumentID: l.InstrumentID, MarketID: l.MarketID, Bid: side(l.Bid), Ask: side(l.Ask), From: l.From}
}

// family is an event type's record kind: "offer" of "offer.create".
func family(typ string) string {
	f, _, _ := strings.Cut(typ, ".")
	return f
}

// encodeRecord renders e's record in the log's format.
func encodeRecord(e *Event) ([]byte, error) {
	var moved *logPriceChange
	if e.Moved != nil {
		pc := toLogPriceChange(e.Moved)
		moved = &pc
	}
	var v any
	switch {
	case e.Offer != nil:
		l := toLogOffer(e.Offer)
		l.Moved, l.Depth = moved, toLogDepth(e.Ladder)
		v = l
	case e.Trade != nil:
		l := toLogTrade(e.Trade)
		l.Moved, l.Depth = moved, toLogDepth(e.Ladder)
		v = l
	case e.IndicativePrice != nil:
		v = toLogIndicative(e.IndicativePrice)
	case e.News != nil:
		v = toLogNews(e.News)
	case e.Control != nil:
		v = toLogControl(e.Control)
	case e.Portfolio != nil:
		return store.EncodePortfolio(e.Portfolio)
	case e.Allocation != nil:
		return store.EncodeAllocation(e.Allocation)
	case e.Tape != nil:
		v = toLogTape(e.Tape)
	default:
		return nil, fmt.Errorf("event %s has no record", e.Type)
	}
	return json.Marshal(v)
}

// decodeRecord reads e's record, of e.Type, from the log's data.
func decodeRecord(e *Event, data []byte) error {
	var d logDecoder
	unmarshal := func(v any) { d.keep(json.Unmarshal(data, v)) }
	switch family(e.Type) {
	case "offer", "rfq", "quote":
		var l logOffer
		unmarshal(&l)
		e.Offer = l.offer(&d)
		if l.Moved != nil {
			e.Moved = l.Moved.priceChange(&d)
		}
		e.Ladder = l.Depth.depth(&d)
	case "trade":
		var l logTrade
		unmarshal(&l)
		e.Trade = l.trade(&d)
		if l.Moved != nil {
			e.Moved = l.Moved.priceChange(&d)
		}
		e.Ladder = l.Depth.depth(&d)
	case "indicative_price":
		var l logIndicative
		unmarshal(&l)
		e.IndicativePrice = l.indicative(&d)
	case "news":
		var l logNews
		unmarshal(&l)
		e.News = l.news(&d)
	case "participant", "instrument", "market":
		var l logControl
		unmarshal(&l)
		e.Control = l.control(&d)
	case "portfolio_rfq":
		r, err := store.DecodePortfolio(data)
		d.keep(err)
		e.Portfolio = &r
	case "allocation":
		a, err := store.DecodeAllocation(data)
		d.keep(err)
		e.Allocation = &a
	case "tape":
		var l logTape
		unmarshal(&l)
		e.Tape = l.entry(&d)
	default:
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	return d.err
}

// Record is an event as a writer appends it to the log: rendered into
// the log's format, with the typed record kept for the feed.
func Record(ev Event) store.Event {
	data, err := encodeRecord(&ev)
	if err != nil {
		// Every record type encodes; a failure is a bug, and an event
		// without data is refused by the decoder rather than passed on.
		data = []byte(`{}`)
	}
	return store.Event{Type: ev.Type, OccurredAt: ev.OccurredAt, ParticipantID: ev.Owner, Audience: ev.Audience,
		Data: data, Record: &ev}
}

// Append records a change in the caller's transaction. owner scopes
// who may read it; empty means every authenticated caller.
func Append(ctx context.Context, tx *store.Tx, ev Event) error {
	if ev.OccurredAt.IsZero() {
		ev.OccurredAt = tx.Now()
	}
	_, err := tx.AppendEvents(ctx, []store.Event{Record(ev)})
	return err
}

// Decode turns a stored event into a typed one: the record the writer
// handed over when there is one, else decoded from the log.
func Decode(se store.Event) (Event, error) {
	if ev, ok := se.Record.(*Event); ok {
		out := *ev
		out.Seq, out.OccurredAt = se.Seq, se.OccurredAt
		return out, nil
	}
	ev := Event{Seq: se.Seq, Type: se.Type, OccurredAt: se.OccurredAt, Owner: se.ParticipantID, Audience: se.Audience}
	if err := decodeRecord(&ev, se.Data); err != nil {
		return ev, fmt.Errorf("decode event %d (%s): %w", se.Seq, se.Type, err)
	}
	return ev, nil
}

// Scope is whose events a read of the log returns: the events of
// Participant (public ones, its own and those it is in the audience of),
// or with All every event together with its audience.
type Scope struct {
	Participant string
	All         bool
}

// Read reads up to limit events after seq in scope from the log, typed,
// and reports the last sequence number the read covered: every event up to
// it was either returned or is not in scope (fewer than limit events came
// back, so the read reached the end of the log as of its snapshot).
func Read(ctx context.Context, db *store.DB, scope Scope, after int64, limit int) ([]Event, int64, error) {
	var out []Event
	covered := after
	err := db.View(ctx, func(tx *store.Tx) error {
		out, covered = out[:0], after // View may run fn again
		last, err := tx.LastEventSeq(ctx)
		if err != nil {
			return err
		}
		var evs []store.Event
		if scope.All {
			evs, err = tx.EventsWithAudience(ctx, after, limit)
		} else {
			evs, err = tx.Events(ctx, store.EventQuery{After: after, Participant: scope.Participant, Limit: limit})
		}
		if err != nil {
			return err
		}
		for _, se := range evs {
			ev, err := Decode(se)
			if err != nil {
				return err
			}
			out = append(out, ev)
		}
		// last was read before the events: every event up to it had
		// committed, so the read saw it (PostgreSQL's read committed takes
		// a snapshot per statement; the events read may go beyond last).
		covered = max(last, after)
		if len(evs) > 0 {
			covered = max(covered, evs[len(evs)-1].Seq)
		}
		if len(evs) == limit {
			covered = evs[len(evs)-1].Seq
		}
		return nil
	})
	return out, covered, err
}

// logTape is a tape entry as the log keeps it: as REST renders it.
type logTape struct {
	TradeID       string          `json:"trade_id"`
	InstrumentID  string          `json:"instrument_id"`
	ISIN          string          `json:"isin"`
	MarketID      string          `json:"market_id"`
	MIC           string          `json:"mic"`
	TVTIC         string          `json:"tvtic"`
	Price         *logNum         `json:"price"`
	Quantity      *logNum         `json:"quantity"`
	ExecutionType string          `json:"execution_type"`
	OccurredAt    string          `json:"occurred_at"`
	Flags         []string        `json:"flags"`
	Publication   *logPublication `json:"publication"`
}

func toLogTape(e *venue.TapeEntry) logTape {
	return logTape{TradeID: e.TradeID, InstrumentID: e.InstrumentID, ISIN: e.ISIN, MarketID: e.MarketID, MIC: e.MIC, TVTIC: e.TVTIC,
		Price: toLogNumPtr(e.Price), Quantity: toLogNumPtr(e.Quantity), ExecutionType: e.ExecutionType,
		OccurredAt: toLogTime(e.TradedAt), Flags: e.Flags, Publication: toLogPublication(e.Publication)}
}

func (l *logTape) entry(d *logDecoder) *venue.TapeEntry {
	at := d.time(l.OccurredAt)
	e := &venue.TapeEntry{TradeID: l.TradeID, InstrumentID: l.InstrumentID, ISIN: l.ISIN, MarketID: l.MarketID, MIC: l.MIC,
		TVTIC: l.TVTIC, ExecutionType: l.ExecutionType, TradedAt: at, Flags: l.Flags, Publication: l.Publication.publication(d, at)}
	if l.Price != nil {
		v := d.num(*l.Price)
		e.Price = &v
	}
	if l.Quantity != nil {
		v := d.num(*l.Quantity)
		e.Quantity = &v
	}
	if e.Flags == nil {
		e.Flags = []string{}
	}
	return e
}
