package subscribe_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

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
			v := testenv.NewDemoVenue(t, e)
			ctx := context.Background()
			otc := v.OTC(t)
			start := lastSeq(t, v.DB)
			seller := v.Principal(t, 1, venue.RoleTrader)
			ask := func(price string) trading.OfferView {
				t.Helper()
				p, q := udecimal.MustParse(price), udecimal.MustParse("1000000")
				o, err := v.Svc.CreateOffer(ctx, seller, trading.OfferInput{InstrumentID: v.Instrument, MarketID: otc,
					Direction: venue.Ask, Price: &p, Quantity: &q})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			ask("101")
			best := ask("100.5")
			ask("102")
			if _, err := v.Svc.DeleteOffer(ctx, seller, best.ID); err != nil {
				t.Fatal(err)
			}
			end := lastSeq(t, v.DB)

			// asks are the ask levels of each depth a subscriber receives.
			asks := func(depth int) [][]string {
				t.Helper()
				sub, err := v.Core.Live.Subscribe(ctx, trading.System, start, feed.EventFilter{Types: []string{feed.EventDepth}, Depth: depth})
				if err != nil {
					t.Fatal(err)
				}
				r := follow(sub)
				waitFor(t, func() bool { return r.last() >= end })
				sub.Close()
				var out [][]string
				for _, ev := range r.all() {
					if ev.Depth == nil || ev.Depth.MarketID != otc || ev.Depth.InstrumentID != v.Instrument || len(ev.Depth.Bid) != 0 {
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
			v.Restart(t) // a new feed: the depths come from the log
			for _, depth := range []int{2, 10} {
				if got := asks(depth); !slices.EqualFunc(want[depth], got, slices.Equal) {
					t.Errorf("depth %d after a restart: %v, want %v", depth, got, want[depth])
				}
			}
		})
	}
}

// TestFeedDepthContinuous: on a continuous book, random bids and asks
// (some crossing, so partly filled), amends of price and quantity and
// cancels: after each, the last instrument.depth of the book shows what
// the instrument read shows of it, level for level. The feed works each
// ladder out from the last one, reading only the offers from the first
// order that changed; the read builds it from scratch.
func TestFeedDepthContinuous(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := testenv.NewDemoVenue(t, e)
			ctx := context.Background()
			seed := time.Now().UnixNano()
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(uint64(seed), 1))
			sub, err := v.Core.Live.Subscribe(ctx, trading.System, lastSeq(t, v.DB), feed.EventFilter{Depth: feed.MaxStreamDepth})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sub.Close)
			r := follow(sub)
			traders := []venue.Principal{v.Principal(t, 0, venue.RoleTrader), v.Principal(t, 1, venue.RoleTrader), v.Principal(t, 2, venue.RoleTrader)}
			type resting struct {
				id  string
				who venue.Principal
			}
			var open []resting
			level := func(e feed.LimitEntry) string { return e.OfferID + " " + e.Limit.String() + " " + e.Quantity.String() }
			for step := range 120 {
				who := traders[rng.IntN(len(traders))]
				switch op := rng.IntN(10); {
				case op < 6 || len(open) == 0: // a new offer, a third of them crossing
					dir, cents := venue.Bid, 9500+rng.IntN(40)*5
					if rng.IntN(2) == 0 {
						dir, cents = venue.Ask, 9700+rng.IntN(40)*5
						if rng.IntN(3) == 0 {
							cents -= 300
						}
					}
					price := udecimal.MustFromInt64(int64(cents), 2)
					qty := udecimal.MustFromInt64(int64(1000*(1+rng.IntN(5))), 0)
					o, err := v.Svc.CreateOffer(ctx, who, trading.OfferInput{InstrumentID: v.Instrument, MarketID: v.Partial,
						Direction: dir, Price: &price, Quantity: &qty})
					if err != nil {
						t.Fatalf("step %d: offer: %v", step, err)
					}
					open = append(open, resting{o.ID, who})
				case op < 8: // an amend
					o := open[rng.IntN(len(open))]
					var in trading.ChangeInput
					if rng.IntN(2) == 0 {
						q := udecimal.MustFromInt64(int64(1000*(1+rng.IntN(5))), 0)
						in.Quantity = &q
					} else {
						p := udecimal.MustFromInt64(int64(9500+rng.IntN(80)*5), 2)
						in.Price = &p
					}
					_, _ = v.Svc.UpdateOffer(ctx, o.who, o.id, in) // one that traded away meanwhile is refused
				default: // a cancel
					i := rng.IntN(len(open))
					_, _ = v.Svc.DeleteOffer(ctx, open[i].who, open[i].id)
					open = slices.Delete(open, i, i+1)
				}
				settle(t, v, r)
				var got *feed.Depth
				for _, ev := range r.all() {
					if ev.Depth != nil && ev.Depth.MarketID == v.Partial && ev.Depth.InstrumentID == v.Instrument {
						got = ev.Depth
					}
				}
				d, err := v.Svc.Instrument(ctx, trading.System, v.Instrument, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, side := range []struct {
					name string
					read []feed.LimitEntry
				}{{"bid", d.Limits.Bid}, {"ask", d.Limits.Ask}} {
					var want, have []string
					for _, le := range side.read {
						if le.MarketID == v.Partial && len(want) < feed.MaxStreamDepth {
							want = append(want, level(le))
						}
					}
					if got != nil {
						fed := got.Bid
						if side.name == "ask" {
							fed = got.Ask
						}
						for _, le := range fed {
							have = append(have, level(le))
						}
					}
					if !slices.Equal(want, have) {
						t.Fatalf("step %d, %s side: the feed's last depth\n%v\nthe instrument read\n%v", step, side.name, have, want)
					}
				}
			}
		})
	}
}

// settle publishes a marker (a news item) and waits until r has it: every
// event committed before it has then reached r whole, with the depth and
// price changes that derive from it under its sequence number (which a
// wait for its sequence number alone could see before they arrive).
func settle(t *testing.T, v *testenv.DemoVenue, r *received) {
	t.Helper()
	if _, err := v.Svc.CreateNews(context.Background(), trading.System, trading.NewsInput{Title: "Marker",
		Body: "Every event before this one has been delivered.", Source: "test"}); err != nil {
		t.Fatal(err)
	}
	end := lastSeq(t, v.DB)
	waitFor(t, func() bool { return r.last() >= end })
}
