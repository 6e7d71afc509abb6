package trading

import (
	"context"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TapeFilter selects the public tape: one instrument's trades or all,
// within [From, To) of the trade time (zero: no bound), the newest Limit.
type TapeFilter struct {
	InstrumentID string
	From, To     time.Time
	Limit        int
}

// Tape is the venue's public tape, newest first: each trade once its price
// is due under the deferral table, with its size once that is due too
// (venue.TapeEntryOf; docs/guide.md, "The public tape"). It names no party;
// every authenticated caller reads it, and the screen reads its trades
// from it when it connects.
func (s *Service) Tape(ctx context.Context, p venue.Principal, f TapeFilter) ([]venue.TapeEntry, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	var v venue.Validator
	checkFilterID(&v, "instrument_id", f.InstrumentID, "an instrument")
	v.Check(f.Limit >= 1 && f.Limit <= 1000, "limit", "must be an integer between 1 and 1000")
	v.Check(f.From.IsZero() || f.To.IsZero() || f.From.Before(f.To), "to", "must be after from")
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.now()
	out := []venue.TapeEntry{}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, f.InstrumentID, ""); err != nil {
			return err
		}
		ts, _, err := tx.Trades(ctx, store.TradeFilter{InstrumentID: f.InstrumentID, PriceDueBy: now, From: f.From, To: f.To},
			venue.Page{Limit: f.Limit})
		if err != nil {
			return err
		}
		ids := make([]string, len(ts))
		for i, t := range ts {
			ids[i] = t.InstrumentID
		}
		ins, err := tx.InstrumentsByID(ctx, ids)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if e, ok := venue.TapeEntryOf(t, ins[t.InstrumentID].Terms.ISIN, s.eng.MIC(), now); ok {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tape: %w", err)
	}
	return out, nil
}

// LastTrades is each book's latest trade — on marketID's books, or on
// every market's when it is empty — as the books' last price shows it
// (instrument.price_change's last_price and last_quantity): members'
// market data, so a deferred trade counts at once, as on the stream. A
// screen reads it when it connects, so that its Last is the same as the
// stream keeps it after, whatever the public tape has published.
func (s *Service) LastTrades(ctx context.Context, p venue.Principal, marketID string) ([]venue.Trade, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	var v venue.Validator
	checkFilterID(&v, "market_id", marketID, "a market")
	if err := v.Err(); err != nil {
		return nil, err
	}
	out := []venue.Trade{}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, "", marketID); err != nil {
			return err
		}
		ts, err := tx.LastTrades(ctx)
		for _, t := range ts {
			if marketID == "" || t.MarketID == marketID {
				out = append(out, t)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("last trades: %w", err)
	}
	return out, nil
}
