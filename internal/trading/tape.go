package trading

import (
	"context"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// Print is a trade as market data: where, when, at what clean price and
// size. It names no party.
type Print struct {
	InstrumentID  string
	MarketID      string
	Price         udecimal.Decimal // clean, percent of par
	Quantity      udecimal.Decimal
	ExecutionType string
	At            time.Time
}

// Tape lists the venue's latest trades as market data, newest first, of
// one instrument or of all: a screen that connects shows the trades made
// before it (its tape and last prices), which the instruments stream's
// price changes then extend. Every reader sees it, like the OHLC bars.
func (s *Service) Tape(ctx context.Context, p venue.Principal, instrumentID string, limit int) ([]Print, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	var v venue.Validator
	checkFilterID(&v, "instrument_id", instrumentID, "an instrument")
	v.Check(limit >= 1 && limit <= 1000, "limit", "must be an integer between 1 and 1000")
	if err := v.Err(); err != nil {
		return nil, err
	}
	out := []Print{}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if err := checkFilterRecords(ctx, tx, instrumentID, ""); err != nil {
			return err
		}
		ts, _, err := tx.Trades(ctx, store.TradeFilter{InstrumentID: instrumentID}, venue.Page{Limit: limit})
		if err != nil {
			return err
		}
		for _, t := range ts {
			out = append(out, Print{InstrumentID: t.InstrumentID, MarketID: t.MarketID, Price: t.PricePerUnit,
				Quantity: t.Quantity, ExecutionType: t.ExecutionType, At: t.CreatedAt})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tape: %w", err)
	}
	return out, nil
}
