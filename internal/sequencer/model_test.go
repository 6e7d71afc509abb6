package sequencer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestEngineModel drives the sequencer with random sequences of creates,
// amends and cancels (State.CreateOffer, AmendOffer, CancelOffer through
// Do) on the two continuous markets (partial fills and all-or-none) from
// the test venue's firms, and compares every answer and the committed
// database state after every step with a deliberately naive reference book
// (STYLE "Model-based tests for the engine"). It runs each sequence on two
// venues: one never restarted and one whose sequencer is replaced by a new
// one on the same database at random steps, which must rebuild a book that
// behaves identically.
//
// The commands are those a use case hands the sequencer once it has
// checked its input (a deadline in the future, a new deadline only for a
// gtd offer): those checks are the use case's, tested where it lives. Some
// amend or cancel an offer that is no longer open, which the sequencer
// refuses as not found.
//
// Some offers are gtd, and some steps advance the venue clock (one
// testenv.Clock that both venues read). The reference book expires a gtd
// offer once the clock has reached its valid_until, when the next command
// reaches the sequencer and before applying it: the sequencer's rule at
// the start of every batch (docs/guide.md, "Trading"), which holds for a
// command it then refuses too. The sequencer's timer may also expire a due
// offer at any moment after the clock advance, in a batch of its own, so
// until then the committed state may show it either still open or expired:
// verify accepts both for exactly the offers the reference book holds due,
// and reads the risk use (which itself runs in a batch, and so expires what
// is due) only when none is. After a command nothing is due, and every
// check is exact.
func TestEngineModel(t *testing.T) {
	type run struct {
		seed     uint64
		steps    int
		restarts int // of the restarted venue, at random steps
	}
	tests := []run{
		{seed: 1, steps: 160, restarts: 8},
		{seed: 2, steps: 160, restarts: 8},
		{seed: 3, steps: 160, restarts: 8},
	}
	switch {
	case longTests():
		for s := range 32 {
			tests = append(tests, run{seed: uint64(100 + s), steps: 400, restarts: 25})
		}
	case testing.Short():
		tests = []run{{seed: 1, steps: 60, restarts: 3}}
	}
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("seed=%d", tt.seed), func(t *testing.T) {
				clock := testenv.NewClock(modelEpoch)
				steady, restarted := newModelWorld(t, e, "steady", clock), newModelWorld(t, e, "restarted", clock)
				rng := rand.New(rand.NewPCG(tt.seed, 0xb00c))
				restartAt := map[int]bool{}
				for len(restartAt) < tt.restarts {
					restartAt[1+rng.IntN(tt.steps-1)] = true
				}
				m := &refBook{now: modelEpoch}
				var trades int
				for step := range tt.steps {
					if restartAt[step] {
						restarted.v.restart(t)
						restarted.verify(t, m, step, -1, nil) // nothing changed
					}
					c := m.gen(rng)
					want, incoming := m.apply(c)
					if c.Op == "advance" {
						clock.Advance(c.Advance)
					}
					var got [2]stepResult
					for k, w := range []*modelWorld{steady, restarted} {
						got[k] = w.run(t, c)
						if diff := cmp.Diff(want, got[k]); diff != "" {
							t.Fatalf("%s venue, step %d, %v: answer differs from the reference book (-want +got):\n%s", w.name, step, c, diff)
						}
						w.verify(t, m, step, incoming, want.Fills)
					}
					if diff := cmp.Diff(got[0], got[1]); diff != "" {
						t.Fatalf("step %d, %v: the restarted venue answered differently (-steady +restarted):\n%s", step, c, diff)
					}
					trades += len(want.Fills)
				}
				steady.verifyAllTrades(t)
				restarted.verifyAllTrades(t)
				m.expire() // the reads of the risk use expire what is due
				steady.verifyRisk(t, m, "at the end", true)
				restarted.verifyRisk(t, m, "at the end", true)
				var expired int
				for _, o := range m.offers {
					if o.status == venue.StatusExpired {
						expired++
					}
				}
				t.Logf("%d steps, %d offers (%d expired), %d trades, %s simulated, restarts before steps %v",
					tt.steps, len(m.offers), expired, trades, m.now.Sub(modelEpoch), keys(restartAt))
			})
		}
	})
}

