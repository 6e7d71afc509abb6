package sequencer

import (
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/transparency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's state: the books, the open records, the
// reference data it trades on, the small types of its fields, and the
// questions about them that every command asks (who may trade with whom,
// which CSDs settle together, which markets are continuous). rebuild.go
// loads it from the database.

// bookKey names one order book.
type bookKey struct{ market, instrument string }

// State is everything the sequencer owns. Commands read and change it
// through its methods, on the sequencer's goroutine only.
type State struct {
	now        time.Time
	books      map[bookKey]*matching.Book
	open       *openStore                         // open offers, quotes and RFQs (open.go)
	otc        map[string]map[string]*venue.Offer // instrument → open firm offers on OTC markets
	recipients map[string]map[string]bool         // open RFQ → recipient → declined
	rfqOwner   map[string]string                  // RFQ → requester participant
	quotes     map[string]map[string]string       // open RFQ → dealer → its open quote
	used       map[string]udecimal.Decimal        // open offer+quote quantity per participant
	usedUser   map[string]udecimal.Decimal        // … per user
	limits     map[string]map[string]udecimal.Decimal
	cps        map[[2]string]bool
	// settlement answers which CSDs can settle together; csds numbers the
	// CSDs for the books (book.go), "" (unknown) as 0.
	settlement  *venue.Settlement
	csds        interner
	markets     map[string]venue.Market
	instruments map[string]venue.Instrument
	refVersion  int64 // the database's reference version the reference data is of
	bonds       map[string]bondmath.Bond
	priority    uint64
	expiries    expiryHeap
	fills       []matching.Fill
	// The books speak integers (matching.Order): every firm offer in a
	// continuous book has a book id, and participants and users a number,
	// interned here at the engine's edge (book.go).
	bookIDs    map[string]uint64 // offer id → book id, while it is in a book
	booked     map[uint64]string // book id → the offer's id
	lastBookID uint64
	parties    interner // participant and user ids
	// tops are what each book's last price_change said; lasts its latest
	// trade (price_change events, prices.go).
	tops  map[bookKey]bookTop
	lasts map[bookKey]*lastTrade
	// ladders are what each book's last instrument.depth said
	// (depth.go); depthBuf is the books' answer, reused.
	ladders  map[bookKey]bookLadder
	depthBuf []matching.Order
	// The pre-trade controls (controls.go): each instrument's
	// latest trade on any market, the valid indicative prices by
	// instrument, the firms' kill switches and the halts.
	lastPrints map[string]printAt
	indicative map[string]map[string]*indicativeQuote
	killed     map[string]store.KillSwitch
	halts      map[bookKey]venue.Halt
	// portfolios are the open portfolio RFQs (portfolio.go).
	portfolios map[string]*venue.PortfolioRFQ
	// The public tape (publish.go): the deferral table, the venue's MIC,
	// the trades not yet published in full and their next due times.
	deferrals *transparency.Table
	mic       string
	// leis are the participants' LEIs, for the order records.
	leis map[string]string
	// listSeen is, for each open portfolio list, the status of each of its
	// quotes at its last records (orderrecords_lists.go).
	listSeen     map[string]map[string]string
	pending      map[string]*pending
	publications publicationHeap
	// announced are the phases last announced of the markets with trading
	// hours; phaseDue the next change of any market's phase (zero: none)
	// (phases.go).
	announced map[string]venue.Phase
	phaseDue  time.Time
}

// printAt is an instrument's latest trade, any market.
type printAt struct {
	price udecimal.Decimal
	at    time.Time
}

// indicativeQuote is one indicative price as the collar reads it.
type indicativeQuote struct {
	bid, ask   *udecimal.Decimal
	updated    time.Time
	validUntil *time.Time
}

// lastTrade is a book's latest trade.
type lastTrade struct{ price, quantity udecimal.Decimal }

// bookTop is what the last price_change of a book said.
type bookTop struct {
	bid, ask *feed.LimitEntry
	last     *lastTrade
}

// bookLadder is what the last instrument.depth of a book said, and on a
// continuous book the book's orders behind each entry.
type bookLadder struct {
	bid, ask             []feed.LimitEntry
	bidOrders, askOrders []matching.Order
}

// pending is a trade whose price or volume is not yet published.
type pending struct {
	trade venue.Trade
	isin  string
}

// settles refuses a trade between offers a and b whose CSDs cannot settle
// with each other (docs/guide.md, "Settlement compatibility").
func (st *State) settles(a, b *venue.Offer) error {
	return st.compatible(st.settlement.OfferCSD(a), st.settlement.OfferCSD(b))
}

// settlesAccounts is settles for two firms' accounts (a portfolio list's
// and a quote's, which name no provider).
func (st *State) settlesAccounts(partA, accA, partB, accB string) error {
	return st.compatible(st.settlement.CSD(partA, accA, ""), st.settlement.CSD(partB, accB, ""))
}

func (st *State) compatible(ca, cb string) error {
	if !st.settlement.Compatible(ca, cb) {
		return venue.IncompatibleCSDs(ca, cb)
	}
	return nil
}

// eligible reports whether a and b are enabled counterparties of each
// other.
func (st *State) eligible(a, b string) bool {
	return a != b && st.cps[[2]string{a, b}] && st.cps[[2]string{b, a}]
}

func (st *State) continuous(marketID string) bool {
	return st.markets[marketID].FacilityType == venue.FacilityContinuous
}
