package trading_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestReferenceChangedElsewhere changes a risk limit and a counterparty
// relation through a second service on the same database that runs no
// engine, as `bondvenue admin` does: the running engine, which reloads
// reference data at once only for changes made through its own service,
// enforces them within a few seconds (it polls the database's reference
// version every second).
func TestReferenceChangedElsewhere(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		v := testenv.NewDemoVenue(t, e)
		ctx := context.Background()
		admin := unstarted(v.DB, v.Cfg.Trading) // not started: the admin commands' service
		trader := v.Principal(t, 0, venue.RoleTrader)
		offer := func() error {
			_, err := v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
				Direction: venue.Bid, Price: ptrTo(dec("90")), Quantity: ptrTo(dec("2000000"))})
			return err
		}
		if err := offer(); err != nil {
			t.Fatalf("CreateOffer before the change = %v", err)
		}
		// eventually waits for cond, until the test's time runs out.
		eventually := func(what string, cond func() bool) {
			t.Helper()
			testenv.Wait(t, "the running engine sees "+what, cond)
		}

		if _, err := admin.SetRiskLimit(ctx, trading.System, v.Creds.Participants[0].ID,
			trading.RiskLimitInput{Name: venue.LimitMaxOffer, Value: ptrTo(dec("1000000"))}); err != nil {
			t.Fatal(err)
		}
		eventually("the lower MAX_OFFER", func() bool {
			err := offer()
			return err != nil && strings.Contains(err.Error(), venue.LimitMaxOffer)
		})

		p0, p1 := v.Creds.Participants[0].ID, v.Creds.Participants[1].ID
		rfq := func() error {
			_, err := v.Svc.CreateRFQ(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.OTC(t),
				Direction: venue.Bid, Quantity: ptrTo(dec("1000000")), Counterparties: []string{p1}})
			return err
		}
		if err := rfq(); err != nil {
			t.Fatalf("CreateRFQ to a counterparty = %v", err)
		}
		if _, err := admin.SetCounterparty(ctx, trading.System, p0, p1, ptrTo(false)); err != nil {
			t.Fatal(err)
		}
		eventually("the disabled counterparty relation", func() bool {
			err := rfq()
			return err != nil && strings.Contains(err.Error(), "counterpart")
		})
	})
}
