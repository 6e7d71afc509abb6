package sequencer

import (
	"container/heap"
	"fmt"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's commands for firm offers, and for quotes
// as records of their own: create, amend, cancel. Each runs on the engine
// goroutine against *State; each checks first and changes second.

// continuousSettlement is the settlement date of a book trade: the resting
// offer's, but never before the trade date plus the market's lag.
func (st *State) continuousSettlement(resting *venue.Offer) bondmath.Date {
	m := st.markets[resting.MarketID]
	today := m.TradeDate(st.now)
	std := bondmath.TARGET2.AddBusinessDays(today, m.LagOn(today))
	if resting.SettlementDate.Before(std) {
		return std
	}
	return resting.SettlementDate
}

// CreateOffer adds a firm offer: on a continuous market it matches first.
func (st *State) CreateOffer(b *Batch, o *venue.Offer) (OfferResult, error) {
	res, err := st.createOffer(b, o)
	if err != nil {
		st.rejected(b, o, err)
	}
	return res, err
}

func (st *State) createOffer(b *Batch, o *venue.Offer) (OfferResult, error) {
	if _, ok := st.markets[o.MarketID]; !ok {
		return OfferResult{}, venue.NotFound("market")
	}
	if err := st.checkNew(o); err != nil {
		return OfferResult{}, err
	}
	if err := st.checkRisk(o, o.Price, o.Quantity, o.Quantity); err != nil {
		return OfferResult{}, err
	}
	// Time priority is venue-wide, not the book's own sequence number: it
	// orders the book on rebuild and instrument_limits across markets.
	st.prioritize(o)
	o.CreatedAt, o.UpdatedAt, o.ModifiedAt = st.now, st.now, st.now
	o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
	var res OfferResult
	if !st.continuous(o.MarketID) {
		o.Status = venue.StatusCreated
		st.rest(o)
		st.emit(b, o, "create")
		st.record(b, o, records.New)
		res.Offer = *o
		return res, nil
	}
	bo, err := st.bookOrder(o)
	if err != nil {
		st.forgetBookID(o)
		return OfferResult{}, err
	}
	r, err := st.book(o.MarketID, o.InstrumentID).AddInto(&bo, st.fills[:0])
	if err != nil {
		st.forgetBookID(o)
		return OfferResult{}, bookRefused(o, err)
	}
	st.fills = r.Fills
	o.Status = venue.StatusCreated
	st.emit(b, o, "create")
	st.record(b, o, records.New)
	res.Trades = st.applyFills(b, o, r)
	res.Offer = *o
	return res, nil
}

// applyFills books the fills of an incoming (new or re-entered) offer and
// settles its final state.
func (st *State) applyFills(b *Batch, o *venue.Offer, r matching.Result) []venue.Trade {
	var trades []venue.Trade
	b.aggressor = o.ID
	for _, f := range r.Fills {
		resting := st.bookedOffer(f.RestingID)
		qty := f.Quantity.Decimal()
		resting.Filled = f.RestingFilled.Decimal()
		st.addUse(resting, qty.Neg())
		o.Filled = o.Filled.Add(qty)
		if o.Type == venue.TypeOffer && st.open.has(o.ID) {
			st.addUse(o, qty.Neg()) // an amended offer already counted
		}
		ask, bid := resting, o
		if o.Direction == venue.Ask {
			ask, bid = o, resting
		}
		trades = append(trades, st.trade(b, ask, bid, qty, f.Price.Decimal(), st.continuousSettlement(resting), venue.ExecutionContinuous))
		resting.ModifiedAt = st.now
		if !resting.Remaining().IsPos() {
			resting.Status = venue.StatusClosed
			st.unlist(resting)
			st.emit(b, resting, "update")
		} else {
			st.emit(b, resting, "update")
		}
	}
	wasOpen := st.open.has(o.ID)
	switch r.Status {
	case matching.StatusResting:
		o.Status = venue.StatusCreated
		if !wasOpen {
			st.rest(o)
		}
	case matching.StatusFilled:
		o.Status = venue.StatusClosed
		if wasOpen {
			st.addUse(o, o.Remaining().Neg())
			st.unlist(o)
		}
		st.forgetBookID(o)
	default: // the unfilled rest of a market or all-or-none order is cancelled
		o.Status = venue.StatusCancelled
		if wasOpen {
			st.addUse(o, o.Remaining().Neg())
			st.unlist(o)
		}
		st.forgetBookID(o)
	}
	if len(r.Fills) > 0 || r.Status != matching.StatusResting {
		st.emit(b, o, "update")
	}
	if o.Status == venue.StatusCancelled { // its validity is over: what did not fill at once expires
		st.record(b, o, records.Expired)
	}
	return trades
}

// AmendOffer changes an open offer or quote of the caller's firm.
func (st *State) AmendOffer(b *Batch, p venue.Principal, id string, ch OfferChange) (OfferResult, error) {
	res, err := st.amendOffer(b, p, id, ch)
	if o := st.open.get(id); err != nil && o != nil && o.ParticipantID == p.ParticipantID {
		st.rejected(b, o, err)
	}
	return res, err
}

func (st *State) amendOffer(b *Batch, p venue.Principal, id string, ch OfferChange) (OfferResult, error) {
	o := st.open.get(id)
	if o == nil || o.ParticipantID != p.ParticipantID || o.Type == venue.TypeRFQ {
		return OfferResult{}, ErrNotOpen
	}
	if o.Type == venue.TypeQuote { // a quote keeps the request's quantity and settlement date
		if rfq := st.open.get(o.MatchedOfferID); rfq != nil && !st.eligible(rfq.ParticipantID, o.ParticipantID) {
			return OfferResult{}, errNotCounterparties
		}
		var v venue.Validator
		v.Check(ch.Quantity == nil || ch.Quantity.Equal(o.Quantity), "quantity", "a quote's quantity is the request's "+o.Quantity.String())
		v.Check(ch.SettlementDate == nil || *ch.SettlementDate == o.SettlementDate, "settlement_date",
			"a quote settles on the request's settlement date "+o.SettlementDate.String())
		if err := v.Err(); err != nil {
			return OfferResult{}, err
		}
	}
	newQty, newPrice := o.Quantity, o.Price
	if ch.Quantity != nil {
		newQty = *ch.Quantity
		// docs/guide.md, "Trading": the new total is ≥ filled_quantity; equal closes the
		// offer as filled.
		if newQty.LessThan(o.Filled) {
			return OfferResult{}, venue.InvalidField("quantity", fmt.Sprintf("must not be below the filled quantity %s", o.Filled))
		}
	}
	if ch.Price != nil {
		if o.MarketOrder {
			return OfferResult{}, venue.InvalidField("price_per_unit", "a market order has no price")
		}
		newPrice = *ch.Price
	}
	lost := !newPrice.Equal(o.Price) || newQty.GreaterThan(o.Quantity) // time priority
	if lost {                                                          // a halt refuses what could trade; a cut in quantity cannot
		if err := st.checkOpen(o.MarketID, o.InstrumentID); err != nil {
			return OfferResult{}, err
		}
	}
	if !newPrice.Equal(o.Price) {
		if err := st.checkCollar(o, newPrice); err != nil {
			return OfferResult{}, err
		}
	}
	newRemaining := newQty.Sub(o.Filled)
	if err := st.checkRisk(o, newPrice, newRemaining, newRemaining.Sub(o.Remaining())); err != nil {
		return OfferResult{}, err
	}
	var r matching.Result
	book := o.Type == venue.TypeOffer && st.continuous(o.MarketID)
	if book { // the last check, and the first change: the book amends or refuses
		id, ok := st.bookIDs[o.ID]
		if !ok {
			return OfferResult{}, bookRefused(o, matching.ErrNotFound)
		}
		price, err := bookFixed("price_per_unit", newPrice)
		if err != nil {
			return OfferResult{}, err
		}
		qty, err := bookFixed("quantity", newQty)
		if err != nil {
			return OfferResult{}, err
		}
		if r, err = st.book(o.MarketID, o.InstrumentID).AmendInto(id, price, qty, st.fills[:0]); err != nil {
			return OfferResult{}, bookRefused(o, err)
		}
		st.fills = r.Fills
	}
	if ch.SettlementDate != nil {
		o.SettlementDate = *ch.SettlementDate
	}
	if ch.Validity != nil {
		o.Validity = *ch.Validity
		o.ValidUntil = nil
	}
	if ch.ValidUntil != nil {
		vu := *ch.ValidUntil
		o.ValidUntil = &vu
		heap.Push(&st.expiries, expiry{at: vu, id: o.ID})
	}
	if ch.Notes != nil {
		o.Notes = *ch.Notes
	}
	if ch.ClientOrderID != nil {
		o.ClientOrderID = *ch.ClientOrderID
	}
	if ch.Parties != nil {
		o.Parties = *ch.Parties
	}
	o.ModifiedAt = st.now
	var res OfferResult
	if book {
		st.addUse(o, newRemaining.Sub(o.Remaining()))
		o.Quantity, o.Price = newQty, newPrice
		if lost {
			st.prioritize(o)
		}
		o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
		st.emit(b, o, "update")
		st.record(b, o, records.ReplacedByMember)
		res.Trades = st.applyFills(b, o, r)
		res.Offer = *o
		return res, nil
	}
	if lost {
		st.prioritize(o)
	}
	st.addUse(o, newRemaining.Sub(o.Remaining()))
	o.Quantity, o.Price = newQty, newPrice
	o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
	if !o.Remaining().IsPos() { // amended down to what is filled: done
		o.Status = venue.StatusClosed
		st.unlist(o)
	}
	st.emit(b, o, "update")
	st.record(b, o, records.ReplacedByMember)
	b.aggressor = o.ID
	if rfq := st.open.get(o.MatchedOfferID); o.Type == venue.TypeQuote && rfq != nil && ch.Price != nil && o.Open() && executable(rfq, o) &&
		st.settles(rfq, o) == nil {
		res.Trades = []venue.Trade{st.execute(b, rfq, o)} // its new price meets an executable request's limit
	}
	res.Offer = *o
	return res, nil
}

// CancelOffer ends an offer or quote: its owner cancels it; the requester
// of the RFQ a quote answers rejects it.
func (st *State) CancelOffer(b *Batch, p venue.Principal, id, clientOrderID string) (OfferResult, error) {
	o := st.open.get(id)
	if o == nil || o.Type == venue.TypeRFQ {
		return OfferResult{}, ErrNotOpen
	}
	switch {
	case o.ParticipantID == p.ParticipantID:
		if clientOrderID != "" {
			o.ClientOrderID = clientOrderID
		}
		st.close(b, o, venue.StatusCancelled)
	case o.Type == venue.TypeQuote && st.rfqOwner[o.MatchedOfferID] == p.ParticipantID:
		st.close(b, o, venue.StatusRejected)
	default:
		return OfferResult{}, ErrNotOpen
	}
	return OfferResult{Offer: *o}, nil
}