// --- the reference book ---

// refOffer is a firm offer as the reference book keeps it.
type refOffer struct {
	part, user  int  // firm index; user 0 is its admin, 1 its trader
	aon         bool // on the all-or-none market
	dir         string
	price       udecimal.Decimal // zero for a market order
	mkt         bool
	qty, filled udecimal.Decimal
	status      string
	seq         uint64     // time priority: when it last entered the book
	until       *time.Time // valid_until of a gtd offer; nil: gtc
}

func (o *refOffer) rem() udecimal.Decimal { return o.qty.Sub(o.filled) }
func (o *refOffer) open() bool            { return o.status == venue.StatusCreated }

// due reports whether o is open past its deadline at now: expired by the
// next command (or by the engine's timer before that).
func (o *refOffer) due(now time.Time) bool { return o.open() && o.until != nil && !o.until.After(now) }

// modelEpoch is the venue clock's reading at the start of every sequence.
var modelEpoch = time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)

// refBook is a deliberately naive order book: a list of every offer ever
// made, scanned and sorted afresh for every incoming offer.
type refBook struct {
	offers []*refOffer
	seq    uint64
	now    time.Time // the venue clock
}

// expire ends every offer due at the clock, as the engine does at the
// start of a batch.
func (m *refBook) expire() {
	for _, o := range m.offers {
		if o.due(m.now) {
			o.status = venue.StatusExpired
		}
	}
}

// eligibleParts reports whether firms a and b may trade: the first three
// are mutual counterparties, the fourth has none, and a firm never trades
// with itself.
func eligibleParts(a, b int) bool { return a != b && a < 3 && b < 3 }

// fill is a trade in test terms: offers by their index in refBook.offers.
type fill struct {
	Resting, Incoming int
	Quantity, Price   string
}

// stepResult is the answer to one command.
type stepResult struct {
	Err   string // "" or the error kind
	Fills []fill
}

// cmd is one random command, or an advance of the venue clock.
type cmd struct {
	Op         string // create, amend, cancel, advance
	Part, User int
	Target     int // amend and cancel: the offer
	AON        bool
	Dir        string
	Market     bool
	Price, Qty *udecimal.Decimal
	GTD        bool       // create: validity gtd, until Until
	Until      *time.Time // create gtd, amend: valid_until
	Advance    time.Duration
}

func (c cmd) String() string {
	if c.Op == "advance" {
		return "clock advances by " + c.Advance.String()
	}
	s := fmt.Sprintf("%s by participant %d user %d", c.Op, c.Part, c.User)
	if c.Op != "create" {
		s += fmt.Sprintf(" of offer #%d", c.Target)
	} else {
		s += fmt.Sprintf(" aon=%v %s market=%v", c.AON, c.Dir, c.Market)
	}
	if c.Price != nil {
		s += " price " + c.Price.String()
	}
	if c.Qty != nil {
		s += " quantity " + c.Qty.String()
	}
	if c.GTD {
		s += " gtd"
	}
	if c.Until != nil {
		s += " valid_until " + c.Until.Format(time.RFC3339Nano)
	}
	return s
}

var (
	modelLevels = []string{"99.5", "99.75", "100", "100.25", "100.5"}
	aonLots     = []int64{100_000, 200_000, 300_000}
)

// modelTick is the grain of the clock's advances and of deadlines, so
// that the clock often lands exactly on a deadline.
const modelTick = 500 * time.Millisecond

