package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// offerBody is the create body of an offer, quote or RFQ (docs/rest-interface.md §4.2).
// Server-owned fields (id, status, filled_quantity, accrued_interest) are
// read and ignored.
type offerBody struct {
	ParticipantID        string      `json:"participant_id"`
	AccountID            string      `json:"account_id"`
	UserID               string      `json:"user_id"`
	InstrumentID         string      `json:"instrument_id"`
	MarketID             string      `json:"market_id"`
	SettlementProviderID string      `json:"settlement_provider_id"`
	Direction            string      `json:"direction"`
	Price                amountInput `json:"price"`
	PricePerUnit         priceInput  `json:"price_per_unit"`
	Quantity             amountInput `json:"quantity"`
	MatchedOfferID       string      `json:"matched_offer_id"`
	Notes                string      `json:"notes"`
	MarketOrder          bool        `json:"market_order"`
	IsExecutable         bool        `json:"is_executable"`
	SettlementDate       *string     `json:"settlement_date"`
	Validity             string      `json:"validity"`
	ValidUntil           *string     `json:"valid_until"`
	Counterparties       []string    `json:"counterparties"`
}

func (b offerBody) input() (trading.OfferInput, error) {
	var f fields
	in := trading.OfferInput{ParticipantID: b.ParticipantID, AccountID: b.AccountID, UserID: b.UserID,
		InstrumentID: b.InstrumentID, MarketID: b.MarketID, SettlementProviderID: b.SettlementProviderID,
		Direction: b.Direction, MatchedOfferID: b.MatchedOfferID, Notes: b.Notes, MarketOrder: b.MarketOrder,
		IsExecutable: b.IsExecutable, Validity: b.Validity, Counterparties: b.Counterparties}
	// price_per_unit is the clean price; a client sending only price means
	// the same.
	price := b.PricePerUnit.decimalInput
	name := "price_per_unit"
	if !price.Set && !price.Bad {
		price, name = b.Price.decimalInput, "price"
	}
	f.decimal(name, price, false)
	in.Price, in.PriceField = price.ptr(), name
	f.decimal("quantity", b.Quantity.decimalInput, false)
	in.Quantity = b.Quantity.ptr()
	if b.SettlementDate != nil && *b.SettlementDate != "" {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	return in, f.v.Err()
}

func (f *fields) instant(name string, s *string) *time.Time {
	if s == nil || *s == "" {
		return nil
	}
	t, err := parseInstant(*s)
	if err != nil {
		f.v.Addf(name, "must be a timestamp (YYYY-MM-DD HH:MM:SS UTC or ISO 8601)")
		return nil
	}
	return &t
}

// changeBody is the update entity (docs/rest-interface.md §4.3).
type changeBody struct {
	PricePerUnit   priceInput  `json:"price_per_unit"`
	Price          amountInput `json:"price"`
	Quantity       amountInput `json:"quantity"`
	SettlementDate *string     `json:"settlement_date"`
	Validity       *string     `json:"validity"`
	ValidUntil     *string     `json:"valid_until"`
	Notes          *string     `json:"notes"`
}

func (b changeBody) input() (trading.ChangeInput, error) {
	var f fields
	price, name := b.PricePerUnit.decimalInput, "price_per_unit"
	if !price.Set && !price.Bad {
		price, name = b.Price.decimalInput, "price"
	}
	f.decimal(name, price, false)
	f.decimal("quantity", b.Quantity.decimalInput, false)
	in := trading.ChangeInput{Price: price.ptr(), PriceField: name, Quantity: b.Quantity.ptr(), Validity: b.Validity, Notes: b.Notes}
	if b.SettlementDate != nil {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	if in.Price == nil && in.Quantity == nil && in.SettlementDate == nil && in.Validity == nil && in.Notes == nil && in.ValidUntil == nil &&
		f.v.Err() == nil { // a field given but unusable is reported as such
		f.v.Addf("entity", "names nothing to change (price_per_unit, quantity, settlement_date, validity, valid_until, notes)")
	}
	return in, f.v.Err()
}

// offerJSON is an offer record with the objects nested where the spec
// shows them.
type offerJSON struct {
	wire.Offer
	Instrument    *instrumentJSON  `json:"instrument,omitempty"`
	Market        *marketJSON      `json:"market,omitempty"`
	Participant   *participantJSON `json:"participant,omitempty"`
	Account       *accountJSON     `json:"account,omitempty"`
	User          *userJSON        `json:"user,omitempty"`
	MatchedOffers []wire.Offer     `json:"matched_offers,omitempty"`
}

func offerView(v trading.OfferView) offerJSON {
	out := offerJSON{Offer: wire.OfferOf(v.Offer, true)} // as the caller may see it
	if v.Instrument != nil {
		in := instrumentNested(*v.Instrument)
		out.Instrument = &in
	}
	if v.Market != nil {
		m := marketView(*v.Market)
		out.Market = &m
	}
	if v.Participant != nil {
		p := participantFull(*v.Participant)
		out.Participant = &p
	}
	if v.Account != nil {
		a := accountView(*v.Account)
		out.Account = &a
	}
	if v.User != nil {
		u := userView(*v.User)
		out.User = &u
	}
	if v.MatchedOffers != nil {
		out.MatchedOffers = make([]wire.Offer, 0, len(v.MatchedOffers))
		for _, q := range v.MatchedOffers {
			out.MatchedOffers = append(out.MatchedOffers, wire.OfferOf(q, false))
		}
	}
	return out
}

// rfqJSON always carries matched_offers, even when empty.
type rfqJSON struct {
	offerJSON
	MatchedOffers []wire.Offer `json:"matched_offers"`
}

func rfqView(v trading.OfferView) rfqJSON {
	o := offerView(v)
	out := rfqJSON{offerJSON: o, MatchedOffers: o.MatchedOffers}
	if out.MatchedOffers == nil {
		out.MatchedOffers = []wire.Offer{}
	}
	return out
}

// recordView renders a list record, as the use case answered it for the
// caller.
func recordView(o venue.Offer) wire.Offer { return wire.OfferOf(o, true) }

// instrumentNested renders an instrument nested in a record: as in lists,
// without its book.
func instrumentNested(in venue.Instrument) instrumentJSON {
	return instrumentListView(trading.InstrumentView{Instrument: in,
		Limits: trading.InstrumentLimits{Ask: []trading.LimitEntry{}, Bid: []trading.LimitEntry{}}})
}

// tradeJSON is a trade with its market and orders nested.
type tradeJSON struct {
	wire.Trade
	Market   marketJSON `json:"market"`
	AskOrder orderJSON  `json:"ask_order"`
	BidOrder orderJSON  `json:"bid_order"`
}

// orderJSON is a trade's order with its objects nested: its account (null
// on the other firm's order, whose account_id is blanked), its participant
// (the other firm's public fields), the trade's instrument and the offer,
// quote or RFQ it filled (the other firm's redacted as in lists).
type orderJSON struct {
	wire.Order
	Account     *accountJSON    `json:"account"`
	Participant any             `json:"participant"`
	Instrument  *instrumentJSON `json:"instrument"`
	Offer       wire.Offer      `json:"offer"`
}

func tradeView(t trading.TradeView) tradeJSON {
	in := instrumentNested(t.Instrument)
	return tradeJSON{Trade: wire.TradeOf(t.Trade), Market: marketView(t.Market),
		AskOrder: orderView(t.AskOrder, t.Ask, &in), BidOrder: orderView(t.BidOrder, t.Bid, &in)}
}

func orderView(o venue.Order, v trading.OrderView, in *instrumentJSON) orderJSON {
	out := orderJSON{Order: wire.OrderOf(o), Participant: participantView(v.Participant), Instrument: in,
		Offer: recordView(v.Offer)}
	if v.Account != nil && out.AccountID != "" {
		a := accountView(*v.Account)
		out.Account = &a
	}
	return out
}

func (s *Server) createOffer(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body offerBody
	if err := decodeOffer(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).CreateOffer(r.Context(), p, in)
	if err != nil {
		return err
	}
	s.writeOffer(w, v)
	return nil
}

func offerFilter(r *http.Request) (trading.OfferFilter, venue.Page, error) {
	q := r.URL.Query()
	page, err := pageParams(q)
	return trading.OfferFilter{Status: q.Get("status"), Type: q.Get("type"), InstrumentID: q.Get("instrument_id"),
		MarketID: q.Get("market_id")}, page, err
}

func (s *Server) listOffers(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	f, page, err := offerFilter(r)
	if err != nil {
		return err
	}
	l, err := s.use(r).Offers(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, recordView)
	return nil
}

func (s *Server) updateOffer(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body changeBody
	if err := entity(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).UpdateOffer(r.Context(), p, r.PathValue("offerId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, offerView(v))
	return nil
}

func (s *Server) createRFQ(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body offerBody
	if err := decodeOffer(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).CreateRFQ(r.Context(), p, in)
	if err != nil {
		return err
	}
	s.writeOffer(w, v)
	return nil
}

func (s *Server) listRFQs(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	f, page, err := offerFilter(r)
	if err != nil {
		return err
	}
	l, err := s.use(r).RFQs(r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, recordView)
	return nil
}

func (s *Server) updateRFQ(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body changeBody
	if err := entity(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := s.use(r).UpdateRFQ(r.Context(), p, r.PathValue("rfqId"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rfqView(v))
	return nil
}

func (s *Server) listTrades(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	page, err := pageParams(q)
	if err != nil {
		return err
	}
	l, err := s.use(r).Trades(r.Context(), p, trading.TradeFilter{InstrumentID: q.Get("instrument_id"),
		MarketID: q.Get("market_id"), OfferID: q.Get("offer_id"), ExecutionType: q.Get("execution_type")}, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, func(t trading.TradeView) tradeJSON { return tradeView(t) })
	return nil
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := r.URL.Query()
	var v venue.Validator
	after, limit := int64(0), 100
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		v.Check(err == nil && n >= 0, "after", "must be a non-negative sequence number")
		after = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		v.Check(err == nil && n >= 1 && n <= 1000, "limit", "must be an integer between 1 and 1000")
		limit = n
	}
	if err := v.Err(); err != nil {
		return err
	}
	evs, err := s.use(r).Events(r.Context(), p, after, limit)
	if err != nil {
		return err
	}
	out := mapSlice(evs, wire.EventOf)
	if len(out) == limit {
		w.Header().Set("Link", fmt.Sprintf(`<%s?after=%d&limit=%d>; rel="next"`, r.URL.Path, out[len(out)-1].Seq, limit))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
