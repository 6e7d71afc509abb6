package trading_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestControlsSurviveRestart: a kill switch and a halt, written in the
// sequencer's batch, still bind after the sequencer rebuilds its state from
// the database, and so does the collar's fallback on the valid indicative
// prices it reads back.
func TestControlsSurviveRestart(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		v := testenv.NewDemoVenue(t, e)
		ctx := context.Background()
		p0, p1, p2 := v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader), v.Principal(t, 2, venue.RoleTrader)
		on := true
		if _, err := v.Svc.SetKillSwitch(ctx, trading.System, p0.ParticipantID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Svc.SetHalt(ctx, trading.System, v.Partial, v.Instrument, trading.HaltInput{Halted: &on, Reason: "auction"}); err != nil {
			t.Fatal(err)
		}
		bid, ask := udecimal.MustParse("97"), udecimal.MustParse("98")
		if _, err := v.Svc.CreateIndicativePrice(ctx, p1, trading.IndicativeInput{InstrumentID: v.Instrument,
			AccountID: v.Creds.Participants[1].AccountIDs[0], BidPrice: &bid, AskPrice: &ask}); err != nil {
			t.Fatal(err)
		}
		v.Restart(t)

		price, qty := udecimal.MustParse("97.5"), udecimal.MustParse("1000")
		offer := func(p venue.Principal, market string, price udecimal.Decimal) error {
			_, err := v.Svc.CreateOffer(ctx, p, trading.OfferInput{InstrumentID: v.Instrument, MarketID: market,
				Direction: venue.Bid, Price: &price, Quantity: &qty})
			return err
		}
		if err := offer(p0, v.AllOrNone, price); !errors.Is(err, venue.ErrForbidden) || !strings.Contains(err.Error(), "kill switch") {
			t.Errorf("offer of a firm whose kill switch is on, after a restart = %v, want 403 naming the kill switch", err)
		}
		if err := offer(p2, v.Partial, price); !errors.Is(err, venue.ErrConflict) || !strings.Contains(err.Error(), "auction") {
			t.Errorf("offer on a halted instrument, after a restart = %v, want 409 naming the halt", err)
		}
		err := offer(p2, v.AllOrNone, udecimal.MustParse("9750"))
		if !errors.Is(err, venue.ErrInvalid) || !strings.Contains(err.Error(), "97.5 ("+sequencer.SourceIndicative+")") {
			t.Errorf("offer at 9750 against an indicative mid of 97.5, after a restart = %v, want 400 naming the collar", err)
		}
		if err := offer(p2, v.AllOrNone, price); err != nil {
			t.Errorf("offer at 97.5 = %v, want it taken", err)
		}
	})
}
