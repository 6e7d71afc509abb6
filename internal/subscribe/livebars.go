package subscribe

import (
	"context"
	"fmt"
	"strings"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// LiveBars folds a stream's price changes into the current OHLC bar of
// each instrument and market, for one reader and one interval: the rule
// every live channel follows, so that a bar streamed live is the bar
// OHLC returns for the same interval afterwards. A LiveBars belongs to one
// goroutine.
type LiveBars struct {
	hub      *Hub
	p        venue.Principal
	interval string
	bars     map[[2]string]*Bar
}

// LiveBars returns the folder of p's live bars of interval ("" is 1m), or
// an invalid error if interval is not one bars come in (BarIntervals).
func (s *Hub) LiveBars(p venue.Principal, interval string) (*LiveBars, error) {
	if interval == "" {
		interval = "1m"
	}
	if _, ok := barIntervals[interval]; !ok {
		return nil, venue.InvalidField("interval", "must be one of "+strings.Join(BarIntervals(), ", "))
	}
	return &LiveBars{hub: s, p: p, interval: interval, bars: map[[2]string]*Bar{}}, nil
}

// Interval is the interval of the bars folded.
func (lb *LiveBars) Interval() string { return lb.interval }

// Fold folds the trades of a price change into the current bar of its
// book and returns that bar, or false when ev carries no trade (only the
// best prices moved). The bar so far is read once per bar (the trades
// before ev, whose trades carry its time); the later ones are folded in.
func (lb *LiveBars) Fold(ctx context.Context, ev feed.Event) (Bar, bool, error) {
	pc := ev.PriceChange
	if pc == nil || len(pc.Trades) == 0 {
		return Bar{}, false, nil
	}
	open, _ := BarOpen(lb.interval, ev.OccurredAt)
	k := [2]string{pc.InstrumentID, pc.MarketID}
	b := lb.bars[k]
	if b == nil || !b.OpenTime.Equal(open) {
		b = &Bar{InstrumentID: pc.InstrumentID, MarketID: pc.MarketID, Interval: lb.interval, OpenTime: open}
		if open.Before(ev.OccurredAt) { // earlier trades of this bar, up to this batch
			at := ev.OccurredAt
			bars, err := lb.hub.OHLC(ctx, lb.p, pc.InstrumentID, OHLCQuery{Interval: lb.interval,
				MarketID: pc.MarketID, From: &open, To: &at})
			if err != nil {
				return Bar{}, false, fmt.Errorf("live bar of %s: %w", pc.InstrumentID, err)
			}
			if len(bars) == 1 {
				*b = bars[0]
			}
		}
		lb.bars[k] = b
	}
	for _, p := range pc.Trades {
		b.Add(p)
	}
	return *b, true, nil
}