// gen returns a random command for the book's current state (now and then
// one on a closed offer, which must be refused), or an advance of the
// clock. An offer the book still holds open may be due: the command finds
// it expired.
func (m *refBook) gen(rng *rand.Rand) cmd {
	if rng.IntN(10) == 0 {
		return cmd{Op: "advance", Advance: time.Duration(1+rng.IntN(8)) * modelTick}
	}
	until := func() *time.Time { return ptrTo(m.now.Add(time.Duration(1+rng.IntN(16)) * modelTick)) }
	var open, done []int
	for i, o := range m.offers {
		if o.open() {
			open = append(open, i)
		} else {
			done = append(done, i)
		}
	}
	// Bids lean up and asks down, so most offers meet the other side.
	price := func(dir string) *udecimal.Decimal {
		k := rng.IntN(len(modelLevels) - 1)
		if dir == venue.Bid {
			k++
		}
		return ptrTo(dec(modelLevels[k]))
	}
	qty := func(aon bool, above udecimal.Decimal) *udecimal.Decimal {
		if aon {
			return ptrTo(udecimal.MustFromInt64(aonLots[rng.IntN(len(aonLots))], 0))
		}
		return ptrTo(above.Add(udecimal.MustFromInt64(int64(1+rng.IntN(10))*100_000, 0)))
	}
	r := rng.IntN(100)
	switch {
	case r < 55 || len(open) == 0 || (r >= 95 && len(done) == 0):
		c := cmd{Op: "create", Part: []int{0, 0, 1, 1, 2, 2, 3}[rng.IntN(7)], User: rng.IntN(2), AON: rng.IntN(3) == 0,
			Dir: []string{venue.Ask, venue.Bid}[rng.IntN(2)], Market: rng.IntN(12) == 0}
		c.Qty = qty(c.AON, udecimal.Zero)
		if !c.Market {
			c.Price = price(c.Dir)
			if c.GTD = rng.IntN(3) == 0; c.GTD {
				c.Until = until()
			}
		}
		return c
	case r < 80:
		i := open[rng.IntN(len(open))]
		o := m.offers[i]
		c := cmd{Op: "amend", Part: o.part, User: rng.IntN(2), Target: i}
		switch rng.IntN(4) {
		case 0:
			c.Price = price(o.dir)
		case 1:
			c.Qty = qty(o.aon, o.filled)
		case 2:
			c.Price, c.Qty = price(o.dir), qty(o.aon, o.filled)
		default:
			if o.until != nil {
				c.Until = until() // only the deadline moves
			} else {
				c.Price = price(o.dir)
			}
		}
		// A new deadline, with the new price or quantity: only a gtd
		// offer has one to move.
		if c.Until == nil && o.until != nil && rng.IntN(3) == 0 {
			c.Until = until()
		}
		return c
	case r < 95:
		i := open[rng.IntN(len(open))]
		return cmd{Op: "cancel", Part: m.offers[i].part, User: rng.IntN(2), Target: i}
	default:
		i := done[rng.IntN(len(done))]
		c := cmd{Op: "cancel", Part: m.offers[i].part, User: rng.IntN(2), Target: i}
		if rng.IntN(2) == 0 {
			c.Op, c.Price = "amend", price(m.offers[i].dir)
		}
		return c
	}
}

// apply runs c on the reference book and returns the answer it expects
// and the index of the incoming offer (-1 when none).
func (m *refBook) apply(c cmd) (stepResult, int) {
	if c.Op == "advance" {
		m.now = m.now.Add(c.Advance)
		return stepResult{}, -1
	}
	// Expiry is the sequencer's first step in every batch, before the
	// batch's commands run, whether they are then applied or refused.
	m.expire()
	if c.Op != "create" && !m.offers[c.Target].open() {
		return stepResult{Err: kindName(venue.KindNotFound)}, -1 // sequencer.ErrNotOpen
	}
	switch c.Op {
	case "create":
		o := &refOffer{part: c.Part, user: c.User, aon: c.AON, dir: c.Dir, mkt: c.Market, qty: *c.Qty, until: c.Until}
		if c.Price != nil {
			o.price = *c.Price
		}
		m.offers = append(m.offers, o)
		i := len(m.offers) - 1
		return stepResult{Fills: m.enter(i)}, i
	case "amend":
		o := m.offers[c.Target]
		if c.Until != nil {
			o.until = c.Until
		}
		price, qty := o.price, o.qty
		if c.Price != nil {
			price = *c.Price
		}
		if c.Qty != nil {
			qty = *c.Qty
		}
		if price.Equal(o.price) && !qty.GreaterThan(o.qty) {
			o.qty = qty // in place: keeps its time priority, never trades
			return stepResult{}, c.Target
		}
		o.price, o.qty = price, qty
		return stepResult{Fills: m.enter(c.Target)}, c.Target
	default: // cancel
		o := m.offers[c.Target]
		o.status = venue.StatusCancelled
		return stepResult{}, c.Target
	}
}

