package sequencer

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's commands for offers, RFQs and quotes.
// Each runs on the engine goroutine against *State; each checks first and
// changes second.

// centDigits is the precision of cash amounts: accrued interest and
// settlement amounts are rounded half away from zero to the currency's
// minor unit (the venue lists EUR bonds: cents), as settlement
// instructions carry them. Prices and per-100 figures are never rounded.
const centDigits = 2

// accrued is the accrued interest amount of quantity nominal of an
// instrument settling on settle, in cents (zero when the instrument has no
// priceable terms).
func (st *State) accrued(instrumentID string, settle bondmath.Date, quantity udecimal.Decimal) udecimal.Decimal {
	b, ok := st.bonds[instrumentID]
	if !ok {
		return udecimal.Zero
	}
	r, err := bondmath.Accrued(b, settle)
	if err != nil {
		return udecimal.Zero
	}
	return bondmath.AccruedAmount(r.PerHundred, quantity).RoundHAZ(centDigits)
}

// kind is the event name prefix of a record type.
func kind(o *venue.Offer) string {
	switch o.Type {
	case venue.TypeRFQ:
		return "rfq"
	case venue.TypeQuote:
		return "quote"
	}
	return "offer"
}

// audience lists who besides the owner may read o's events.
func (st *State) audience(o *venue.Offer) []string {
	switch o.Type {
	case venue.TypeRFQ:
		var out []string
		for p := range st.recipients[o.ID] {
			out = append(out, p)
		}
		return out
	case venue.TypeQuote:
		if owner, ok := st.rfqOwner[o.MatchedOfferID]; ok {
			return []string{owner}
		}
	}
	return nil
}

// emit saves o and records its event (create, update or delete).
func (st *State) emit(b *Batch, o *venue.Offer, verb string) {
	o.UpdatedAt = st.now
	b.save(o)
	rec := *o
	rec.Counterparties = slices.Clone(o.Counterparties)
	b.event(feed.Event{Type: kind(o) + "." + verb, Offer: &rec, Owner: o.ParticipantID, Audience: st.audience(o)})
}

// close takes o out of the open set with a final status.
func (st *State) close(b *Batch, o *venue.Offer, status string) {
	if o.Type != venue.TypeRFQ {
		st.addUse(o, o.Remaining().Neg())
	}
	if id, ok := st.bookIDs[o.ID]; ok && o.Type == venue.TypeOffer && st.continuous(o.MarketID) {
		_, _ = st.book(o.MarketID, o.InstrumentID).Cancel(id)
	}
	o.Status = status
	if o.Type == venue.TypeQuote && o.Outcome == "" {
		o.Outcome = quoteOutcome[status]
	}
	st.unlist(o)
	verb := "update"
	if status == venue.StatusCancelled || status == venue.StatusRejected || status == venue.StatusExpired {
		verb = "delete"
	}
	st.emit(b, o, verb)
}

// quoteOutcome is the outcome of a quote that ends with a status, unless
// the command that ends it decided another (an accept, a decline, the
// request's cancel or expiry).
var quoteOutcome = map[string]string{
	venue.StatusClosed:    venue.OutcomeDone,
	venue.StatusCancelled: venue.OutcomeWithdrawn,
	venue.StatusRejected:  venue.OutcomePassed,
	venue.StatusExpired:   venue.OutcomeExpired,
}

// list makes o one of the open records; unlist takes it out. A firm offer
// on an OTC market, which rests in no book, is also indexed by instrument
// for bookEntries.
func (st *State) list(o *venue.Offer) {
	continuous := o.Type == venue.TypeOffer && st.continuous(o.MarketID)
	st.open.put(o, continuous) // only a continuous book's offers go cold: st.otc points to the others
	if o.Type == venue.TypeOffer && !continuous {
		if st.otc[o.InstrumentID] == nil {
			st.otc[o.InstrumentID] = map[string]*venue.Offer{}
		}
		st.otc[o.InstrumentID][o.ID] = o
	}
}

func (st *State) unlist(o *venue.Offer) {
	st.open.del(o.ID)
	st.forgetBookID(o)
	if m := st.otc[o.InstrumentID]; m != nil {
		delete(m, o.ID)
		if len(m) == 0 {
			delete(st.otc, o.InstrumentID)
		}
	}
}

