package trading_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestSequencerLease: a second engine on the same database that takes the
// lease (on SQLite, where one process runs and leadership is never in
// doubt, a second service in it takes over) fences the first: it can then
// write nothing (its commands fail, its readiness reports it) and the
// second trades on. (On PostgreSQL a second instance stands by instead:
// TestLeaderElection.)
func TestSequencerLease(t *testing.T) {
	for _, e := range []store.Engine{store.SQLite} {
		ctx := context.Background()
		v := newDemoVenue(t, e)
		first := v.svc
		trader := v.principal(t, 0, venue.RoleTrader)
		ask := func(svc *trading.Service, price string) error {
			_, err := svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.instrument, MarketID: v.partial,
				Direction: "ask", Price: ptrTo(dec(price)), Quantity: ptrTo(dec("1000"))})
			return err
		}
		if err := ask(first, "101"); err != nil {
			t.Fatalf("first engine, before the takeover: %v", err)
		}
		if err := first.Ready(ctx); err != nil {
			t.Fatalf("Ready() before the takeover = %v", err)
		}

		second := trading.New(v.db, v.cfg)
		if err := second.Start(ctx); err != nil {
			t.Fatalf("second Start() = %v", err)
		}
		t.Cleanup(second.Close)

		err := ask(first, "102")
		if !errors.Is(err, store.ErrLeaseLost) || venue.KindOf(err) != venue.KindNotReady {
			t.Errorf("first engine after the takeover: CreateOffer() = %v, want the lease-lost error", err)
		}
		if err := first.Ready(ctx); !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("first engine Ready() = %v, want the lease-lost error", err)
		}
		if err := ask(second, "103"); err != nil {
			t.Errorf("second engine: CreateOffer() = %v", err)
		}
		// The fenced engine does not know the second's offer: it must not
		// answer "not found" from its stale books.
		made := v.offers(t)[0]
		if _, err := first.DeleteOffer(ctx, trader, made.ID); !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("first engine cancelling the second's offer: %v, want the lease-lost error", err)
		}
		var prices []string
		for _, o := range v.offers(t) {
			prices = append(prices, o.Price.String())
		}
		if len(prices) != 2 || prices[0] != "103" || prices[1] != "101" {
			t.Errorf("offers in the database = %v, want [103 101]: nothing of the fenced-off engine", prices)
		}
	}
}

// TestLeaderElection: two instances on one PostgreSQL database. The first
// leads; the second stands by — ready, serving reads and the committed
// events the leader writes, refusing trading commands with a 503 — and
// takes over within seconds when the leader goes, with the leader's books.
// A leader cut off from the database (its lock's connection terminated)
// stops acknowledging and stays a standby while the other one leads.
func TestLeaderElection(t *testing.T) {
	ctx := context.Background()
	url := testenv.DatabaseURL(t, store.Postgres)
	h := auth.FastHasher
	cfg := trading.Config{Logger: slog.New(slog.DiscardHandler), Hasher: &h, CampaignInterval: 100 * time.Millisecond}
	a, creds := testenv.Demo(t, testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	b := trading.New(testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if a.Role() != trading.RoleLeader || b.Role() != trading.RoleStandby {
		t.Fatalf("roles %s, %s; want leader, standby", a.Role(), b.Role())
	}
	if err := b.Ready(ctx); err != nil {
		t.Errorf("a standby is ready: %v", err)
	}
	trader := func(i int) venue.Principal {
		p := creds.Participants[i]
		for _, u := range p.Users {
			if u.Role == string(venue.RoleTrader) {
				return venue.Principal{UserID: u.UserID, ParticipantID: p.ID, Role: venue.RoleTrader, ClientID: u.ClientID}
			}
		}
		t.Fatal("no trader")
		return venue.Principal{}
	}
	ms, err := b.Markets(ctx, trader(0), trading.MarketFilter{FacilityType: venue.FacilityContinuous}, venue.Page{Limit: 10})
	if err != nil || len(ms.Items) == 0 {
		t.Fatalf("a standby serves reads: %v", err)
	}
	var market, instrument string
	for _, m := range ms.Items {
		if m.IsPartialFillAllowed {
			market = m.ID
		}
	}
	ins, err := b.Instruments(ctx, trader(0), trading.InstrumentFilter{MarketID: market}, venue.Page{Limit: 1})
	if err != nil || len(ins.Items) == 0 {
		t.Fatalf("instruments on the standby: %v", err)
	}
	instrument = ins.Items[0].ID
	acc := func(i int) string { return creds.Participants[i].AccountIDs[0] }
	offer := func(svc *trading.Service, i int, dir, price string) (trading.OfferView, error) {
		return svc.CreateOffer(ctx, trader(i), trading.OfferInput{InstrumentID: instrument, MarketID: market, AccountID: acc(i),
			Direction: dir, Price: ptrTo(dec(price)), Quantity: ptrTo(dec("100000"))})
	}
	if _, err := offer(b, 0, "ask", "101"); venue.KindOf(err) != venue.KindNotReady || !strings.Contains(err.Error(), "standby") {
		t.Errorf("a command on the standby: %v, want a 503 naming the standby", err)
	}
	// The standby's feed carries the leader's events.
	after, err := b.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := b.Subscribe(ctx, trading.System, after, feed.EventFilter{Types: []string{"offer."}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ask, err := offer(a, 0, "ask", "101")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.C:
		if e.Offer == nil || e.Offer.ID != ask.ID {
			t.Errorf("the standby's feed: %+v, want the leader's offer", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the leader's offer did not reach the standby's feed")
	}

	// The leader goes: the standby takes over with the leader's books.
	start := time.Now()
	a.Close()
	waitRole(t, b, trading.RoleLeader)
	t.Logf("takeover in %s", time.Since(start))
	if b.Takeovers() != 1 {
		t.Errorf("takeovers %d", b.Takeovers())
	}
	bid, err := offer(b, 1, "bid", "101")
	if err != nil || len(bid.Trades) != 1 {
		t.Fatalf("the new leader trades against the old leader's offer: %d trades, %v", len(bid.Trades), err)
	}

	// A third instance stands by; the leader is cut off from the
	// database: it stops, the standby leads, and the cut-off one stays a
	// standby (it acknowledges nothing more).
	c := trading.New(testenv.OpenConfig(t, store.Config{URL: url}), cfg)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if c.Role() != trading.RoleStandby {
		t.Fatalf("third instance: %s", c.Role())
	}
	admin := testenv.OpenConfig(t, store.Config{URL: url})
	if err := admin.InTx(ctx, func(tx *store.Tx) error { return tx.TerminateLeader(ctx) }); err != nil {
		t.Fatal(err)
	}
	waitRole(t, b, trading.RoleStandby)
	waitRole(t, c, trading.RoleLeader)
	if _, err := offer(b, 0, "ask", "102"); venue.KindOf(err) != venue.KindNotReady {
		t.Errorf("the cut-off leader still acknowledges: %v", err)
	}
	if _, err := offer(c, 0, "ask", "102"); err != nil {
		t.Errorf("the new leader: %v", err)
	}
}

// waitRole waits up to 5 s for svc to take role.
func waitRole(t *testing.T, svc *trading.Service, role string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for svc.Role() != role {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5 s (role %s)", role, svc.Role())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
