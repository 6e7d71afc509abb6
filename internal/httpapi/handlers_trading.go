package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// offerInput turns the create body of an offer, quote or RFQ into the use
// case's input.
func offerInput(b offerBody) (trading.OfferInput, error) {
	var f fields
	in := trading.OfferInput{ParticipantID: b.ParticipantID, AccountID: b.AccountID, UserID: b.UserID,
		InstrumentID: b.InstrumentID, MarketID: b.MarketID, SettlementProviderID: b.SettlementProviderID,
		Direction: b.Direction, MatchedOfferID: b.MatchedOfferID, Notes: b.Notes, MarketOrder: b.MarketOrder,
		IsExecutable: b.IsExecutable, Validity: b.Validity, Counterparties: b.Counterparties,
		Parties: partiesOf(b.ClientIDCode, b.InvestmentDecisionID, b.ExecutionDecisionID, b.TradingCapacity)}
	in.Price, in.PriceField, in.Quantity = f.priceAndQuantity(b.PricePerUnit, b.Price, b.Quantity)
	if b.SettlementDate != nil && *b.SettlementDate != "" {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	return in, f.v.Err()
}

// priceAndQuantity reads the price and the quantity of an offer's body, and
// names the field the price came from: price_per_unit is the clean price;
// a client sending only price means the same.
func (f *fields) priceAndQuantity(perUnit priceInput, price, quantity amountInput) (*udecimal.Decimal, string, *udecimal.Decimal) {
	p, name := perUnit.decimalInput, "price_per_unit"
	if !p.Set && !p.Bad {
		p, name = price.decimalInput, "price"
	}
	f.decimal(name, p, false)
	f.decimal("quantity", quantity.decimalInput, false)
	return p.ptr(), name, quantity.ptr()
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

// changeBody is the update entity (docs/rest-interface.md, "OfferUpdate").
type changeBody struct {
	PricePerUnit   priceInput  `json:"price_per_unit"`
	Price          amountInput `json:"price"`
	Quantity       amountInput `json:"quantity"`
	SettlementDate *string     `json:"settlement_date"`
	Validity       *string     `json:"validity"`
	ValidUntil     *string     `json:"valid_until"`
	Notes          *string     `json:"notes"`
	// The order's parties: naming any restates all four.
	ClientIDCode         string `json:"client_id_code"`
	InvestmentDecisionID string `json:"investment_decision_id"`
	ExecutionDecisionID  string `json:"execution_decision_id"`
	TradingCapacity      string `json:"trading_capacity"`
}

func (b changeBody) input() (trading.ChangeInput, error) {
	var f fields
	in := trading.ChangeInput{Validity: b.Validity, Notes: b.Notes,
		Parties: given(partiesOf(b.ClientIDCode, b.InvestmentDecisionID, b.ExecutionDecisionID, b.TradingCapacity))}
	in.Price, in.PriceField, in.Quantity = f.priceAndQuantity(b.PricePerUnit, b.Price, b.Quantity)
	if b.SettlementDate != nil {
		d := f.date("settlement_date", b.SettlementDate, true)
		in.SettlementDate = &d
	}
	in.ValidUntil = f.instant("valid_until", b.ValidUntil)
	if in.Price == nil && in.Quantity == nil && in.SettlementDate == nil && in.Validity == nil && in.Notes == nil && in.ValidUntil == nil &&
		in.Parties == nil && f.v.Err() == nil { // a field given but unusable is reported as such
		f.v.Addf("entity", "names nothing to change (price_per_unit, quantity, settlement_date, validity, valid_until, notes, "+
			"or the order's parties)")
	}
	return in, f.v.Err()
}

// The offer and RFQ handlers differ only in the use case they call and in
// how an update is answered; each pair shares its handler.

func (s *Server) createOffer(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return s.createEntry(w, r, p, (*trading.Service).CreateOffer)
}

func (s *Server) createRFQ(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return s.createEntry(w, r, p, (*trading.Service).CreateRFQ)
}

func (s *Server) listOffers(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return s.listEntries(w, r, p, (*trading.Service).Offers)
}

func (s *Server) listRFQs(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return s.listEntries(w, r, p, (*trading.Service).RFQs)
}

func (s *Server) updateOffer(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return updateEntry(s, w, r, p, "offerId", (*trading.Service).UpdateOffer, wire.OfferNestedOf)
}

func (s *Server) updateRFQ(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	return updateEntry(s, w, r, p, "rfqId", (*trading.Service).UpdateRFQ, wire.RFQNestedOf)
}

// createEntry enters an offer, quote or RFQ by create.
func (s *Server) createEntry(w http.ResponseWriter, r *http.Request, p venue.Principal,
	create func(*trading.Service, context.Context, venue.Principal, trading.OfferInput) (trading.OfferView, error)) error {
	var body offerBody
	if err := decodeOffer(r, &body); err != nil {
		return err
	}
	in, err := offerInput(body)
	if err != nil {
		return err
	}
	v, err := create(s.use(r), r.Context(), p, in)
	if err != nil {
		return err
	}
	s.writeOffer(w, v)
	return nil
}

// listEntries answers a page of offers or RFQs as list reads them.
func (s *Server) listEntries(w http.ResponseWriter, r *http.Request, p venue.Principal,
	list func(*trading.Service, context.Context, venue.Principal, trading.OfferFilter, venue.Page) (trading.List[venue.Offer], error)) error {
	q := r.URL.Query()
	page, err := pageParams(q)
	if err != nil {
		return err
	}
	f := trading.OfferFilter{Status: q.Get("status"), Type: q.Get("type"), InstrumentID: q.Get("instrument_id"),
		MarketID: q.Get("market_id")}
	l, err := list(s.use(r), r.Context(), p, f, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.OfferRecordOf)
	return nil
}

// updateEntry changes the offer or RFQ named by the path value idParam,
// and answers it as view renders it.
func updateEntry[T any](s *Server, w http.ResponseWriter, r *http.Request, p venue.Principal, idParam string,
	update func(*trading.Service, context.Context, venue.Principal, string, trading.ChangeInput) (trading.OfferView, error),
	view func(trading.OfferView) T) error {
	var body changeBody
	if err := entity(r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	v, err := update(s.use(r), r.Context(), p, r.PathValue(idParam), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view(v))
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
	writeList(w, r, l.Items, l.Next, func(t trading.TradeView) wire.TradeNested { return wire.TradeNestedOf(t) })
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
	evs, err := s.live.Events(r.Context(), p, after, limit)
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

func (s *Server) allocateTrade(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	var body struct {
		Allocations []struct {
			AccountID *string     `json:"account_id"`
			Quantity  amountInput `json:"quantity"`
		} `json:"allocations"`
	}
	if err := decode(r, &body); err != nil {
		return err
	}
	var f fields
	var parts []trading.AllocationInput
	if body.Allocations != nil {
		parts = make([]trading.AllocationInput, len(body.Allocations))
		for i, a := range body.Allocations {
			f.decimal(fmt.Sprintf("allocations[%d].quantity", i), a.Quantity.decimalInput, false)
			parts[i] = trading.AllocationInput{AccountID: a.AccountID, Quantity: a.Quantity.ptr()}
		}
	}
	if err := f.v.Err(); err != nil {
		return err
	}
	a, err := s.use(r).AllocateTrade(r.Context(), p, r.PathValue("tradeId"), parts)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.AllocationOf(a))
	return nil
}

func (s *Server) listAllocations(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	page, err := pageParams(r.URL.Query())
	if err != nil {
		return err
	}
	l, err := s.use(r).Allocations(r.Context(), p, page)
	if err != nil {
		return err
	}
	writeList(w, r, l.Items, l.Next, wire.AllocationOf)
	return nil
}