// rest makes o open: counted against limits, scheduled for expiry.
func (st *State) rest(o *venue.Offer) {
	st.list(o)
	if o.Type != venue.TypeRFQ {
		st.addUse(o, o.Remaining())
	}
	if o.ValidUntil != nil {
		heap.Push(&st.expiries, expiry{at: *o.ValidUntil, id: o.ID})
	}
}

func (st *State) nextPriority() uint64 {
	st.priority++
	return st.priority
}

// trade records a fill between an ask and a bid at a clean price.
func (st *State) trade(b *Batch, ask, bid *venue.Offer, qty, price udecimal.Decimal, settle bondmath.Date, exec string) venue.Trade {
	return st.tradeIn(b, ask, bid, qty, price, settle, exec, "")
}

// tradeIn is trade for a line of the portfolio RFQ portfolioID ("" for
// none).
func (st *State) tradeIn(b *Batch, ask, bid *venue.Offer, qty, price udecimal.Decimal, settle bondmath.Date, exec, portfolioID string) venue.Trade {
	acc := st.accrued(ask.InstrumentID, settle, qty)
	t := venue.Trade{ID: newID(), MarketID: ask.MarketID, InstrumentID: ask.InstrumentID, Status: "successful",
		Quantity: qty, PricePerUnit: price, AccruedInterest: acc,
		SettlementAmount: bondmath.SettlementAmount(qty, price, udecimal.Zero).RoundHAZ(centDigits).Add(acc), Fee: udecimal.Zero,
		SettlementDate: settle, ExecutionType: exec, PortfolioRFQID: portfolioID, CreatedAt: st.now, UpdatedAt: st.now}
	t.TransactionIdentificationCode = "BV" + strings.ToUpper(strings.ReplaceAll(t.ID, "-", ""))
	order := func(o *venue.Offer) venue.Order {
		return venue.Order{ID: newID(), OfferID: o.ID, Direction: o.Direction, ParticipantID: o.ParticipantID,
			AccountID: o.AccountID, MarketID: o.MarketID, InstrumentID: o.InstrumentID, Quantity: o.Quantity,
			PricePerUnit: price, Filled: o.Filled, Status: "internally_approved", Type: "limit_order",
			ExpiresAt: o.ExpiresAt(), CreatedAt: st.now, UpdatedAt: st.now}
	}
	t.AskOrder, t.BidOrder = order(ask), order(bid)
	st.publish(&t)
	b.trades = append(b.trades, t)
	st.lastPrints[t.InstrumentID] = printAt{price: price, at: st.now}
	rec := t
	b.event(feed.Event{Type: feed.EventTradeCreate, Trade: &rec, Owner: ask.ParticipantID, Audience: []string{bid.ParticipantID}})
	st.tapeNew(b, t)
	b.traded(t)
	return t
}

// continuousSettlement is the settlement date of a book trade: the resting
// offer's, but never before the trade date plus the market's lag.
func (st *State) continuousSettlement(resting *venue.Offer) bondmath.Date {
	m := st.markets[resting.MarketID]
	today := bondmath.DateOf(st.now)
	std := bondmath.TARGET2.AddBusinessDays(today, m.LagOn(today))
	if resting.SettlementDate.Before(std) {
		return std
	}
	return resting.SettlementDate
}

// OfferResult is a command's answer: the record and the trades it made.
type OfferResult struct {
	Offer  venue.Offer
	Trades []venue.Trade
}

