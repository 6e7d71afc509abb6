package trading_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"
)

// TestEngineModel drives the trading service with random sequences of
// creates, amends and cancels on the two continuous markets (partial fills
// and all-or-none) from the demo participants, and compares every answer
// and the committed database state after every step with a deliberately
// naive reference book (STYLE "Model-based tests for the engine"). It runs
// each sequence on two venues: one never restarted and one whose service is
// replaced by a new one on the same database at random steps, which must
// rebuild a book that behaves identically.
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
				steady, restarted := newModelWorld(t, e, "steady"), newModelWorld(t, e, "restarted")
				rng := rand.New(rand.NewPCG(tt.seed, 0xb00c))
				restartAt := map[int]bool{}
				for len(restartAt) < tt.restarts {
					restartAt[1+rng.IntN(tt.steps-1)] = true
				}
				m := &refBook{}
				var trades int
				for step := range tt.steps {
					if restartAt[step] {
						restarted.v.restart(t)
						restarted.verify(t, m, step, -1, nil) // nothing changed
					}
					c := m.gen(rng)
					want, incoming := m.apply(c)
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
				t.Logf("%d steps, %d offers, %d trades, restarts before steps %v", tt.steps, len(m.offers), trades, keys(restartAt))
			})
		}
	})
}

// --- the reference book ---

// refOffer is a firm offer as the reference book keeps it.
type refOffer struct {
	part, user  int  // demo participant index; user 0 is its admin, 1 its trader
	aon         bool // on the all-or-none market
	dir         string
	price       udecimal.Decimal // zero for a market order
	mkt         bool
	qty, filled udecimal.Decimal
	status      string
	seq         uint64 // time priority: when it last entered the book
}

func (o *refOffer) rem() udecimal.Decimal { return o.qty.Sub(o.filled) }
func (o *refOffer) open() bool            { return o.status == venue.StatusCreated }

// refBook is a deliberately naive order book: a list of every offer ever
// made, scanned and sorted afresh for every incoming offer.
type refBook struct {
	offers []*refOffer
	seq    uint64
}

// eligibleParts reports whether demo participants a and b may trade: the
// first three are mutual counterparties, the fourth has none, and a firm
// never trades with itself.
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

// cmd is one random command.
type cmd struct {
	Op         string // create, amend, cancel
	Part, User int
	Target     int // amend and cancel: the offer
	AON        bool
	Dir        string
	Market     bool
	Price, Qty *udecimal.Decimal
}

func (c cmd) String() string {
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
	return s
}

var (
	modelLevels = []string{"99.5", "99.75", "100", "100.25", "100.5"}
	aonLots     = []int64{100_000, 200_000, 300_000}
)

