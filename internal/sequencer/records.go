package sequencer

import (
	"container/heap"
	"slices"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the life of an open offer, quote or RFQ that every
// command shares: the commands' answer, how a record is listed and rests,
// how it closes, and how each change is saved with its event.

// OfferResult is a command's answer: the record and the trades it made.
type OfferResult struct {
	Offer  venue.Offer
	Trades []venue.Trade
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
	// Parties replace the record's parties as a whole.
	Parties *venue.Parties
}

// Accept is a requester's accept of a quote as a use case hands it to the
// sequencer: the quote it takes and the identifiers the requester gave with
// it for the accept's order record (as given; venue.Parties.Defaults says
// what a record shows for one not given). The accept keeps them nowhere
// else: the command that applies it has them.
type Accept struct {
	QuoteID string
	Parties venue.Parties
}

var ErrNotOpen = venue.NotFound("open offer")

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
	st.record(b, o, b.ended(status))
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

// prioritize gives o the next time priority, taken now.
func (st *State) prioritize(o *venue.Offer) {
	st.priority++
	o.Priority, o.PriorityAt = st.priority, st.now
}
