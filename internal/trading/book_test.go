package trading_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestInstrumentBook: instrument_limits come from the sequencer's books
// (each continuous market's best, merged) and its OTC firm offers; they
// must equal what the database holds, as a service without a running
// sequencer reads it, at every depth and after changes.
func TestInstrumentBook(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := testenv.NewDemoVenue(t, e)
		otc := v.OTC(t)
		traders := []venue.Principal{v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader)}
		enter := func(i int, market, dir, price string) string {
			t.Helper()
			r, err := v.Svc.CreateOffer(ctx, traders[i], trading.OfferInput{InstrumentID: v.Instrument, MarketID: market,
				Direction: dir, Price: ptrTo(dec(price)), Quantity: ptrTo(dec(fmt.Sprint(1000 * (i + 1))))})
			if err != nil {
				t.Fatalf("CreateOffer(%s %s %s) = %v", market, dir, price, err)
			}
			return r.Offer.ID
		}
		enter(0, v.Partial, "bid", "98")
		enter(1, v.AllOrNone, "bid", "99")
		otcBid := enter(0, otc, "bid", "99")
		enter(1, v.Partial, "bid", "99")
		enter(0, v.Partial, "ask", "101")
		enter(1, otc, "ask", "100.5")
		enter(0, v.AllOrNone, "ask", "101")

		// A service on the same database whose sequencer never started
		// reads the books from the database.
		offline := unstarted(v.DB, v.Cfg.Trading)
		compare := func(when string) {
			t.Helper()
			for _, viewer := range []venue.Principal{traders[0], v.Principal(t, 2, venue.RoleTrader), trading.System} {
				for _, depth := range []int{0, 1, 2, 3, 10} {
					got, err := v.Svc.Instrument(ctx, viewer, v.Instrument, depth)
					if err != nil {
						t.Fatal(err)
					}
					want, err := offline.Instrument(ctx, viewer, v.Instrument, depth)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want.Limits, got.Limits); diff != "" {
						t.Errorf("%s, depth %d, as %s: books from the sequencer differ from the database (-db +sequencer):\n%s",
							when, depth, viewer.ParticipantID, diff)
					}
				}
			}
			list, err := v.Svc.Instruments(ctx, traders[1], trading.InstrumentFilter{}, venue.Page{})
			if err != nil {
				t.Fatal(err)
			}
			wantList, err := offline.Instruments(ctx, traders[1], trading.InstrumentFilter{}, venue.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) == 0 || len(list.Items) != len(wantList.Items) {
				t.Fatalf("%s: %d instruments listed, the database lists %d", when, len(list.Items), len(wantList.Items))
			}
			for i := range list.Items {
				if diff := cmp.Diff(wantList.Items[i].Limits, list.Items[i].Limits); diff != "" {
					t.Errorf("%s, instrument list: books differ (-db +sequencer):\n%s", when, diff)
				}
			}
		}
		compare("after entry")

		d, err := v.Svc.Instrument(ctx, traders[0], v.Instrument, 2)
		if err != nil {
			t.Fatal(err)
		}
		var bids []string
		for _, l := range d.Limits.Bid {
			bids = append(bids, l.Limit.String()+"/"+l.Quantity.String())
		}
		// 99 three times, in time priority across markets (AON, OTC,
		// partial); depth 2 keeps the first two.
		if want := []string{"99/2000", "99/1000"}; !cmp.Equal(bids, want) {
			t.Errorf("best two bids = %v, want %v", bids, want)
		}
		if len(d.Limits.Ask) != 2 || d.Limits.Ask[0].Limit.String() != "100.5" || d.Limits.Ask[0].ParticipantName == "" {
			t.Errorf("best asks = %+v, want the OTC ask at 100.5 first, with its firm's name", d.Limits.Ask)
		}

		if _, err := v.Svc.DeleteOffer(ctx, traders[0], otcBid); err != nil {
			t.Fatalf("DeleteOffer(OTC bid) = %v", err)
		}
		enter(1, v.Partial, "ask", "98") // trades with the partial bids at 99 and 98
		compare("after a cancel and a trade")
		v.Restart(t)
		compare("after a restart")
	})
}

// TestInstrumentBookUnderLoad: readers that hold a pooled read transaction
// while they wait for the sequencer's books must not starve it of a
// connection, and no write transaction may wait for them (SQLite's one
// writer is the sequencer's too). A pool of two, instrument lists, bucket
// creation and offers at once: every call returns well within the
// deadline.
func TestInstrumentBookUnderLoad(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		v := testenv.NewDemoVenueOn(t, testenv.OpenConfig(t, store.Config{URL: testenv.DatabaseURL(t, e), DataDir: t.TempDir(), MaxOpen: 2}))
		trader := v.Principal(t, 0, venue.RoleTrader)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for w := range 16 {
			wg.Go(func() {
				for i := range 10 {
					var err error
					switch w % 3 {
					case 0:
						_, err = v.Svc.Instruments(ctx, trader, trading.InstrumentFilter{}, venue.Page{})
					case 1: // a write transaction that answers with books
						_, err = v.Svc.CreateBucket(ctx, trader, trading.BucketInput{Name: ptrTo(fmt.Sprintf("b%d-%d", w, i)),
							InstrumentIDs: &[]string{v.Instrument}})
					default:
						_, err = v.Svc.CreateOffer(ctx, trader, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
							Direction: "bid", Price: ptrTo(dec(fmt.Sprintf("9%d", i))), Quantity: ptrTo(dec("1000"))})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("under load: %v", err)
		}
	})
}
