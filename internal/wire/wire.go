// Package wire renders every record (reference data, offers, RFQs, quotes,
// trades, orders, news, events, controls) in the spec's shapes, for every
// adapter that sends them as JSON (REST, the streams): a record is rendered
// the same on every channel. An event's record is flat; the shapes a REST
// answer nests (OfferNested, TradeNested) are here too, beside the flat
// ones. The event log's stored format is not: it lives in the feed
// package (internal/feed/log.go) and is tied to these shapes by a test
// there.
package wire

//go:generate go run ./internal/offergen/run

import (
	"encoding/json"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// Num is an exact decimal written as a JSON number: its digits, unquoted.
// It is encoding/json's Number, which the encoder writes as it stands
// (after checking that it is a number) rather than calling a MarshalJSON
// and re-scanning what that returns: an offer has five of them, written
// once for its event and once for its answer.
type Num = json.Number

// NumOf renders d.
func NumOf(d udecimal.Decimal) Num { return Num(d.String()) }

// Time formats an instant as ISO 8601 UTC with milliseconds.
func Time(t time.Time) string { return t.UTC().Format(venue.TimestampLayout) }

// TimePtr formats an optional instant; nil stays null.
func TimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Time(*t)
	return &s
}

// Nullable writes "" as null.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// LimitPrice is the spec's price_per_unit object.
type LimitPrice struct {
	LimitPrice *Num   `json:"limit_price"`
	Typename   string `json:"__typename"`
}

// Offer is the offer/RFQ/quote record. Nested objects and matched_offers
// are added by the adapter where the spec shows them.
type Offer struct {
	ID                   string     `json:"id"`
	Type                 string     `json:"type"`
	Direction            string     `json:"direction"`
	Price                *Num       `json:"price"`
	Quantity             Num        `json:"quantity"`
	PricePerUnitClean    *Num       `json:"price_per_unit_clean"`
	FilledQuantity       Num        `json:"filled_quantity"`
	PricePerUnit         LimitPrice `json:"price_per_unit"`
	Status               string     `json:"status"`
	MatchedOfferID       *string    `json:"matched_offer_id"`
	Notes                string     `json:"notes"`
	MarketOrder          bool       `json:"market_order"`
	IsExecutable         bool       `json:"is_executable"`
	SettlementDate       *string    `json:"settlement_date"`
	Validity             string     `json:"validity"`
	ValidUntil           *string    `json:"valid_until"`
	ParticipantID        string     `json:"participant_id"`
	AccountID            string     `json:"account_id"`
	MarketID             string     `json:"market_id"`
	InstrumentID         string     `json:"instrument_id"`
	UserID               string     `json:"user_id"`
	SettlementProviderID *string    `json:"settlement_provider_id"`
	Counterparties       []string   `json:"counterparties,omitempty"`
	AccruedInterest      string     `json:"accrued_interest"`
	Message              *string    `json:"message"`
	// Outcome is a quote's end (null while open, and on offers and RFQs);
	// CoverPrice is on the done quote only.
	Outcome    *string `json:"outcome"`
	CoverPrice *Num    `json:"cover_price"`
	// The client's parties for the order records, as it gave them: only
	// on the owner's records, and absent when not given (the defaults
	// are the records' own).
	ClientIDCode         string `json:"client_id_code,omitempty"`
	InvestmentDecisionID string `json:"investment_decision_id,omitempty"`
	ExecutionDecisionID  string `json:"execution_decision_id,omitempty"`
	TradingCapacity      string `json:"trading_capacity,omitempty"`
	ModifiedAt           string `json:"modified_at"`
	CreatedAt            string `json:"createdAt"`
	UpdatedAt            string `json:"updatedAt"`
}

