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

// TestSequencerLease: a second engine on the same database takes the
// lease; the first can then write nothing (its commands fail, its
// readiness reports it) and the second trades on.
func TestSequencerLease(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
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
		var prices []string
		for _, o := range v.offers(t) {
			prices = append(prices, o.Price.String())
		}
		if len(prices) != 2 || prices[0] != "103" || prices[1] != "101" {
			t.Errorf("offers in the database = %v, want [103 101]: nothing of the fenced-off engine", prices)
		}
	})
}
