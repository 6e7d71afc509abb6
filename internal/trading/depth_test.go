package trading_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestFeedDepth: asks resting on an OTC market (which has no matching
// book) change the instrument's depth there; a subscriber of two levels
// receives a depth only when one of its levels changed, the levels best
// first, while one of the default ten receives every change. After a
// restart the same depths are read back from the log.
func TestFeedDepth(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := newDemoVenue(t, e)
			ctx := context.Background()
			otc := v.otc(t)
			start := lastSeq(t, v.db)
			seller := v.principal(t, 1, venue.RoleTrader)
			ask := func(price string) trading.OfferView {
				t.Helper()
				p, q := udecimal.MustParse(price), udecimal.MustParse("1000000")
				o, err := v.svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: v.instrument, MarketID: otc,
					Direction: venue.Ask, Price: &p, Quantity: &q})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			ask("101")
			best := ask("100.5")
			ask("102")
			if _, err := v.svc.DeleteOffer(ctx, seller, best.ID); err != nil {
				t.Fatal(err)
			}
			end := lastSeq(t, v.db)

			// asks are the ask levels of each depth a subscriber receives.
			asks := func(depth int) [][]string {
				t.Helper()
				sub, err := v.svc.Subscribe(ctx, trading.System, start, feed.EventFilter{Types: []string{feed.EventDepth}, Depth: depth})
				if err != nil {
					t.Fatal(err)
				}
				r := follow(sub)
				waitFor(t, func() bool { return r.last() >= end })
				sub.Close()
				var out [][]string
				for _, ev := range r.all() {
					if ev.Depth == nil || ev.Depth.MarketID != otc || ev.Depth.InstrumentID != v.instrument || len(ev.Depth.Bid) != 0 {
						t.Fatalf("depth event %+v, want the instrument's asks on the OTC market", ev.Depth)
					}
					var levels []string
					for _, le := range ev.Depth.Ask {
						levels = append(levels, le.Limit.String())
					}
					out = append(out, levels)
				}
				return out
			}
			want := map[int][][]string{
				2:  {{"101"}, {"100.5", "101"}, {"101", "102"}},
				10: {{"101"}, {"100.5", "101"}, {"100.5", "101", "102"}, {"101", "102"}},
			}
			for _, depth := range []int{2, 10} {
				if d := cmp.Diff(want[depth], asks(depth)); d != "" {
					t.Errorf("depth %d (-want +got):\n%s", depth, d)
				}
			}
			v.restart(t) // a new feed: the depths come from the log
			for _, depth := range []int{2, 10} {
				if got := asks(depth); !slices.EqualFunc(want[depth], got, slices.Equal) {
					t.Errorf("depth %d after a restart: %v, want %v", depth, got, want[depth])
				}
			}
		})
	}
}
