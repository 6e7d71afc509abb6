package trading_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestFencedService: what the use cases add once another sequencer took
// the lease (the fencing itself is the sequencer's: TestSequencerLease in
// internal/sequencer; the leadership's TestLeaderElection in
// internal/cluster). The fenced service's readiness reports the lost
// lease, and a refusal its stale books give — "not found" for the other
// sequencer's offer — is answered as the lease-lost error, never as a 404.
func TestFencedService(t *testing.T) {
	ctx := context.Background()
	v := testenv.NewDemoVenue(t, store.SQLite)
	first := v.Svc
	trader := v.Principal(t, 0, venue.RoleTrader)
	if _, err := v.Core.Cluster.Readiness(ctx); err != nil {
		t.Fatalf("Readiness() before the takeover = %v", err)
	}

	second := testenv.Started(t, v.DB, v.Cfg).Svc
	made, err := second.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
		Direction: venue.Ask, Price: ptrTo(dec("103")), Quantity: ptrTo(dec("1000"))})
	if err != nil {
		t.Fatalf("second service: CreateOffer() = %v", err)
	}

	if _, err := first.DeleteOffer(ctx, trader, made.ID); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("first service cancelling the second's offer: %v, want the lease-lost error", err)
	}
	if _, err := v.Core.Cluster.Readiness(ctx); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("first instance's Readiness() = %v, want the lease-lost error", err)
	}
}
