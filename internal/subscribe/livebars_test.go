package subscribe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestLiveBarsFold: a stream's price changes fold into the current bar of
// their book; a change without trades emits nothing; a new interval opens
// a new bar; an interval bars do not come in is invalid.
func TestLiveBarsFold(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		ctx := context.Background()
		v := testenv.NewDemoVenue(t, e)
		p := v.Principal(t, 0, venue.RoleTrader)
		if _, err := v.Core.Live.LiveBars(p, "2m"); !errors.Is(err, venue.ErrInvalid) {
			t.Fatalf("LiveBars(2m) = %v, want invalid", err)
		}
		lb, err := v.Core.Live.LiveBars(p, "")
		if err != nil || lb.Interval() != "1m" {
			t.Fatalf("LiveBars(\"\") = %v, %v, want 1m", lb, err)
		}
		open := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC) // no trade of the demo venue is this old
		change := func(at time.Time, prices ...string) feed.Event {
			pc := &feed.PriceChange{InstrumentID: v.Instrument, MarketID: v.Partial}
			for _, pr := range prices {
				pc.Trades = append(pc.Trades, feed.Print{Price: dec(pr), Quantity: dec("1000")})
			}
			return feed.Event{Type: feed.EventPriceChange, OccurredAt: at, PriceChange: pc}
		}
		bar := func(openTime time.Time, o, h, l, c, vol string, n int) subscribe.Bar {
			return subscribe.Bar{InstrumentID: v.Instrument, MarketID: v.Partial, Interval: "1m", OpenTime: openTime,
				Open: dec(o), High: dec(h), Low: dec(l), Close: dec(c), Volume: dec(vol), Trades: n}
		}
		for _, tc := range []struct {
			name string
			ev   feed.Event
			want *subscribe.Bar
		}{
			{"best prices only", change(open.Add(time.Second)), nil},
			{"first trades, the bar read so far", change(open.Add(10*time.Second), "99", "101"),
				ptrTo(bar(open, "99", "101", "99", "101", "2000", 2))},
			{"more trades in the bar", change(open.Add(20*time.Second), "98"),
				ptrTo(bar(open, "99", "101", "98", "98", "3000", 3))},
			{"the next bar", change(open.Add(time.Minute), "100"),
				ptrTo(bar(open.Add(time.Minute), "100", "100", "100", "100", "1000", 1))},
		} {
			got, ok, err := lb.Fold(ctx, tc.ev)
			if err != nil {
				t.Fatalf("%s: Fold() = %v", tc.name, err)
			}
			if tc.want == nil {
				if ok {
					t.Errorf("%s: Fold() = %+v, want no bar", tc.name, got)
				}
				continue
			}
			if diff := cmp.Diff(*tc.want, got, cmp.Comparer(func(a, b udecimal.Decimal) bool { return a.Equal(b) })); !ok || diff != "" {
				t.Errorf("%s: Fold() ok %v, bar (-want +got):\n%s", tc.name, ok, diff)
			}
		}
	})
}
