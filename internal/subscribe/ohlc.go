package subscribe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds OHLC bars (docs/guide.md: /ohlc in "Live streams", and its REST twin in "Trading"):
// open, high, low and close clean prices, volume and count of an
// instrument's trades on one market per interval. Bars are market data:
// every authenticated caller reads them, and they name no party.

// Bar intervals, aligned to UTC (a day's bar opens at 00:00 UTC).
var barIntervals = map[string]time.Duration{"1m": time.Minute, "5m": 5 * time.Minute, "1h": time.Hour, "1d": 24 * time.Hour}

// BarIntervals lists the intervals bars come in.
func BarIntervals() []string { return []string{"1m", "5m", "1h", "1d"} }

// Bar is one OHLC bar of an instrument's trades on one market.
type Bar struct {
	InstrumentID, MarketID, Interval string
	OpenTime                         time.Time
	Open, High, Low, Close           udecimal.Decimal // clean, percent of par
	Volume                           udecimal.Decimal // nominal
	Trades                           int
}

// OHLCQuery selects bars. Zero fields take their defaults: interval 1m,
// every market, to now, from maxBars intervals before to.
type OHLCQuery struct {
	Interval, MarketID string
	From, To           *time.Time
}

const (
	// maxBars bounds the intervals one query spans.
	maxBars = 1000
	// maxPrints bounds the trades one query folds into bars.
	maxPrints = 200_000
)

// OHLC returns the bars of an instrument's trades, oldest first, then by
// market; intervals without a trade have no bar.
func (s *Hub) OHLC(ctx context.Context, p venue.Principal, instrumentID string, q OHLCQuery) ([]Bar, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	if !venue.ValidID(instrumentID) {
		return nil, venue.NotFound("instrument")
	}
	interval := q.Interval
	if interval == "" {
		interval = "1m"
	}
	step, ok := barIntervals[interval]
	var v venue.Validator
	v.Check(ok, "interval", "must be one of "+strings.Join(BarIntervals(), ", "))
	v.Check(q.MarketID == "" || venue.ValidID(q.MarketID), "market_id", "must be a market id")
	if err := v.Err(); err != nil {
		return nil, err
	}
	to := s.now().UTC().Truncate(time.Millisecond).Add(time.Millisecond) // the current bar included
	if q.To != nil {
		to = *q.To
	}
	from := to.Truncate(step).Add(-(maxBars - 1) * step)
	if q.From != nil {
		from = *q.From
	}
	from = from.Truncate(step) // whole bars: the first one's trades from its open
	v.Check(from.Before(to), "from", "must be before to")
	v.Check(to.Sub(from) <= maxBars*step, "from", fmt.Sprintf("spans more than %d %s bars", maxBars, interval))
	if err := v.Err(); err != nil {
		return nil, err
	}
	var prints []store.TradePrint
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if _, err := tx.Instrument(ctx, instrumentID); err != nil {
			return notFound(err, "instrument")
		}
		if q.MarketID != "" {
			if _, err := tx.Market(ctx, q.MarketID); err != nil {
				return notFound(err, "market")
			}
		}
		var err error
		prints, err = tx.TradePrints(ctx, instrumentID, q.MarketID, from, to, maxPrints+1)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ohlc: %w", err)
	}
	if len(prints) > maxPrints {
		return nil, venue.InvalidField("from", fmt.Sprintf("the window holds more than %d trades: ask for a shorter one", maxPrints))
	}
	return bars(instrumentID, interval, step, prints), nil
}

// BarOpen is when the bar of interval holding instant at opens, and
// whether interval is one bars come in.
func BarOpen(interval string, at time.Time) (time.Time, bool) {
	step, ok := barIntervals[interval]
	return at.UTC().Truncate(step), ok
}

// Add folds a trade into the bar (the bar's first trade opens it).
func (b *Bar) Add(p feed.Print) {
	if b.Trades == 0 {
		b.Open, b.High, b.Low = p.Price, p.Price, p.Price
	}
	b.High = maxDec(b.High, p.Price)
	b.Low = minDec(b.Low, p.Price)
	b.Close = p.Price
	b.Volume = b.Volume.Add(p.Quantity)
	b.Trades++
}

// bars folds trade prints (oldest first) into bars per market and interval.
func bars(instrumentID, interval string, step time.Duration, prints []store.TradePrint) []Bar {
	var out []Bar
	open := map[string]int{} // market → index in out of its current bar
	for _, t := range prints {
		at := t.At.UTC().Truncate(step)
		i, ok := open[t.MarketID]
		if !ok || !out[i].OpenTime.Equal(at) {
			out = append(out, Bar{InstrumentID: instrumentID, MarketID: t.MarketID, Interval: interval, OpenTime: at})
			i = len(out) - 1
			open[t.MarketID] = i
		}
		out[i].Add(feed.Print{Price: t.PricePerUnit, Quantity: t.Quantity})
	}
	slices.SortStableFunc(out, func(a, b Bar) int {
		if c := a.OpenTime.Compare(b.OpenTime); c != 0 {
			return c
		}
		return strings.Compare(a.MarketID, b.MarketID)
	})
	return out
}

func maxDec(a, b udecimal.Decimal) udecimal.Decimal {
	if b.GreaterThan(a) {
		return b
	}
	return a
}

func minDec(a, b udecimal.Decimal) udecimal.Decimal {
	if b.LessThan(a) {
		return b
	}
	return a
}

// notFound is err as the caller's not found of what, unless the read
// failed otherwise.
func notFound(err error, what string) error {
	if errors.Is(err, venue.ErrNotFound) {
		return venue.NotFound(what)
	}
	return err
}
