package sequencer

import (
	"container/heap"
	"context"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/matching"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/transparency"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the sequencer's state and its rebuild from the database:
// the books, the open records, the reference data it trades on.

// Reference is the sequencer's reference data, published for the request
// path: CreateOffer validates the instrument and market an offer names
// against it instead of reading them from the database on every request.
// It is replaced, never changed, whenever the state reloads reference data
// (at start, after a rebuild and after every operator change).
type Reference struct {
	markets     map[string]venue.Market
	instruments map[string]venue.Instrument // with their market ids
	bonds       map[string]bondmath.Bond
	version     int64 // the database's reference version
}

// publishReference makes st's reference data the request path's.
func (e *Sequencer) publishReference(st *State) {
	e.ref.Store(&Reference{markets: st.markets, instruments: st.instruments, bonds: st.bonds, version: st.refVersion})
}

// Reference returns the published reference data, or nil before start.
func (e *Sequencer) Reference() *Reference { return e.ref.Load() }

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
	deferrals    *transparency.Table
	mic          string
	pending      map[string]*pending
	publications publicationHeap
}

func (e *Sequencer) rebuild(ctx context.Context) (*State, error) {
	st := &State{books: map[bookKey]*matching.Book{}, open: newOpenStore(), otc: map[string]map[string]*venue.Offer{},
		recipients: map[string]map[string]bool{}, rfqOwner: map[string]string{}, quotes: map[string]map[string]string{}, used: map[string]udecimal.Decimal{},
		usedUser: map[string]udecimal.Decimal{}, now: e.now().UTC(), tops: map[bookKey]bookTop{}, ladders: map[bookKey]bookLadder{},
		bookIDs: map[string]uint64{}, booked: map[uint64]string{}, portfolios: map[string]*venue.PortfolioRFQ{},
		deferrals: e.deferrals, mic: e.mic, pending: map[string]*pending{}}
	st.csds.number("") // an unknown CSD is the books' 0
	err := e.db.SequencerTx(ctx, func(tx *store.Tx) error {
		if err := st.loadReference(ctx, tx); err != nil {
			return err
		}
		var err error
		if st.priority, err = tx.MaxPriority(ctx); err != nil {
			return err
		}
		lasts, err := st.loadLastTrades(ctx, tx)
		if err != nil {
			return err
		}
		if err := st.loadControls(ctx, tx, lasts); err != nil {
			return err
		}
		if err := st.loadPortfolios(ctx, tx); err != nil {
			return err
		}
		if err := st.loadPublications(ctx, tx); err != nil {
			return err
		}
		offers, err := tx.OpenOffers(ctx)
		if err != nil {
			return err
		}
		for i := range offers {
			// A record of its own, not a pointer into offers: the open
			// store keeps the pointers of RFQs, quotes and OTC offers, and
			// one into the slice would keep every record of it alive.
			rec := offers[i]
			o := &rec
			st.list(o)
			if o.Type == venue.TypeRFQ {
				rs, err := tx.Recipients(ctx, o.ID)
				if err != nil {
					return err
				}
				m := map[string]bool{}
				for _, r := range rs {
					m[r.ParticipantID] = r.Declined
				}
				st.recipients[o.ID] = m
				st.rfqOwner[o.ID] = o.ParticipantID
			} else {
				st.addUse(o, o.Remaining())
			}
			if o.Type == venue.TypeQuote {
				st.addQuote(o)
			}
			if o.Type == venue.TypeOffer && st.continuous(o.MarketID) {
				bo, err := st.bookOrder(o)
				if err == nil {
					err = st.book(o.MarketID, o.InstrumentID).Restore(bo)
				}
				if err != nil {
					st.forgetBookID(o)
					return fmt.Errorf("restore offer %s: %w", o.ID, err)
				}
			}
			if o.ValidUntil != nil {
				heap.Push(&st.expiries, expiry{at: *o.ValidUntil, id: o.ID})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rebuild engine state: %w", err)
	}
	st.open.flush()
	return st, nil
}

func (st *State) loadReference(ctx context.Context, tx *store.Tx) error {
	v, err := tx.ReferenceVersion(ctx)
	if err != nil {
		return err
	}
	st.refVersion = v
	ms, _, err := tx.Markets(ctx, store.MarketFilter{}, venue.Page{})
	if err != nil {
		return err
	}
	st.markets = map[string]venue.Market{}
	for _, m := range ms {
		st.markets[m.ID] = m
	}
	ins, _, err := tx.Instruments(ctx, store.InstrumentFilter{}, venue.Page{})
	if err != nil {
		return err
	}
	listings, err := tx.InstrumentListings(ctx)
	if err != nil {
		return err
	}
	st.instruments, st.bonds = map[string]venue.Instrument{}, map[string]bondmath.Bond{}
	for _, in := range ins {
		in.MarketIDs = listings[in.ID]
		st.instruments[in.ID] = in
		if b, err := venue.BondOf(in); err == nil {
			st.bonds[in.ID] = b
		}
	}
	if st.settlement, err = tx.Settlement(ctx); err != nil {
		return err
	}
	rels, err := tx.CounterpartyRelations(ctx)
	if err != nil {
		return err
	}
	st.cps = map[[2]string]bool{}
	for _, r := range rels {
		st.cps[[2]string{r.ParticipantID, r.CounterpartyID}] = r.Enabled
	}
	ls, err := tx.AllRiskLimits(ctx)
	if err != nil {
		return err
	}
	st.limits = map[string]map[string]udecimal.Decimal{}
	for _, l := range ls {
		if st.limits[l.ParticipantID] == nil {
			st.limits[l.ParticipantID] = map[string]udecimal.Decimal{}
		}
		st.limits[l.ParticipantID][l.Name] = l.Value
	}
	return nil
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

func (st *State) book(market, instrument string) *matching.Book {
	k := bookKey{market, instrument}
	b := st.books[k]
	if b == nil {
		b = matching.New(matching.Config{AllOrNone: !st.markets[market].IsPartialFillAllowed, Eligible: st.eligibleParties, Settles: st.settlesNumbers})
		st.books[k] = b
	}
	return b
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