// enter matches offer i as the incoming offer: it walks every open,
// eligible, crossing offer on the other side of its market, best price
// first and then oldest first, and settles what is left.
func (m *refBook) enter(i int) []fill {
	o := m.offers[i]
	m.seq++
	o.seq = m.seq
	var cands []int
	for j, r := range m.offers {
		if j == i || !r.open() || r.aon != o.aon || r.dir == o.dir || !eligibleParts(o.part, r.part) {
			continue
		}
		if !o.mkt && ((o.dir == venue.Bid && r.price.GreaterThan(o.price)) || (o.dir == venue.Ask && r.price.LessThan(o.price))) {
			continue
		}
		cands = append(cands, j)
	}
	slices.SortFunc(cands, func(a, b int) int {
		ra, rb := m.offers[a], m.offers[b]
		c := ra.price.Cmp(rb.price) // an incoming bid wants the lowest ask
		if o.dir == venue.Ask {
			c = -c // an incoming ask wants the highest bid
		}
		if c != 0 {
			return c
		}
		switch {
		case ra.seq < rb.seq:
			return -1
		case ra.seq > rb.seq:
			return 1
		}
		return 0
	})
	rem := o.rem()
	take := cands
	if o.aon {
		// Greedy: every resting offer that fits whole; all or nothing.
		take = nil
		left := rem
		for _, j := range cands {
			if r := m.offers[j].rem(); !r.GreaterThan(left) {
				take, left = append(take, j), left.Sub(r)
				if left.IsZero() {
					break
				}
			}
		}
		if !left.IsZero() {
			take = nil
		}
	}
	var fills []fill
	for _, j := range take {
		if rem.IsZero() {
			break
		}
		r := m.offers[j]
		q := udecimal.Min(rem, r.rem())
		r.filled, o.filled, rem = r.filled.Add(q), o.filled.Add(q), rem.Sub(q)
		if r.rem().IsZero() {
			r.status = venue.StatusClosed
		}
		fills = append(fills, fill{Resting: j, Incoming: i, Quantity: q.String(), Price: r.price.String()})
	}
	switch {
	case rem.IsZero():
		o.status = venue.StatusClosed
	case o.mkt:
		o.status = venue.StatusCancelled
	default:
		o.status = venue.StatusCreated
	}
	return fills
}

// --- the venues under test ---

// modelWorld is a test venue running the same command sequence as the
// reference book, with the map between its offer ids and the book's
// indexes and what the checks have seen so far.
type modelWorld struct {
	name     string
	v        *testVenue
	ids      []string       // book index → offer id
	idx      map[string]int // offer id → book index
	parts    map[string]int // participant id → firm index
	lastSeq  int64
	tradeSum map[string]udecimal.Decimal // offer id → quantity traded, from the trades in the database
	tradeIDs map[string]bool
	codes    map[string]bool
	prev     map[string]venue.Offer // the committed offers after the previous step
	openUse  []udecimal.Decimal     // book index → open quantity at the last risk check
}

// riskUse is the open quantity counted against a firm's limits and
// against one of its users'.
type riskUse struct{ Participant, User string }