// OfferBody is the create body of an offer, quote or RFQ: the fields of an
// Offer a client sends, by the same keys. Server-owned fields (id,
// status, filled_quantity, accrued_interest) are read and ignored. The
// adapter names the types its decimals decode into: Amount for price and
// quantity, Price for price_per_unit (which may also come in the record's
// object form).
//
// Offer and OfferBody are the description the reflection-free encoder and
// decoder are generated from (go generate; package offergen): a field
// added here, in either, is written and read by them once they are
// generated again.
type OfferBody[Amount, Price any] struct {
	ParticipantID        string   `json:"participant_id"`
	AccountID            string   `json:"account_id"`
	UserID               string   `json:"user_id"`
	InstrumentID         string   `json:"instrument_id"`
	MarketID             string   `json:"market_id"`
	SettlementProviderID string   `json:"settlement_provider_id"`
	Direction            string   `json:"direction"`
	Price                Amount   `json:"price"`
	PricePerUnit         Price    `json:"price_per_unit"`
	Quantity             Amount   `json:"quantity"`
	MatchedOfferID       string   `json:"matched_offer_id"`
	Notes                string   `json:"notes"`
	MarketOrder          bool     `json:"market_order"`
	IsExecutable         bool     `json:"is_executable"`
	SettlementDate       *string  `json:"settlement_date"`
	Validity             string   `json:"validity"`
	ValidUntil           *string  `json:"valid_until"`
	Counterparties       []string `json:"counterparties"`
	ClientIDCode         string   `json:"client_id_code"`
	InvestmentDecisionID string   `json:"investment_decision_id"`
	ExecutionDecisionID  string   `json:"execution_decision_id"`
	TradingCapacity      string   `json:"trading_capacity"`
}

// OfferOf renders o. Counterparties (an RFQ's recipients) are included
// only when withRecipients is set: dealers do not see who else was asked.
func OfferOf(o venue.Offer, withRecipients bool) Offer {
	out := Offer{ID: o.ID, Type: o.Type, Direction: o.Direction, Quantity: NumOf(o.Quantity),
		FilledQuantity: NumOf(o.Filled), PricePerUnit: LimitPrice{Typename: "LimitOrderPrice"}, Status: o.Status,
		MatchedOfferID: Nullable(o.MatchedOfferID), Notes: o.Notes, MarketOrder: o.MarketOrder,
		IsExecutable: o.IsExecutable, Validity: o.Validity, ValidUntil: TimePtr(o.ValidUntil),
		ParticipantID: o.ParticipantID, AccountID: o.AccountID, MarketID: o.MarketID, InstrumentID: o.InstrumentID,
		UserID: o.UserID, SettlementProviderID: Nullable(o.SettlementProviderID),
		AccruedInterest: o.AccruedInterest.String(), Message: Nullable(o.Message), ModifiedAt: Time(o.ModifiedAt),
		CreatedAt: Time(o.CreatedAt), UpdatedAt: Time(o.UpdatedAt), Outcome: Nullable(o.Outcome),
		ClientIDCode: o.Parties.ClientID, InvestmentDecisionID: o.Parties.InvestmentDecision,
		ExecutionDecisionID: o.Parties.ExecutionDecision, TradingCapacity: o.Parties.Capacity}
	if o.HasPrice {
		p := NumOf(o.Price)
		out.Price, out.PricePerUnitClean, out.PricePerUnit.LimitPrice = &p, &p, &p
	}
	if o.HasCover {
		c := NumOf(o.CoverPrice)
		out.CoverPrice = &c
	}
	if !o.SettlementDate.IsZero() {
		s := o.SettlementDate.String()
		out.SettlementDate = &s
	}
	if withRecipients && o.Type == venue.TypeRFQ {
		out.Counterparties = append([]string{}, o.Counterparties...)
	}
	return out
}

