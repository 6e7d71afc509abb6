package demomarket_test

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/demomarket"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

const tick = 2 * time.Second

// stepper drives a Market tick by tick on a test clock.
type stepper struct {
	m     *demomarket.Market
	clock *testenv.Clock
}

func (s stepper) steps(ctx context.Context, n int) {
	for range n {
		s.m.Step(ctx)
		s.clock.Advance(tick)
	}
}

func newVenue(t *testing.T, e store.Engine) (*trading.Service, demo.Credentials, stepper) {
	t.Helper()
	clock := testenv.NewClock(time.Now().UTC())
	core, creds := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler), Now: clock.Now}})
	svc := core.Svc
	m := demomarket.New(svc, core.Cluster, demomarket.Config{Now: clock.Now, Seed: 7})
	return svc, creds, stepper{m: m, clock: clock}
}

func TestMarketComesAlive(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		svc, _, s := newVenue(t, e)
		sim, err := demo.AddSimulated(ctx, svc) // as the market finds them
		s.steps(ctx, 40)
		if err != nil {
			t.Fatalf("AddSimulated() = %v", err)
		}
		simulated := map[string]bool{}
		for _, f := range sim.Firms {
			simulated[f.ID] = true
		}
		sys := trading.System

		ms, err := svc.Markets(ctx, sys, trading.MarketFilter{FacilityType: venue.FacilityContinuous}, venue.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		ins, err := svc.Instruments(ctx, sys, trading.InstrumentFilter{}, venue.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		resting := checkBook(t, svc, simulated)
		for _, mk := range ms.Items {
			if mk.Hours != nil { // the day session: TestClosedMarketLeftAlone
				continue
			}
			for _, in := range ins.Items {
				for _, side := range []string{venue.Bid, venue.Ask} {
					if !resting[mk.ID+"/"+in.ID+"/"+side] {
						t.Errorf("no simulated %s resting on %s for %s", side, mk.Name, in.Terms.Name)
					}
				}
			}
		}

		trades, err := svc.Trades(ctx, sys, trading.TradeFilter{}, venue.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(trades.Items) == 0 {
			t.Error("no trade after 40 steps")
		}
		ips, err := svc.IndicativePrices(ctx, sys, trading.IndicativeFilter{}, venue.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(ips.Items), len(ins.Items); got != want {
			t.Errorf("%d live indicative prices, want %d (one a bond)", got, want)
		}
		news, err := svc.News(ctx, sys, venue.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(news.Items) <= 3 { // the demo's own three
			t.Errorf("%d news items, want a simulated one beside the demo's three", len(news.Items))
		}

		s.steps(ctx, 120) // four minutes of moves, trades and cancels
		checkBook(t, svc, simulated)
	})
}

// checkBook checks the simulated firms' resting offers: each inside the
// collar, and no firm's own bid at or above its own ask. It returns the
// market/instrument/side of each.
func checkBook(t *testing.T, svc *trading.Service, simulated map[string]bool) map[string]bool {
	t.Helper()
	ctx, sys := context.Background(), trading.System
	offers, err := svc.Offers(ctx, sys, trading.OfferFilter{Status: venue.StatusCreated, Type: venue.TypeOffer}, venue.Page{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	resting := map[string]bool{}
	own := map[string]udecimal.Decimal{}
	for _, o := range offers.Items {
		if !simulated[o.ParticipantID] {
			continue
		}
		resting[o.MarketID+"/"+o.InstrumentID+"/"+o.Direction] = true
		own[o.ParticipantID+"/"+o.MarketID+"/"+o.InstrumentID+"/"+o.Direction] = o.Price
		c, err := svc.PriceCollar(ctx, sys, o.InstrumentID, o.MarketID)
		if err != nil {
			t.Fatal(err)
		}
		if c.HasReference && (o.Price.LessThan(c.Low) || o.Price.GreaterThan(c.High)) {
			t.Errorf("offer %s at %s outside the collar [%s, %s]", o.ID, o.Price, c.Low, c.High)
		}
		if !c.HasReference && o.Price.GreaterThan(c.MaxPricePercent) {
			t.Errorf("offer %s at %s above the band %s", o.ID, o.Price, c.MaxPricePercent)
		}
	}
	for k, bid := range own {
		if len(k) > 4 && k[len(k)-4:] == "/bid" {
			if ask, ok := own[k[:len(k)-4]+"/ask"]; ok && bid.GreaterThanOrEqual(ask) {
				t.Errorf("%s: the firm's own bid %s at or above its own ask %s", k, bid, ask)
			}
		}
	}
	return resting
}

// dealers is a demo venue with the simulated dealers added, a requester
// (the first demo firm's trader), its OTC market and n instruments.
type dealers struct {
	svc *trading.Service
	s   stepper
	sim demo.Simulated
	p   venue.Principal
	otc string
	ins []trading.InstrumentView
}

func newDealers(t *testing.T, e store.Engine, n int) dealers {
	t.Helper()
	ctx := context.Background()
	svc, creds, s := newVenue(t, e)
	s.steps(ctx, 1)
	sim, err := demo.AddSimulated(ctx, svc)
	if err != nil {
		t.Fatalf("AddSimulated() = %v", err)
	}
	trader := creds.Participants[0].Users[1]
	p := venue.Principal{UserID: trader.UserID, ParticipantID: creds.Participants[0].ID, Role: venue.Role(trader.Role)}
	otc, err := svc.Markets(ctx, p, trading.MarketFilter{FacilityType: venue.FacilityOTC}, venue.Page{Limit: 1})
	if err != nil || len(otc.Items) == 0 {
		t.Fatalf("OTC market: %v", err)
	}
	ins, err := svc.Instruments(ctx, p, trading.InstrumentFilter{}, venue.Page{Limit: n})
	if err != nil || len(ins.Items) < n {
		t.Fatalf("instruments: %v", err)
	}
	return dealers{svc: svc, s: s, sim: sim, p: p, otc: otc.Items[0].ID, ins: ins.Items}
}

func TestDealersAnswerRFQs(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		d := newDealers(t, e, 1)
		svc, s, p := d.svc, d.s, d.p
		for _, f := range d.sim.Firms {
			q := udecimal.MustFromInt64(2_000_000, 0)
			r, err := svc.CreateRFQ(ctx, p, trading.OfferInput{InstrumentID: d.ins[0].ID, MarketID: d.otc,
				Direction: venue.Bid, Quantity: &q, Counterparties: []string{f.ID}})
			if err != nil {
				t.Fatalf("CreateRFQ(to %s) = %v", f.Name, err)
			}
			s.steps(ctx, 4) // four ticks of two seconds: the dealer answers within 1–4 s
			v, err := svc.RFQ(ctx, p, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			quoted := false
			for _, o := range v.MatchedOffers {
				quoted = quoted || (o.Type == venue.TypeQuote && o.ParticipantID == f.ID)
			}
			if !quoted && v.Status != venue.StatusRejected {
				t.Errorf("RFQ to %s: status %s and no quote after 8 s, want a quote or a decline", f.Name, v.Status)
			}
		}
	})
}

// TestDealersAnswerLists: each simulated dealer answers a portfolio list
// sent to it within a few seconds, with a quote pricing every line or a
// decline.
func TestDealersAnswerLists(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		d := newDealers(t, e, 3)
		svc, s, p, sim := d.svc, d.s, d.p, d.sim
		in := trading.PortfolioInput{MarketID: d.otc}
		for i, x := range d.ins {
			dir := venue.Bid
			if i == 1 {
				dir = venue.Ask
			}
			q := udecimal.MustFromInt64(1_000_000, 0)
			in.Lines = append(in.Lines, trading.PortfolioLineInput{InstrumentID: x.ID, Direction: dir, Quantity: &q})
		}
		for _, f := range sim.Firms {
			in.Counterparties = append(in.Counterparties, f.ID)
		}
		r, err := svc.CreatePortfolioRFQ(ctx, p, in)
		if err != nil {
			t.Fatalf("CreatePortfolioRFQ() = %v", err)
		}
		s.steps(ctx, 4) // the dealers answer within 1–4 s
		v, err := svc.PortfolioRFQ(ctx, p, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		answered := map[string]bool{}
		for _, q := range v.Quotes {
			answered[q.ParticipantID] = true
			if q.Outcome != venue.OutcomeDeclined && len(q.Lines) != len(in.Lines) {
				t.Errorf("%s's quote prices %d of %d lines", q.ParticipantID, len(q.Lines), len(in.Lines))
			}
		}
		for _, f := range sim.Firms {
			if !answered[f.ID] {
				t.Errorf("%s did not answer the list within 8 s", f.Name)
			}
		}
	})
}

func TestQuietWithoutDemoFirms(t *testing.T) {
	ctx := context.Background()
	core := testenv.Service(t, store.SQLite, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	svc := core.Svc
	m := demomarket.New(svc, core.Cluster, demomarket.Config{})
	m.Step(ctx)
	m.Step(ctx)
	if empty, err := svc.Empty(ctx); err != nil || !empty {
		t.Errorf("Empty() = %v, %v after steps on a venue without demo data, want true", empty, err)
	}
}

// TestStandbyStaysQuiet: on two instances of one PostgreSQL database only
// the leader's market acts.
func TestStandbyStaysQuiet(t *testing.T) {
	ctx := context.Background()
	url := testenv.DatabaseURL(t, store.Postgres)
	h := auth.FastHasher
	cfg := trading.Config{Logger: slog.New(slog.DiscardHandler), Hasher: &h}
	leader, _ := testenv.Demo(t, testenv.OpenConfig(t, store.Config{URL: url}), testenv.Config{Trading: cfg})
	standby := testenv.Started(t, testenv.OpenConfig(t, store.Config{URL: url}), testenv.Config{Trading: cfg})
	if standby.Cluster.Role() != cluster.RoleStandby {
		t.Fatalf("second instance is %s, want standby", standby.Cluster.Role())
	}
	m := demomarket.New(standby.Svc, standby.Cluster, demomarket.Config{})
	for range 20 {
		m.Step(ctx)
	}
	ps, err := leader.Svc.Participants(ctx, trading.System, venue.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	offers, err := leader.Svc.Offers(ctx, trading.System, trading.OfferFilter{}, venue.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.Items) != 4 || len(offers.Items) != 0 {
		t.Errorf("after 20 steps on the standby: %d participants, %d offers; want the demo's 4 and none", len(ps.Items), len(offers.Items))
	}
}

func TestStopLeavesNoGoroutine(t *testing.T) {
	ctx := context.Background()
	core, _ := testenv.Demo(t, testenv.Open(t, store.SQLite), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	svc := core.Svc
	before := runtime.NumGoroutine()
	m := demomarket.New(svc, core.Cluster, demomarket.Config{Tick: 5 * time.Millisecond})
	m.Start()
	testenv.Wait(t, "an offer of the demo market resting", func() bool {
		l, err := svc.Offers(ctx, trading.System, trading.OfferFilter{Status: venue.StatusCreated}, venue.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Items) > 0
	})
	m.Stop()
	m.Stop() // a second Stop is harmless
	// Stop returns once the market's goroutines are told to end; they
	// end when the machine lets them.
	deadline, limited := testenv.Deadline(t)
	for runtime.NumGoroutine() > before {
		if limited && time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Stop, %d before Start:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSimulatedRFQsToHumans: now and then a simulated firm asks the demo
// firms for a quote; a human dealer's good quote is taken.
func TestSimulatedRFQsToHumans(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		svc, creds, s := newVenue(t, e)
		trader := creds.Participants[0].Users[1]
		p := venue.Principal{UserID: trader.UserID, ParticipantID: creds.Participants[0].ID, Role: venue.Role(trader.Role)}
		var rfq venue.Offer
		for i := 0; rfq.ID == ""; i++ {
			if i == 2000 {
				t.Fatal("no simulated RFQ reached participant 0 in 2000 steps")
			}
			s.steps(ctx, 10)
			l, err := svc.RFQs(ctx, p, trading.OfferFilter{Status: venue.StatusCreated}, venue.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range l.Items {
				if r.ParticipantID != p.ParticipantID {
					rfq = r
				}
			}
		}
		c, err := svc.PriceCollar(ctx, p, rfq.InstrumentID, rfq.MarketID)
		if err != nil || !c.HasReference {
			t.Fatalf("collar of the RFQ's instrument: %+v, %v; want a reference", c, err)
		}
		// A point better for the requester than the reference: a quote it takes.
		px, side := c.Reference.Sub(udecimal.MustFromInt64(1, 0)).Trunc(2), venue.Ask
		if rfq.Direction == venue.Ask {
			px, side = c.Reference.Add(udecimal.MustFromInt64(1, 0)).Trunc(2), venue.Bid
		}
		q := rfq.Quantity
		quote, err := svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: rfq.InstrumentID, MarketID: rfq.MarketID,
			Direction: side, Price: &px, Quantity: &q, MatchedOfferID: rfq.ID})
		if err != nil {
			t.Fatalf("quote on the simulated RFQ: %v", err)
		}
		s.steps(ctx, 2)
		trades, err := svc.Trades(ctx, p, trading.TradeFilter{OfferID: quote.ID}, venue.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(trades.Items) != 1 {
			t.Errorf("the quote at %s (reference %s) on a simulated %s RFQ: %d trades, want it taken", px, c.Reference, rfq.Direction, len(trades.Items))
		}
	})
}

// TestClosedMarketLeftAlone: the simulated firms send nothing to the
// demo's market with trading hours while it is closed (no refusal is
// logged, no offer rests there), and quote its bonds once it opens.
func TestClosedMarketLeftAlone(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		berlin, _ := time.LoadLocation("Europe/Berlin")
		clock := testenv.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, berlin)) // a Saturday
		core, _ := testenv.Demo(t, testenv.Open(t, e), testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler),
			Now: clock.Now}})
		svc := core.Svc
		var logs syncBuffer
		m := demomarket.New(svc, core.Cluster, demomarket.Config{Now: clock.Now, Seed: 7,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		s := stepper{m: m, clock: clock}
		ms, err := svc.Markets(ctx, trading.System, trading.MarketFilter{}, venue.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var day string
		for _, mk := range ms.Items {
			if mk.Hours != nil {
				day = mk.ID
			}
		}
		resting := func() int {
			t.Helper()
			offers, err := svc.Offers(ctx, trading.System, trading.OfferFilter{Status: venue.StatusCreated, Type: venue.TypeOffer},
				venue.Page{Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, o := range offers.Items {
				if o.MarketID == day {
					n++
				}
			}
			return n
		}

		s.steps(ctx, 60)
		if n := resting(); n != 0 {
			t.Errorf("%d offers resting on the closed day session, want none", n)
		}
		if strings.Contains(logs.String(), "the market is") {
			t.Errorf("the simulator sent orders the closed market refused:\n%s", logs.String())
		}

		clock.Advance(time.Date(2026, 11, 23, 8, 0, 0, 0, berlin).Sub(clock.Now())) // Monday's open
		s.steps(ctx, 60)
		if n := resting(); n == 0 {
			t.Error("no offer resting on the day session after its open")
		}
	})
}

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
