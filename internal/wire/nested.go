package wire

import (
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file renders the trading records as a REST answer shows them: the
// flat record (Offer, Trade, Order) with the objects the spec nests in it.

// OfferNested is an offer record with the objects nested where the spec
// shows them.
type OfferNested struct {
	Offer
	Instrument    *Instrument  `json:"instrument,omitempty"`
	Market        *Market      `json:"market,omitempty"`
	Participant   *Participant `json:"participant,omitempty"`
	Account       *Account     `json:"account,omitempty"`
	User          *User        `json:"user,omitempty"`
	MatchedOffers []Offer      `json:"matched_offers,omitempty"`
}

// OfferNestedOf renders an offer, quote or RFQ answer as the caller may see it.
func OfferNestedOf(v trading.OfferView) OfferNested {
	out := OfferNested{Offer: OfferOf(v.Offer, true)} // as the caller may see it
	if v.Instrument != nil {
		in := InstrumentNestedOf(*v.Instrument)
		out.Instrument = &in
	}
	if v.Market != nil {
		m := MarketOf(*v.Market)
		out.Market = &m
	}
	if v.Participant != nil {
		p := ParticipantFullOf(*v.Participant)
		out.Participant = &p
	}
	if v.Account != nil {
		a := AccountOf(*v.Account)
		out.Account = &a
	}
	if v.User != nil {
		u := UserOf(*v.User)
		out.User = &u
	}
	if v.MatchedOffers != nil {
		out.MatchedOffers = make([]Offer, 0, len(v.MatchedOffers))
		for _, q := range v.MatchedOffers {
			out.MatchedOffers = append(out.MatchedOffers, OfferOf(q, false))
		}
	}
	return out
}

// RFQNested always carries matched_offers, even when empty, and, for
// whoever may see its recipients, those that declined it.
type RFQNested struct {
	OfferNested
	MatchedOffers []Offer  `json:"matched_offers"`
	Declined      []string `json:"declined_counterparties,omitempty"`
}

// RFQNestedOf renders an RFQ answer.
func RFQNestedOf(v trading.OfferView) RFQNested {
	o := OfferNestedOf(v)
	out := RFQNested{OfferNested: o, MatchedOffers: o.MatchedOffers, Declined: v.Declined}
	if out.MatchedOffers == nil {
		out.MatchedOffers = []Offer{}
	}
	return out
}

// OfferRecordOf renders a list record, as the use case answered it for the
// caller.
func OfferRecordOf(o venue.Offer) Offer { return OfferOf(o, true) }

// InstrumentNestedOf renders an instrument nested in a record: as in lists,
// without its book.
func InstrumentNestedOf(in venue.Instrument) Instrument {
	return InstrumentOf(trading.InstrumentView{Instrument: in,
		Limits: trading.InstrumentLimits{Ask: []feed.LimitEntry{}, Bid: []feed.LimitEntry{}}})
}

// TradeNested is a trade with its market and orders nested.
type TradeNested struct {
	Trade
	Market   Market      `json:"market"`
	AskOrder OrderNested `json:"ask_order"`
	BidOrder OrderNested `json:"bid_order"`
}

// OrderNested is a trade's order with its objects nested: its account (null
// on the other firm's order, whose account_id is blanked), its participant
// (the other firm's public fields), the trade's instrument and the offer,
// quote or RFQ it filled (the other firm's redacted as in lists).
type OrderNested struct {
	Order
	Account     *Account    `json:"account"`
	Participant any         `json:"participant"`
	Instrument  *Instrument `json:"instrument"`
	Offer       Offer       `json:"offer"`
}

// TradeNestedOf renders a trade with its market and orders nested.
func TradeNestedOf(t trading.TradeView) TradeNested {
	in := InstrumentNestedOf(t.Instrument)
	return TradeNested{Trade: TradeOf(t.Trade), Market: MarketOf(t.Market),
		AskOrder: orderNestedOf(t.AskOrder, t.Ask, &in), BidOrder: orderNestedOf(t.BidOrder, t.Bid, &in)}
}

func orderNestedOf(o venue.Order, v trading.OrderView, in *Instrument) OrderNested {
	out := OrderNested{Order: OrderOf(o), Participant: ParticipantOf(v.Participant), Instrument: in,
		Offer: OfferRecordOf(v.Offer)}
	if v.Account != nil && out.AccountID != "" {
		a := AccountOf(*v.Account)
		out.Account = &a
	}
	return out
}