// gen returns a random valid command for the book's current state (and
// now and then one on a closed offer, which must be refused).
func (m *refBook) gen(rng *rand.Rand) cmd {
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
		}
		return c
	case r < 80:
		i := open[rng.IntN(len(open))]
		o := m.offers[i]
		c := cmd{Op: "amend", Part: o.part, User: rng.IntN(2), Target: i}
		switch rng.IntN(3) {
		case 0:
			c.Price = price(o.dir)
		case 1:
			c.Qty = qty(o.aon, o.filled)
		default:
			c.Price, c.Qty = price(o.dir), qty(o.aon, o.filled)
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
	switch c.Op {
	case "create":
		o := &refOffer{part: c.Part, user: c.User, aon: c.AON, dir: c.Dir, mkt: c.Market, qty: *c.Qty}
		if c.Price != nil {
			o.price = *c.Price
		}
		m.offers = append(m.offers, o)
		i := len(m.offers) - 1
		return stepResult{Fills: m.enter(i)}, i
	case "amend":
		o := m.offers[c.Target]
		if !o.open() {
			return stepResult{Err: kindName(venue.KindConflict)}, -1
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
		if !o.open() {
			return stepResult{Err: kindName(venue.KindConflict)}, -1
		}
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

// modelWorld is a demo venue running the same command sequence as the
// reference book, with the map between its offer ids and the book's
// indexes and what the checks have seen so far.
type modelWorld struct {
	name     string
	v        *demoVenue
	ids      []string       // book index → offer id
	idx      map[string]int // offer id → book index
	parts    map[string]int // participant id → demo index
	lastSeq  int64
	tradeSum map[string]udecimal.Decimal // offer id → quantity traded, from the trades in the database
	tradeIDs map[string]bool
	codes    map[string]bool
	prev     map[string]venue.Offer // the committed offers after the previous step
}

func newModelWorld(t *testing.T, e store.Engine, name string) *modelWorld {
	t.Helper()
	v := newDemoVenue(t, e)
	for i := range v.creds.Participants {
		for _, limit := range []string{venue.LimitAllOfferSum, venue.LimitAllOfferUserSum} {
			v.setLimit(t, i, limit, "1000000000000") // risk is another test's business
		}
	}
	w := &modelWorld{name: name, v: v, idx: map[string]int{}, parts: map[string]int{}, tradeSum: map[string]udecimal.Decimal{},
		tradeIDs: map[string]bool{}, codes: map[string]bool{}, prev: map[string]venue.Offer{}}
	for i, p := range v.creds.Participants {
		w.parts[p.ID] = i
	}
	err := v.db.View(context.Background(), func(tx *store.Tx) error {
		evs, err := tx.Events(context.Background(), 0, "", 1_000_000)
		if len(evs) > 0 {
			w.lastSeq = evs[len(evs)-1].Seq
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *modelWorld) principal(t *testing.T, c cmd) venue.Principal {
	return w.v.principal(t, c.Part, []venue.Role{venue.RoleAdmin, venue.RoleTrader}[c.User])
}

// run sends c to the service and translates the answer into book terms.
func (w *modelWorld) run(t *testing.T, c cmd) stepResult {
	t.Helper()
	ctx := t.Context()
	p := w.principal(t, c)
	var (
		got      trading.OfferView
		err      error
		incoming = c.Target
	)
	switch c.Op {
	case "create":
		market := w.v.partial
		if c.AON {
			market = w.v.allOrNone
		}
		got, err = w.v.svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: w.v.instrument, MarketID: market,
			Direction: c.Dir, Price: c.Price, Quantity: c.Qty, MarketOrder: c.Market})
		if err == nil {
			w.idx[got.ID] = len(w.ids)
			incoming = len(w.ids)
			w.ids = append(w.ids, got.ID)
		}
	case "amend":
		got, err = w.v.svc.UpdateOffer(ctx, p, w.ids[c.Target], trading.ChangeInput{Price: c.Price, Quantity: c.Qty})
	default:
		got, err = w.v.svc.DeleteOffer(ctx, p, w.ids[c.Target])
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
}

// verify checks the committed state after a step: every offer as the
// reference book has it; the step's trades (from the event log) as
// expected, each at the resting offer's price between eligible
// counterparties; trade quantities per offer summing to its filled
// quantity; the partial-fill book uncrossed between eligible offers; and no
// better-priced eligible resting offer skipped. incoming is the step's
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
		if events, err = tx.Events(ctx, w.lastSeq, "", 1_000_000); err != nil {
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
		if o.UserID != w.v.principal(t, w.parts[o.ParticipantID], venue.RoleAdmin).UserID {
			user = 1
		}
		price := ""
		if o.HasPrice {
			price = o.Price.String()
		}
		gotStates[i] = refState{Participant: w.parts[o.ParticipantID], User: user, Market: market, Direction: o.Direction,
			Price: price, Quantity: o.Quantity.String(), Filled: o.Filled.String(), Status: o.Status}
	}
	for i, o := range m.offers {
		market, price := "partial", ""
		if o.aon {
			market = "all-or-none"
		}
		if !o.mkt {
			price = o.price.String()
		}
		wantStates[i] = refState{Participant: o.part, User: o.user, Market: market, Direction: o.dir, Price: price,
			Quantity: o.qty.String(), Filled: o.filled.String(), Status: o.status}
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
			fail("trade %s between demo participants %d and %d, who are not counterparties (or the same firm)", tr.ID, pa, pb)
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
