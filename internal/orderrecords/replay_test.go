package orderrecords_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// level is one resting order as a book shows it, for comparing a live
// book with a replayed one.
type level struct{ ID, Participant, Price, Remaining string }

// liveBook is the committed book of instrument on market, bids and asks
// each best first and in time priority.
func liveBook(t *testing.T, db *store.DB, market, instrument string) (bids, asks []level) {
	t.Helper()
	var entries []store.BookEntry
	err := db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		entries, err = tx.BookEntries(context.Background(), []string{instrument})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var b, a []store.BookEntry
	for _, e := range entries { // in time priority
		if e.MarketID != market {
			continue
		}
		if e.Direction == venue.Bid {
			b = append(b, e)
		} else {
			a = append(a, e)
		}
	}
	slices.SortStableFunc(b, func(x, y store.BookEntry) int { return y.Price.Price.Cmp(x.Price.Price) })
	slices.SortStableFunc(a, func(x, y store.BookEntry) int { return x.Price.Price.Cmp(y.Price.Price) })
	conv := func(es []store.BookEntry) []level {
		out := []level{}
		for _, e := range es {
			out = append(out, level{e.OfferID, e.ParticipantID, e.Price.Price.String(), e.Price.Quantity.Sub(e.Price.Filled).String()})
		}
		return out
	}
	return conv(b), conv(a)
}

// replayed is the book the venue replays at at, over HTTP.
func (r *rig) replayed(t *testing.T, market, instrument string, at time.Time) (bids, asks []level, book wire.ReplayedBook) {
	t.Helper()
	path := "/api/v1/admin/markets/" + market + "/instruments/" + instrument + "/book"
	if !at.IsZero() {
		path += "?at=" + at.UTC().Format("2006-01-02T15:04:05.000000Z")
	}
	res := r.get(t, path, "")
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("replay: %d %s", res.StatusCode, body)
	}
	if err := json.Unmarshal(body, &book); err != nil {
		t.Fatal(err)
	}
	conv := func(rs []wire.RestingRecord) []level {
		out := []level{}
		for _, o := range rs {
			out = append(out, level{o.OrderID, o.ParticipantID, o.Price, o.Remaining})
		}
		return out
	}
	return conv(book.Bids), conv(book.Asks), book
}

// TestReplayProperty: random order flow on a continuous book and around
// it — bids, asks, market orders, amends, cancels, RFQs, quotes, accepts,
// halts, kill switches — leaves order records numbered 1..n with no gap
// or duplicate, and the book replayed from them at any instant a snapshot
// was taken equals that snapshot; at the end, the live book.
// BONDVENUE_LONG_TESTS=1 runs ten times the steps; BONDVENUE_TEST_REPLAY_SEED
// replays a seed (printed on failure).
func TestReplayProperty(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		seed := uint64(time.Now().UnixNano())
		if s := os.Getenv("BONDVENUE_TEST_REPLAY_SEED"); s != "" {
			seed, _ = strconv.ParseUint(s, 10, 64)
		}
		steps := 250
		if os.Getenv("BONDVENUE_LONG_TESTS") != "" {
			steps = 2500
		}
		t.Logf("seed %d (BONDVENUE_TEST_REPLAY_SEED), %d steps", seed, steps)
		rnd := rand.New(rand.NewPCG(seed, 35))
		flow := newFlow(t, newRig(t, e), rnd)
		type snapshot struct {
			at         time.Time
			bids, asks []level
		}
		var snaps []snapshot
		for i := 0; i < steps; i++ {
			flow.r.clock.Advance(time.Duration(1+rnd.IntN(3000)) * time.Microsecond)
			flow.step(t)
			if rnd.IntN(10) == 0 {
				b, a := liveBook(t, flow.v.DB, flow.v.Partial, flow.v.Instrument)
				snaps = append(snaps, snapshot{flow.r.clock.Now(), b, a})
			}
		}
		for _, s := range snaps {
			b, a, _ := flow.r.replayed(t, flow.v.Partial, flow.v.Instrument, s.at)
			if fmt.Sprint(b, a) != fmt.Sprint(s.bids, s.asks) {
				t.Fatalf("seed %d: the book replayed at %s differs from its snapshot:\nreplayed bids %v\n asks %v\nsnapshot bids %v\n asks %v",
					seed, s.at.Format(time.RFC3339Nano), b, a, s.bids, s.asks)
			}
		}
		lb, la := liveBook(t, flow.v.DB, flow.v.Partial, flow.v.Instrument)
		b, a, book := flow.r.replayed(t, flow.v.Partial, flow.v.Instrument, time.Time{})
		if fmt.Sprint(b, a) != fmt.Sprint(lb, la) {
			t.Fatalf("seed %d: the book replayed now differs from the live book:\nreplayed %v %v\nlive %v %v", seed, b, a, lb, la)
		}
		recs := flow.r.exported(t, "2026-12-07")
		for i, m := range recs {
			if n, _ := m["sequence_number"].(float64); int(n) != i+1 {
				t.Fatalf("seed %d: record %d has sequence number %v", seed, i+1, m["sequence_number"])
			}
		}
		if len(recs) < steps/2 || book.Records == 0 || len(snaps) == 0 {
			t.Fatalf("seed %d: the flow wrote %d records (replay read %d) in %d steps, %d snapshots: too little to prove anything",
				seed, len(recs), book.Records, steps, len(snaps))
		}
		t.Logf("%d records, %d snapshots replayed, final book %d bids %d asks", len(recs), len(snaps), len(lb), len(la))
	})
}

