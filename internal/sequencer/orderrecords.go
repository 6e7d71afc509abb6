package sequencer

import (
	"errors"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/records"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file writes the order records (internal/records): every command
// that enters, changes, fills or ends an order adds the record of that
// event to its batch, which commits it with the event itself. Who made a
// change — the member, the venue's staff, or the venue on its own — is
// the batch's actor while the command runs.

// actor is who makes the changes of the command being applied.
type actor uint8

const (
	byMember   actor = iota // the order's firm (its traders, its own kill switch)
	byOperator              // the venue's staff: its kill switch, cancel on disconnect
)

// Pseudo record types: orders the records name that are not offers of
// their own (an accept, a portfolio list's line, a dealer's price for it).
const (
	typeAccept    = "accept"
	typeList      = "list"
	typeListQuote = "list_quote"
)

// record adds o's record of event to the batch and returns it, for the
// caller to add a fill's fields.
func (st *State) record(b *Batch, o *venue.Offer, event string) *records.Record {
	in := st.instruments[o.InstrumentID]
	p := o.Parties
	if p.Capacity == "" {
		p.Capacity = records.Dealing
	}
	if p.ExecutionDecision == "" {
		p.ExecutionDecision = o.UserID
	}
	r := records.Record{SubmittingEntity: st.leis[o.ParticipantID], ClientID: p.ClientID, InvestmentDecision: p.InvestmentDecision,
		ExecutionDecision: p.ExecutionDecision, Capacity: p.Capacity, EventTime: st.now, Validity: validity(o), ValidUntil: o.ValidUntil,
		PriorityTime: o.PriorityAt, PrioritySize: o.Remaining(), SegmentMIC: st.mic, OrderBook: o.MarketID, ISIN: in.Terms.ISIN,
		OrderID: o.ID, Event: event, OrderType: orderType(o), Classification: records.LimitOrder,
		LimitPrice: o.Price, HasLimit: o.HasPrice && !o.MarketOrder, PriceCurrency: in.Terms.Currency, Side: side(o.Direction),
		QuantityCurrency: in.Terms.Currency, InitialQuantity: o.Quantity, RemainingQuantity: o.Remaining(),
		ParticipantID: o.ParticipantID, UserID: o.UserID, MarketID: o.MarketID, InstrumentID: o.InstrumentID,
		Resting: o.Type == venue.TypeOffer && st.continuous(o.MarketID)}
	if !o.CreatedAt.IsZero() {
		r.ReceivedOn = o.CreatedAt.UTC().Format("2006-01-02")
	} else {
		r.ReceivedOn = st.now.Format("2006-01-02")
	}
	r.Live = o.Open() && o.Remaining().IsPos() && event != records.Rejected && event != records.Filled
	if r.Resting && r.Live {
		r.DisplayedQuantity = o.Remaining()
	}
	if !r.Live {
		r.PriorityTime, r.PrioritySize = o.PriorityAt, udecimal.Zero
		if event != records.Rejected {
			r.RemainingQuantity = udecimal.Zero
		}
	}
	r.Status = orderStatus(o, r.Live)
	r.TradingPhase = st.recordPhase(o.MarketID, o.InstrumentID)
	b.records = append(b.records, r)
	return &b.records[len(b.records)-1]
}

// ByVenue marks the changes of the command being applied as the venue's
// staff's (its kill switch, a cancel on disconnect) in the order records.
func (b *Batch) ByVenue() { b.by = byOperator }

// cancelled is the code of an order ended by a cancel: the member's, or
// the venue's staff's.
func (b *Batch) cancelled() string {
	if b.by == byOperator {
		return records.CancelledByOperator
	}
	return records.CancelledByMember
}

// changed is the code of an order's status changed (a quote passed, a
// request done) by the member or by the venue's staff.
func (b *Batch) changed() string {
	if b.by == byOperator {
		return records.ChangedByOperator
	}
	return records.ChangedByMember
}

// ended is the code of an order ending with status.
func (b *Batch) ended(status string) string {
	switch status {
	case venue.StatusCancelled:
		return b.cancelled()
	case venue.StatusExpired:
		return records.Expired
	}
	return b.changed()
}

// recordFill adds the fill of o in t: o's filled quantity already counts
// it.
func (st *State) recordFill(b *Batch, o *venue.Offer, t *venue.Trade) {
	event := records.PartiallyFilled
	if !o.Remaining().IsPos() {
		event = records.Filled
	}
	r := st.record(b, o, event)
	r.TransactionPrice, r.TradedQuantity, r.TransactionID = t.PricePerUnit, t.Quantity, t.TransactionIdentificationCode
	r.Liquidity = "PASV"
	if o.ID == b.aggressor {
		r.Liquidity = "AGRE"
	}
}

// recordTrade adds the fills of both sides of t, the passive side's
// first. An accepted quote's request is filled through its accept; a
// traded portfolio line through the requester's accept and the dealer's
// price for the line.
func (st *State) recordTrade(b *Batch, ask, bid *venue.Offer, t *venue.Trade) {
	sides := []*venue.Offer{ask, bid}
	for i, o := range sides {
		if as, ok := b.fillsAs[o.ID]; ok {
			sides[i] = as
		}
	}
	if sides[0].ID == b.aggressor {
		sides[0], sides[1] = sides[1], sides[0]
	}
	for _, o := range sides {
		st.recordFill(b, o, t)
	}
}

// fillAs records o's fills as those of order as.
func (b *Batch) fillAs(o, as *venue.Offer) {
	if b.fillsAs == nil {
		b.fillsAs = map[string]*venue.Offer{}
	}
	b.fillsAs[o.ID] = as
}

// rejected adds the record of a refused order: o as it was asked for (a
// new one gets the id the use case gave it), with the refusal as its
// reason. An error that is not the venue's refusal (a bug, a failed
// read) and an order on an unknown instrument or market have none.
func (st *State) rejected(b *Batch, o *venue.Offer, err error) {
	var ve *venue.Error
	if !errors.As(err, &ve) || o == nil || o.ID == "" {
		return
	}
	if _, ok := st.instruments[o.InstrumentID]; !ok {
		return
	}
	if _, ok := st.markets[o.MarketID]; !ok {
		return
	}
	rec := *o
	r := st.record(b, &rec, records.Rejected)
	r.Reason = ve.Error()
	if st.open.has(o.ID) { // a refused change leaves the order as it was
		r.Live = o.Open() && o.Remaining().IsPos()
		r.PriorityTime, r.PrioritySize = o.PriorityAt, o.Remaining()
		r.Status = orderStatus(o, r.Live)
		if r.Resting && r.Live {
			r.DisplayedQuantity = o.Remaining()
		}
	}
}

// RecordRejected adds the record of an order the use case refused before
// it reached the engine (a field the request got wrong).
func (st *State) RecordRejected(b *Batch, o *venue.Offer, err error) { st.rejected(b, o, err) }

func validity(o *venue.Offer) string {
	switch {
	case o.Type == typeAccept || o.Type == venue.TypePortfolioLine:
		return records.FillOrKill
	case o.MarketOrder:
		return records.ImmediateOrCancel
	case o.ValidUntil != nil:
		return records.GoodTillTime
	}
	return records.GoodTillCancelled
}

func orderType(o *venue.Offer) string {
	switch o.Type {
	case venue.TypeQuote:
		return records.TypeQuote
	case venue.TypeRFQ:
		return records.TypeRFQ
	case typeList:
		return records.TypeList
	case typeListQuote:
		return records.TypeListQuote
	case typeAccept, venue.TypePortfolioLine:
		return records.TypeAccept
	}
	if o.MarketOrder {
		return records.TypeMarket
	}
	return records.TypeLimit
}

func orderStatus(o *venue.Offer, live bool) string {
	switch o.Type {
	case venue.TypeQuote, typeListQuote:
		return records.StatusFirm
	case venue.TypeRFQ, typeList:
		return records.StatusIndication
	}
	if live {
		return records.StatusActive
	}
	return records.StatusInactive
}

func side(direction string) string {
	if direction == venue.Bid {
		return "BUYI"
	}
	return "SELL"
}