// CreateOffer adds a firm offer: on a continuous market it matches first.
func (st *State) CreateOffer(b *Batch, o *venue.Offer) (OfferResult, error) {
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
	o.Priority = st.nextPriority()
	o.CreatedAt, o.UpdatedAt, o.ModifiedAt = st.now, st.now, st.now
	o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
	var res OfferResult
	if !st.continuous(o.MarketID) {
		o.Status = venue.StatusCreated
		st.rest(o)
		st.emit(b, o, "create")
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
	res.Trades = st.applyFills(b, o, r)
	res.Offer = *o
	return res, nil
}

// applyFills books the fills of an incoming (new or re-entered) offer and
// settles its final state.
func (st *State) applyFills(b *Batch, o *venue.Offer, r matching.Result) []venue.Trade {
	var trades []venue.Trade
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
	return trades
}

// OfferChange is an amendment; nil fields are unchanged.
type OfferChange struct {
	Price          *udecimal.Decimal
	Quantity       *udecimal.Decimal // new total quantity
	SettlementDate *bondmath.Date
	Validity       *string
	ValidUntil     *time.Time
	Notes          *string
	ClientOrderID  *string
}

// AmendOffer changes an open offer or quote of the caller's firm.
func (st *State) AmendOffer(b *Batch, p venue.Principal, id string, ch OfferChange) (OfferResult, error) {
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
		if err := st.checkHalt(o.MarketID, o.InstrumentID); err != nil {
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
	o.ModifiedAt = st.now
	var res OfferResult
	if book {
		st.addUse(o, newRemaining.Sub(o.Remaining()))
		o.Quantity, o.Price = newQty, newPrice
		if lost {
			o.Priority = st.nextPriority()
		}
		o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
		st.emit(b, o, "update")
		res.Trades = st.applyFills(b, o, r)
		res.Offer = *o
		return res, nil
	}
	if lost {
		o.Priority = st.nextPriority()
	}
	st.addUse(o, newRemaining.Sub(o.Remaining()))
	o.Quantity, o.Price = newQty, newPrice
	o.AccruedInterest = st.accrued(o.InstrumentID, o.SettlementDate, o.Quantity)
	if !o.Remaining().IsPos() { // amended down to what is filled: done
		o.Status = venue.StatusClosed
		st.unlist(o)
	}
	st.emit(b, o, "update")
	if rfq := st.open.get(o.MatchedOfferID); o.Type == venue.TypeQuote && rfq != nil && ch.Price != nil && o.Open() && executable(rfq, o) &&
		st.settles(rfq, o) == nil {
		res.Trades = []venue.Trade{st.execute(b, rfq, o)} // its new price meets an executable request's limit
	}
	res.Offer = *o
	return res, nil
}

var ErrNotOpen = venue.NotFound("open offer")

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

// BookEntries returns the open firm offers that can show in the
// instruments' instrument_limits, in time priority, without participant
// names: of every continuous book the best depth orders per side (all when
// depth <= 0), which hold the instrument's best depth across its markets,
// and every firm offer resting on an OTC market; of market only, unless it
// is "". It answers from the
// sequencer's books once the batch it joins has committed, so it shows
// nothing that is not durable; ok is false when the sequencer is not
// running. The caller must not hold a write transaction: on SQLite the
// sequencer commits through the one writer (see store.DB.SequencerTx).
func (e *Sequencer) BookEntries(ctx context.Context, instrumentIDs []string, market string, depth int) (entries []store.BookEntry, ok bool, err error) {
	if !e.running.Load() {
		return nil, false, nil
	}
	v, err := e.Do(WithPriority(ctx), nil, func(st *State, b *Batch) (any, error) {
		out := []store.BookEntry{}
		add := func(o *venue.Offer) {
			out = append(out, store.BookEntry{OfferID: o.ID, InstrumentID: o.InstrumentID, MarketID: o.MarketID,
				Direction: o.Direction, Price: venue.Offer{Price: o.Price, HasPrice: o.HasPrice, Quantity: o.Quantity, Filled: o.Filled},
				ParticipantID: o.ParticipantID, MarketOrder: o.MarketOrder, Priority: o.Priority, AccountID: o.AccountID,
				SettlementProviderID: o.SettlementProviderID})
		}
		var orders []matching.Order
		for _, id := range instrumentIDs {
			for m := range st.markets { // an offer may outlive its market's listing
				if market != "" && m != market {
					continue
				}
				book := st.books[bookKey{m, id}]
				if book == nil {
					continue
				}
				orders = book.AppendDepth(book.AppendDepth(orders[:0], matching.Bid, depth), matching.Ask, depth)
				for _, bo := range orders {
					if o := st.bookedOffer(bo.ID); o != nil {
						add(o)
					}
				}
			}
			for _, o := range st.otc[id] {
				if market == "" || o.MarketID == market {
					add(o)
				}
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
		return out, nil
	})
	if err != nil {
		return nil, true, err
	}
	return v.([]store.BookEntry), true, nil
}