// flow drives random order flow through the use cases.
type flow struct {
	r        *rig
	v        *testenv.DemoVenue
	rnd      *rand.Rand
	traders  []venue.Principal
	operator venue.Principal
	otc      string
	open     []string // offers the flow entered that may still rest
	quotes   map[string]venue.Principal
	halted   bool
}

func newFlow(t *testing.T, r *rig, rnd *rand.Rand) *flow {
	f := &flow{r: r, v: r.v, rnd: rnd, otc: r.v.OTC(t), quotes: map[string]venue.Principal{},
		operator: venue.Principal{UserID: r.v.Creds.Operator.UserID, Role: venue.RoleOperator}}
	for i := range 4 {
		f.traders = append(f.traders, r.v.Principal(t, i, venue.RoleTrader))
	}
	return f
}

func (f *flow) price() *udecimal.Decimal {
	d := udecimal.MustParse("98").Add(udecimal.MustFromInt64(int64(f.rnd.IntN(17)), 0).Mul(udecimal.MustParse("0.25")))
	return &d
}

func (f *flow) qty() *udecimal.Decimal {
	d := udecimal.MustFromInt64(int64(1+f.rnd.IntN(5))*1000, 0)
	return &d
}

// step runs one random operation; refusals (a halt, a filled order) are
// part of the flow.
func (f *flow) step(t *testing.T) {
	ctx := context.Background()
	p := f.traders[f.rnd.IntN(len(f.traders))]
	dir := []string{venue.Bid, venue.Ask}[f.rnd.IntN(2)]
	switch k := f.rnd.IntN(100); {
	case k < 45:
		o, err := f.v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: f.v.Instrument, MarketID: f.v.Partial, Direction: dir,
			Price: f.price(), Quantity: f.qty()})
		if err == nil {
			f.open = append(f.open, o.ID)
		}
	case k < 50:
		_, _ = f.v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: f.v.Instrument, MarketID: f.v.Partial, Direction: dir,
			Quantity: f.qty(), MarketOrder: true})
	case k < 65 && len(f.open) > 0:
		id := f.open[f.rnd.IntN(len(f.open))]
		ch := trading.ChangeInput{Price: f.price()}
		if f.rnd.IntN(2) == 0 {
			ch = trading.ChangeInput{Quantity: f.qty()}
		}
		for _, tr := range f.traders {
			_, _ = f.v.Svc.UpdateOffer(ctx, tr, id, ch) // only the owner's can
		}
	case k < 78 && len(f.open) > 0:
		i := f.rnd.IntN(len(f.open))
		for _, tr := range f.traders {
			_, _ = f.v.Svc.DeleteOffer(ctx, tr, f.open[i])
		}
		f.open = slices.Delete(f.open, i, i+1)
	case k < 88:
		f.rfq(ctx, p, dir)
	case k < 94:
		f.halted = !f.halted
		if _, err := f.v.Svc.SetHalt(ctx, f.operator, f.v.Partial, f.v.Instrument, trading.HaltInput{Halted: &f.halted, Reason: "replay test"}); err != nil {
			t.Fatal(err)
		}
	default:
		if _, err := f.v.Svc.SetKillSwitch(ctx, f.operator, p.ParticipantID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := f.v.Svc.SetKillSwitch(ctx, f.operator, p.ParticipantID, false); err != nil {
			t.Fatal(err)
		}
	}
}

// rfq sends an RFQ to another trader's firm, which quotes it; the
// requester accepts the quote half the time.
func (f *flow) rfq(ctx context.Context, p venue.Principal, dir string) {
	dealer := f.traders[f.rnd.IntN(len(f.traders))]
	if dealer.ParticipantID == p.ParticipantID {
		return
	}
	qty := f.qty()
	rfq, err := f.v.Svc.CreateRFQ(ctx, p, trading.OfferInput{InstrumentID: f.v.Instrument, MarketID: f.otc, Direction: dir,
		Quantity: qty, Counterparties: []string{dealer.ParticipantID}})
	if err != nil {
		return
	}
	other := venue.Ask
	if dir == venue.Ask {
		other = venue.Bid
	}
	f.r.clock.Advance(time.Microsecond)
	q, err := f.v.Svc.CreateOffer(ctx, dealer, trading.OfferInput{InstrumentID: f.v.Instrument, MarketID: f.otc, Direction: other,
		Price: f.price(), Quantity: qty, MatchedOfferID: rfq.ID})
	if err != nil || f.rnd.IntN(2) == 0 {
		return
	}
	f.r.clock.Advance(time.Microsecond)
	_, _ = f.v.Svc.AcceptQuote(ctx, p, q.ID, venue.Parties{})
}