func newModelWorld(t *testing.T, e store.Engine, name string, clock *testenv.Clock) *modelWorld {
	t.Helper()
	v := newTestVenue(t, e, clock.Now, 0)
	w := &modelWorld{name: name, v: v, idx: map[string]int{}, parts: map[string]int{}, tradeSum: map[string]udecimal.Decimal{},
		tradeIDs: map[string]bool{}, codes: map[string]bool{}, prev: map[string]venue.Offer{}}
	for i, f := range v.firms {
		w.parts[f.id] = i
	}
	err := v.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		w.lastSeq, err = tx.LastEventSeq(context.Background())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// run sends c to the sequencer, as the use cases do once they have
// checked it, and translates the answer into book terms.
func (w *modelWorld) run(t *testing.T, c cmd) stepResult {
	t.Helper()
	ctx := t.Context()
	p := w.v.principal(c.Part, c.User)
	var (
		got      sequencer.OfferResult
		err      error
		incoming = c.Target
	)
	switch c.Op {
	case "advance":
		return stepResult{} // the clock both venues read has moved
	case "create":
		market := w.v.partial
		if c.AON {
			market = w.v.allOrNone
		}
		o := venue.Offer{ID: newID(), Type: venue.TypeOffer, Direction: c.Dir, ParticipantID: p.ParticipantID,
			AccountID: w.v.firms[c.Part].account, UserID: p.UserID, MarketID: market, InstrumentID: w.v.instrument,
			Quantity: *c.Qty, MarketOrder: c.Market, SettlementDate: w.v.settlement(), Validity: venue.GTC}
		if c.Price != nil {
			o.Price, o.HasPrice = *c.Price, true
		}
		if c.GTD {
			o.Validity, o.ValidUntil = venue.GTD, c.Until
		}
		got, err = w.v.create(ctx, o)
		if err == nil {
			w.idx[got.Offer.ID] = len(w.ids)
			incoming = len(w.ids)
			w.ids = append(w.ids, got.Offer.ID)
		}
	case "amend":
		ch := sequencer.OfferChange{Price: c.Price, Quantity: c.Qty, ValidUntil: c.Until}
		got, err = do(ctx, w.v.seq, func(st *sequencer.State, b *sequencer.Batch) (sequencer.OfferResult, error) {
			return st.AmendOffer(b, p, w.ids[c.Target], ch)
		})
	default:
		got, err = w.v.cancel(ctx, p, w.ids[c.Target])
	}
	if err != nil {
		return stepResult{Err: kindName(venue.KindOf(err))}
	}
	var res stepResult
	for _, tr := range got.Trades {
		res.Fills = append(res.Fills, w.fillOf(tr, incoming))
	}
	return res
}

// fillOf is a trade in book terms; the resting side is the offer that is
// not the incoming one (-1 when neither side is).
func (w *modelWorld) fillOf(tr venue.Trade, incoming int) fill {
	ask, aok := w.idx[tr.AskOrder.OfferID]
	bid, bok := w.idx[tr.BidOrder.OfferID]
	f := fill{Resting: -1, Incoming: -1, Quantity: tr.Quantity.String(), Price: tr.PricePerUnit.String()}
	switch {
	case aok && bok && bid == incoming:
		f.Resting, f.Incoming = ask, bid
	case aok && bok && ask == incoming:
		f.Resting, f.Incoming = bid, ask
	}
	return f
}

// refState is an offer's state as the reference book and the database
// should both have it.
type refState struct {
	Participant, User int
	Market            string
	Direction         string
	Price             string
	Quantity, Filled  string
	Status            string
	Validity          string
	ValidUntil        string
}

func formatUntil(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// verify checks the committed state after a step: every offer as the
// reference book has it; the step's trades (from the event log) as
// expected, each at the resting offer's price between eligible
// counterparties; trade quantities per offer summing to its filled
// quantity; the partial-fill book uncrossed between eligible offers; and no
// better-priced eligible resting offer skipped; and each participant's and
// user's risk use the open quantity of its offers. An offer the book holds
// due may show expired already (the engine's timer), and the risk use is
// read only when none is due (see TestEngineModel). incoming is the step's
// incoming offer (-1 when none) and want its expected fills.
func (w *modelWorld) verify(t *testing.T, m *refBook, step, incoming int, want []fill) {
	t.Helper()
	ctx := t.Context()
	var (
		offers []venue.Offer
		events []store.Event
		trades []venue.Trade
	)
	err := w.v.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if offers, _, err = tx.Offers(ctx, store.OfferFilter{Types: []string{venue.TypeOffer}, InstrumentID: w.v.instrument}, venue.Page{}); err != nil {
			return err
		}
		if events, err = tx.Events(ctx, store.EventQuery{After: w.lastSeq, Limit: 1_000_000}); err != nil {
			return err
		}
		for _, ev := range events {
			if ev.Type != "trade.create" {
				continue
			}
			var rec struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(ev.Data, &rec); err != nil {
				return fmt.Errorf("event %d: %w", ev.Seq, err)
			}
			tr, err := tx.Trade(ctx, rec.ID)
			if err != nil {
				return err
			}
			trades = append(trades, tr)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s venue, step %d: read committed state: %v", w.name, step, err)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s venue, step %d: %s", w.name, step, fmt.Sprintf(format, args...))
	}

	// The event log continues without gaps.
	for k, ev := range events {
		if want := w.lastSeq + int64(k) + 1; ev.Seq != want {
			fail("event seq %d, want %d (gap-free)", ev.Seq, want)
		}
	}
	if len(events) > 0 {
		w.lastSeq = events[len(events)-1].Seq
	}

	// Every offer, exactly once, as the reference book has it.
	now := map[string]venue.Offer{}
	gotStates, wantStates := map[int]refState{}, map[int]refState{}
	for _, o := range offers {
		i, ok := w.idx[o.ID]
		if !ok {
			fail("offer %s in the database was never acknowledged", o.ID)
		}
		if _, dup := now[o.ID]; dup {
			fail("offer %s listed twice", o.ID)
		}
		now[o.ID] = o
		if o.Quantity.Sign() <= 0 || o.Filled.IsNeg() || o.Filled.GreaterThan(o.Quantity) {
			fail("offer #%d: quantity %s, filled %s; want 0 ≤ filled ≤ quantity, quantity > 0", i, o.Quantity, o.Filled)
		}
		market := "partial"
		if o.MarketID == w.v.allOrNone {
			market = "all-or-none"
		}
		user := 0
		if o.UserID != w.v.firms[w.parts[o.ParticipantID]].users[0] {
			user = 1
		}
		price := ""
		if o.HasPrice {
			price = o.Price.String()
		}
		gotStates[i] = refState{Participant: w.parts[o.ParticipantID], User: user, Market: market, Direction: o.Direction,
			Price: price, Quantity: o.Quantity.String(), Filled: o.Filled.String(), Status: o.Status,
			Validity: o.Validity, ValidUntil: formatUntil(o.ValidUntil)}
	}
	due := false
	for i, o := range m.offers {
		market, price, validity := "partial", "", venue.GTC
		if o.aon {
			market = "all-or-none"
		}
		if !o.mkt {
			price = o.price.String()
		}
		if o.until != nil {
			validity = venue.GTD
		}
		status := o.status
		if o.due(m.now) {
			due = true
			if gotStates[i].Status == venue.StatusExpired {
				status = venue.StatusExpired // the timer was first
			}
		}
		wantStates[i] = refState{Participant: o.part, User: o.user, Market: market, Direction: o.dir, Price: price,
			Quantity: o.qty.String(), Filled: o.filled.String(), Status: status, Validity: validity, ValidUntil: formatUntil(o.until)}
	}
	if diff := cmp.Diff(wantStates, gotStates); diff != "" {
		fail("committed offers differ from the reference book (-want +got):\n%s", diff)
	}

	// The step's trades, from the log, are the expected fills between
	// eligible counterparties at the resting offer's price.
	var gotFills []fill
	for _, tr := range trades {
		if w.tradeIDs[tr.ID] || w.codes[tr.TransactionIdentificationCode] {
			fail("trade %s (%s) recorded twice", tr.ID, tr.TransactionIdentificationCode)
		}
		w.tradeIDs[tr.ID], w.codes[tr.TransactionIdentificationCode] = true, true
		ask, bid := now[tr.AskOrder.OfferID], now[tr.BidOrder.OfferID]
		if ask.Direction != venue.Ask || bid.Direction != venue.Bid {
			fail("trade %s: ask order of a %q offer, bid order of a %q offer", tr.ID, ask.Direction, bid.Direction)
		}
		if !tr.Quantity.IsPos() {
			fail("trade %s: quantity %s, want > 0", tr.ID, tr.Quantity)
		}
		pa, pb := w.parts[ask.ParticipantID], w.parts[bid.ParticipantID]
		if !eligibleParts(pa, pb) || tr.AskOrder.ParticipantID != ask.ParticipantID || tr.BidOrder.ParticipantID != bid.ParticipantID {
			fail("trade %s between firms %d and %d, who are not counterparties (or the same firm)", tr.ID, pa, pb)
		}
		f := w.fillOf(tr, incoming)
		if f.Resting >= 0 {
			if r := now[w.ids[f.Resting]]; !tr.PricePerUnit.Equal(r.Price) {
				fail("trade %s at %s, want the resting offer's price %s", tr.ID, tr.PricePerUnit, r.Price)
			}
		}
		gotFills = append(gotFills, f)
		w.tradeSum[ask.ID] = w.tradeSum[ask.ID].Add(tr.Quantity)
		w.tradeSum[bid.ID] = w.tradeSum[bid.ID].Add(tr.Quantity)
	}
	if diff := cmp.Diff(want, gotFills); diff != "" {
		fail("committed trades differ from the reference book (-want +got):\n%s", diff)
	}
	for id, o := range now {
		if sum := w.tradeSum[id]; !sum.Equal(o.Filled) {
			fail("offer #%d: trades sum to %s, filled quantity %s", w.idx[id], sum, o.Filled)
		}
	}

	// The partial-fill book is never crossed between eligible offers.
	for _, b := range now {
		for _, a := range now {
			if a.MarketID == w.v.partial && b.MarketID == w.v.partial && a.Open() && b.Open() && a.Direction == venue.Ask &&
				b.Direction == venue.Bid && eligibleParts(w.parts[a.ParticipantID], w.parts[b.ParticipantID]) && !b.Price.LessThan(a.Price) {
				fail("book crossed: bid #%d at %s and ask #%d at %s of eligible counterparties both rest", w.idx[b.ID], b.Price, w.idx[a.ID], a.Price)
			}
		}
	}

	// Price-time priority on the partial-fill market: no eligible offer
	// resting before the step at a better price than the worst fill, or at
	// that price ahead of a filled one, was left unfilled.
	if incoming >= 0 && len(trades) > 0 && now[w.ids[incoming]].MarketID == w.v.partial {
		in := now[w.ids[incoming]]
		worst, lastPrio := udecimal.Zero, uint64(0)
		for k, tr := range trades {
			r := w.prev[w.ids[gotFills[k].Resting]]
			if k == 0 || !tr.PricePerUnit.Equal(worst) {
				lastPrio = 0
			}
			worst, lastPrio = tr.PricePerUnit, max(lastPrio, r.Priority)
		}
		for id, r := range w.prev {
			if id == in.ID || !r.Open() || r.MarketID != w.v.partial || r.Direction == in.Direction ||
				!eligibleParts(w.parts[r.ParticipantID], w.parts[in.ParticipantID]) {
				continue
			}
			better := r.Price.LessThan(worst)
			if in.Direction == venue.Ask {
				better = r.Price.GreaterThan(worst)
			}
			ahead := r.Price.Equal(worst) && r.Priority < lastPrio
			if after := now[id]; (better || ahead) && after.Open() {
				fail("offer #%d resting at %s (priority %d) was skipped: the incoming offer #%d filled down to %s (priority %d)",
					w.idx[id], r.Price, r.Priority, incoming, worst, lastPrio)
			}
		}
	}
	w.prev = now

	if !due {
		w.verifyRisk(t, m, fmt.Sprintf("step %d", step), false)
	}
}

// verifyRisk checks the risk use: the open quantity of the book's offers
// (a filled, cancelled or expired offer holds none), for every firm and
// user when all is set, else for those
// whose book offers changed since the last check (each read of the use
// runs in a batch of the engine's, so to read them all at every step would
// double the test's time). The book must hold nothing due: the read
// expires it.
func (w *modelWorld) verifyRisk(t *testing.T, m *refBook, when string, all bool) {
	t.Helper()
	open := make([]udecimal.Decimal, len(m.offers))
	parts := map[int]bool{}
	for i, o := range m.offers {
		if o.open() {
			open[i] = o.rem()
		}
		if all || i >= len(w.openUse) || !open[i].Equal(w.openUse[i]) {
			parts[o.part] = true
		}
	}
	w.openUse = open
	if all {
		for i := range w.v.firms {
			parts[i] = true
		}
	}
	want := map[[2]int]riskUse{}
	for i := range w.v.firms {
		if !parts[i] {
			continue
		}
		for u := range traderRoles {
			part, user := udecimal.Zero, udecimal.Zero
			for _, o := range m.offers {
				if o.open() && o.part == i {
					part = part.Add(o.rem())
					if o.user == u {
						user = user.Add(o.rem())
					}
				}
			}
			want[[2]int{i, u}] = riskUse{Participant: part.String(), User: user.String()}
		}
	}
	if diff := cmp.Diff(want, w.riskUse(t, parts)); diff != "" {
		t.Fatalf("%s venue, %s: risk use differs from the reference book's open offers (-want +got), keyed [participant user]:\n%s", w.name, when, diff)
	}
}

// riskUse reads the risk use of every user of the firms in parts (nil:
// all), keyed by firm and user index: State.Use, in one command of the
// priority lane, as the use case that shows it reads it.
func (w *modelWorld) riskUse(t *testing.T, parts map[int]bool) map[[2]int]riskUse {
	t.Helper()
	firmSum, _ := sequencer.LimitKindOf(venue.LimitAllOfferSum)
	userSum, _ := sequencer.LimitKindOf(venue.LimitAllOfferUserSum)
	got, err := w.v.seq.Do(sequencer.WithPriority(t.Context()), nil, func(st *sequencer.State, b *sequencer.Batch) (any, error) {
		out := map[[2]int]riskUse{}
		for i := range w.v.firms {
			if parts != nil && !parts[i] {
				continue
			}
			for u := range traderRoles {
				p := w.v.principal(i, u)
				out[[2]int{i, u}] = riskUse{Participant: st.Use(firmSum, p.ParticipantID, p.UserID).String(),
					User: st.Use(userSum, p.ParticipantID, p.UserID).String()}
			}
		}
		return out, nil
	})
	if err != nil {
		t.Fatalf("%s venue: read the risk use: %v", w.name, err)
	}
	return got.(map[[2]int]riskUse)
}

// verifyAllTrades checks the whole trades table once: exactly the trades
// seen in the event log, each id and transaction code once.
func (w *modelWorld) verifyAllTrades(t *testing.T) {
	t.Helper()
	var all []venue.Trade
	err := w.v.db.View(t.Context(), func(tx *store.Tx) error {
		var err error
		all, _, err = tx.Trades(t.Context(), store.TradeFilter{InstrumentID: w.v.instrument}, venue.Page{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ids, codes := map[string]bool{}, map[string]bool{}
	for _, tr := range all {
		if ids[tr.ID] || codes[tr.TransactionIdentificationCode] {
			t.Errorf("%s venue: trade %s (%s) is in the database twice", w.name, tr.ID, tr.TransactionIdentificationCode)
		}
		ids[tr.ID], codes[tr.TransactionIdentificationCode] = true, true
	}
	if diff := cmp.Diff(w.tradeIDs, ids); diff != "" {
		t.Errorf("%s venue: trades in the database differ from those in the event log (-log +database):\n%s", w.name, diff)
	}
}

var kindNames = map[venue.Kind]string{venue.KindInternal: "internal", venue.KindInvalid: "invalid",
	venue.KindUnauthenticated: "unauthenticated", venue.KindForbidden: "forbidden", venue.KindNotFound: "not found",
	venue.KindConflict: "conflict", venue.KindLimit: "limit", venue.KindUnavailable: "unavailable"}

func kindName(k venue.Kind) string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind %d", k)
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
