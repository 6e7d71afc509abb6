package trading_test

import (
	"context"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestPublicationAcrossRestart: a deferred trade's publication survives a
// restart of the engine: the new engine rebuilds the trades not yet
// published in full from the database and publishes each part when due,
// once, and records when.
func TestPublicationAcrossRestart(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		clock := testenv.NewClock(time.Date(2027, 1, 13, 10, 0, 0, 0, time.UTC))
		v := testenv.NewDemoVenueClocked(t, testenv.Open(t, e), clock.Now)
		ins, err := v.Svc.Instrument(ctx, trading.System, v.Instrument, 0)
		if err != nil {
			t.Fatal(err)
		}
		// 60 m: deferred in every class of the table (price at the end of
		// the day or later).
		qty := udecimal.MustFromInt64(60_000_000, 0)
		for _, name := range []string{venue.LimitMaxOffer, venue.LimitMaxOfferValue, venue.LimitAllOfferSum, venue.LimitAllOfferUserSum} {
			setLimit(t, v, 0, name, "1000000000")
			setLimit(t, v, 1, name, "1000000000")
		}
		px := udecimal.MustParse("99")
		if _, err := v.Svc.CreateOffer(ctx, v.Principal(t, 1, venue.RoleTrader), trading.OfferInput{InstrumentID: v.Instrument,
			MarketID: v.Partial, Direction: venue.Ask, Price: &px, Quantity: &qty}); err != nil {
			t.Fatal(err)
		}
		bid, err := v.Svc.CreateOffer(ctx, v.Principal(t, 0, venue.RoleTrader), trading.OfferInput{InstrumentID: v.Instrument,
			MarketID: v.Partial, Direction: venue.Bid, Price: &px, Quantity: &qty})
		if err != nil || len(bid.Trades) != 1 {
			t.Fatalf("bid: %d trades, %v", len(bid.Trades), err)
		}
		tr := bid.Trades[0]
		p := tr.Publication
		if p.Deferral == "" || !p.PriceDueAt.After(tr.CreatedAt) || p.PublishedPriceAt != nil {
			t.Fatalf("publication of a 60 m trade in %s: %+v, want deferred", ins.Terms.Industry, p)
		}
		after, err := v.Core.Live.LastEventSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}

		v.Restart(t)
		clock.Advance(p.VolumeDueAt.Sub(clock.Now()))      // both due
		setLimit(t, v, 2, venue.LimitMaxOffer, "50000000") // any command runs a batch of the new engine
		var published []feed.Event
		for _, ev := range v.RestEvents(t, trading.System, after) {
			if ev.Type == feed.EventTapePublish {
				published = append(published, ev)
			}
		}
		if len(published) != 1 || published[0].Tape.TradeID != tr.ID || published[0].Tape.Quantity == nil ||
			!published[0].Tape.Quantity.Equal(qty) {
			t.Fatalf("tape.publish events after the restart: %+v, want the trade whole, once", published)
		}
		got, err := v.Svc.Trade(ctx, v.Principal(t, 0, venue.RoleTrader), tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if gp := got.Publication; gp.PublishedPriceAt == nil || gp.PublishedVolumeAt == nil || !gp.PublishedVolumeAt.Equal(clock.Now()) {
			t.Errorf("the trade's publication after the restart: %+v, want both published at %s", gp, clock.Now())
		}
		// Nothing more to publish: another restart and batch add none.
		v.Restart(t)
		setLimit(t, v, 2, venue.LimitMaxOffer, "50000000")
		n := 0
		for _, ev := range v.RestEvents(t, trading.System, after) {
			if ev.Type == feed.EventTapePublish {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d tape.publish events after a second restart, want still 1", n)
		}
	})
}