// Order is a trade's order record (decimal text where the spec says so).
type Order struct {
	ID             string  `json:"id"`
	Direction      string  `json:"direction"`
	Price          Num     `json:"price"`
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

// OrderOf renders one side of a trade.
func OrderOf(o venue.Order) Order {
	return Order{ID: o.ID, Direction: o.Direction, Price: NumOf(o.PricePerUnit), Quantity: o.Quantity.String(),
		PricePerUnit: o.PricePerUnit.String(), FilledQuantity: o.Filled.String(), Status: o.Status, Type: o.Type,
		ExpiresAt: TimePtr(o.ExpiresAt), AccountID: o.AccountID, ParticipantID: o.ParticipantID, MarketID: o.MarketID,
		InstrumentID: o.InstrumentID, OfferID: o.OfferID, CreatedAt: Time(o.CreatedAt), UpdatedAt: Time(o.UpdatedAt)}
}

// Trade is the trade record without nested objects.
type Trade struct {
	ID                            string `json:"id"`
	TransactionIdentificationCode string `json:"transaction_identification_code"`
	AskOrderID                    string `json:"ask_order_id"`
	BidOrderID                    string `json:"bid_order_id"`
	MarketID                      string `json:"market_id"`
	InstrumentID                  string `json:"instrument_id"`
	Status                        string `json:"status"`
	Quantity                      Num    `json:"quantity"`
	Price                         Num    `json:"price"`
	PricePerUnit                  Num    `json:"price_per_unit"`
	AccruedInterest               string `json:"accrued_interest"`
	Fee                           Num    `json:"fee"`
	SettlementDate                string `json:"settlement_date"`
	ExecutionType                 string `json:"execution_type"`
	// PortfolioRFQID names the portfolio RFQ of a traded line (absent on
	// other trades).
	PortfolioRFQID *string `json:"portfolio_rfq_id,omitempty"`
	// Publication is when the public tape shows the trade.
	Publication Publication `json:"publication"`
	CreatedAt   string      `json:"createdAt"`
	UpdatedAt   string      `json:"updatedAt"`
}

// TradeOf renders t.
func TradeOf(t venue.Trade) Trade {
	return Trade{ID: t.ID, TransactionIdentificationCode: t.TransactionIdentificationCode, AskOrderID: t.AskOrder.ID,
		BidOrderID: t.BidOrder.ID, MarketID: t.MarketID, InstrumentID: t.InstrumentID, Status: t.Status,
		Quantity: NumOf(t.Quantity), Price: NumOf(t.SettlementAmount), PricePerUnit: NumOf(t.PricePerUnit),
		AccruedInterest: t.AccruedInterest.String(), Fee: NumOf(t.Fee), SettlementDate: t.SettlementDate.String(),
		ExecutionType: t.ExecutionType, PortfolioRFQID: Nullable(t.PortfolioRFQID), Publication: PublicationOf(t.Publication),
		CreatedAt: Time(t.CreatedAt), UpdatedAt: Time(t.UpdatedAt)}
}

// TradeRecord is a trade with its two orders flat (nested objects by id):
// the data of a trade.create event.
type TradeRecord struct {
	Trade
	AskOrder Order `json:"ask_order"`
	BidOrder Order `json:"bid_order"`
}

// TradeRecordOf renders t for the event log. Both firms read the one
// event, so neither order carries its account id: a firm sees its own
// account in the events of its own offer, never the other firm's.
func TradeRecordOf(t venue.Trade) TradeRecord {
	out := TradeRecord{Trade: TradeOf(t), AskOrder: OrderOf(t.AskOrder), BidOrder: OrderOf(t.BidOrder)}
	out.AskOrder.AccountID, out.BidOrder.AccountID = "", ""
	return out
}

// News is a news item.
type News struct {
	ID          string  `json:"id"`
	Title       string  `json:"title"`
	Body        string  `json:"body"`
	Source      string  `json:"source"`
	URL         *string `json:"url"`
	PublishedAt string  `json:"published_at"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

// NewsOf renders n.
func NewsOf(n venue.News) News {
	return News{ID: n.ID, Title: n.Title, Body: n.Body, Source: n.Source, URL: Nullable(n.URL),
		PublishedAt: Time(n.PublishedAt), CreatedAt: Time(n.CreatedAt), UpdatedAt: Time(n.UpdatedAt)}
}
