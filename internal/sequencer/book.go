package sequencer

import (
	"fmt"
	"math"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is the engine's edge with the books (internal/matching), which
// speak integers: a firm offer in a continuous book is known there by a
// book id the engine assigns, participants and users by numbers the engine
// interns, prices and quantities as matching.Fixed converted exactly from
// the offer's decimals.

// bookID returns o's book id, assigning the next one on first use.
func (st *State) bookID(o *venue.Offer) uint64 {
	if id, ok := st.bookIDs[o.ID]; ok {
		return id
	}
	st.lastBookID++
	id := st.lastBookID
	st.bookIDs[o.ID] = id
	st.booked[id] = o.ID
	return id
}

// bookedOffer returns the open offer of a book id, or nil.
func (st *State) bookedOffer(id uint64) *venue.Offer {
	oid, ok := st.booked[id]
	if !ok {
		return nil
	}
	return st.open.get(oid)
}

// forgetBookID drops o's book id once o is in no book.
func (st *State) forgetBookID(o *venue.Offer) {
	if id, ok := st.bookIDs[o.ID]; ok {
		delete(st.booked, id)
		delete(st.bookIDs, o.ID)
	}
}

// party returns the number of a participant or user id, interning it on
// first sight. Numbers are kept for the state's life: a venue has few.
func (st *State) party(id string) uint32 { return st.parties.number(id) }

// eligibleParties is eligible for participant numbers: the books'
// matching.Config.Eligible.
func (st *State) eligibleParties(a, b uint32) bool {
	return st.eligible(st.parties.name(a), st.parties.name(b))
}

// csdNumber returns the books' number of the CSD o settles at: 0 when
// unknown (or beyond the books' range, which no venue reaches).
func (st *State) csdNumber(o *venue.Offer) uint16 {
	csd := st.settlement.OfferCSD(o)
	if csd == "" {
		return 0
	}
	n := st.csds.number(csd)
	if n > math.MaxUint16 {
		return 0
	}
	return uint16(n)
}

// settlesNumbers is settles for the books' CSD numbers:
// matching.Config.Settles.
func (st *State) settlesNumbers(a, b uint16) bool {
	return st.settlement.Compatible(st.csds.name(uint32(a)), st.csds.name(uint32(b)))
}

// bookFixed returns d as the books' fixed point, or an invalid-field error
// when it does not fit (negative or beyond ~3.4·10^19: never after the
// venue's own validation, which bounds amounts to 18 integer digits).
func bookFixed(field string, d udecimal.Decimal) (matching.Fixed, error) {
	f, ok := matching.FixedOf(d)
	if !ok {
		return matching.Fixed{}, venue.InvalidField(field, fmt.Sprintf("%s is beyond the order book's range", d))
	}
	return f, nil
}

// bookOrder returns o as its book sees it, assigning o its book id.
func (st *State) bookOrder(o *venue.Offer) (matching.Order, error) {
	bo := matching.Order{Side: matching.Bid, Market: o.MarketOrder, Seq: o.Priority}
	if o.Direction == venue.Ask {
		bo.Side = matching.Ask
	}
	var err error
	if !o.MarketOrder {
		if bo.Price, err = bookFixed("price_per_unit", o.Price); err != nil {
			return matching.Order{}, err
		}
	}
	if bo.Quantity, err = bookFixed("quantity", o.Quantity); err != nil {
		return matching.Order{}, err
	}
	if bo.Filled, err = bookFixed("filled_quantity", o.Filled); err != nil {
		return matching.Order{}, err
	}
	bo.ID = st.bookID(o)
	bo.Participant, bo.User, bo.Settlement = st.party(o.ParticipantID), st.party(o.UserID), st.csdNumber(o)
	return bo, nil
}

// bookRefused is the error for a command the book refused: the engine
// checks first, so this names the offer and passes on the book's reason.
func bookRefused(o *venue.Offer, err error) error {
	return venue.Invalid(fmt.Sprintf("offer %s: %v", o.ID, err))
}

func (st *State) book(market, instrument string) *matching.Book {
	k := bookKey{market, instrument}
	b := st.books[k]
	if b == nil {
		b = matching.New(matching.Config{AllOrNone: !st.markets[market].IsPartialFillAllowed, Eligible: st.eligibleParties, Settles: st.settlesNumbers})
		st.books[k] = b
	}
	return b
}
