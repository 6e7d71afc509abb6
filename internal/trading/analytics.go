package trading

import (
	"time"

	"context"
	"errors"
	"fmt"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/calculator"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the calculator's figures of listed instruments
// (internal/calculator computes them) and the settlement date of a market.

// InstrumentAnalyticsInput asks for a listed instrument's figures.
type InstrumentAnalyticsInput struct {
	Settlement *bondmath.Date    // default: today + 2 TARGET2 business days
	Price      *udecimal.Decimal // clean, percent of par
	Nominal    *udecimal.Decimal // default 100
}

// InstrumentAnalytics is the answer of the instrument analytics operation.
type InstrumentAnalytics struct {
	InstrumentID, ISIN string
	Settlement         bondmath.Date
	Nominal            udecimal.Decimal
	Accrued            calculator.AccruedResult
	Clean, Dirty       *udecimal.Decimal
	Yield              *udecimal.Decimal
}

// InstrumentAnalytics computes accrued interest (and, given a clean price,
// dirty price and yield) for a listed instrument.
func (s *Service) InstrumentAnalytics(ctx context.Context, p venue.Principal, id string, in InstrumentAnalyticsInput) (InstrumentAnalytics, error) {
	if !validID(id) {
		return InstrumentAnalytics{}, venue.NotFound("instrument")
	}
	var instr venue.Instrument
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		instr, err = tx.Instrument(ctx, id)
		return err
	})
	if err != nil {
		return InstrumentAnalytics{}, fmt.Errorf("instrument analytics: %w", err)
	}
	b, err := venue.BondOf(instr)
	if err != nil {
		return InstrumentAnalytics{}, err
	}
	out := InstrumentAnalytics{InstrumentID: instr.ID, ISIN: instr.Terms.ISIN, Nominal: calculator.Hundred}
	if in.Nominal != nil {
		if !in.Nominal.IsPos() {
			return out, venue.InvalidField("nominal", "must be greater than 0")
		}
		out.Nominal = *in.Nominal
	}
	if in.Settlement != nil {
		out.Settlement = *in.Settlement
	} else {
		out.Settlement = s.defaultSettlement(instr.ID, s.now())
	}
	bi := calculator.BondInput{Bond: b, Settlement: out.Settlement, Nominal: out.Nominal}
	if out.Accrued, err = calculator.AccruedInterest(bi); err != nil {
		return out, err
	}
	if in.Price != nil {
		y, err := calculator.Yield(bi, *in.Price)
		if err != nil {
			var ve *venue.Error
			if errors.As(err, &ve) {
				for i := range ve.Details {
					if ve.Details[i].Field == "clean_price" {
						ve.Details[i].Field = "price"
					}
				}
			}
			return out, err
		}
		clean := *in.Price
		out.Clean, out.Dirty, out.Yield = &clean, &y.Dirty, &y.Yield
	}
	return out, nil
}

// defaultSettlement is the settlement date of a trade in an instrument
// now: on the business date and with the lag of the first market listing
// it (T+2 in UTC when none is known).
func (s *Service) defaultSettlement(instrumentID string, now time.Time) bondmath.Date {
	m := venue.Market{SettlementLag: 2}
	if ref := s.eng.Reference(); ref != nil {
		if in, ok := ref.Instrument(instrumentID); ok && len(in.MarketIDs) > 0 {
			if first, ok := ref.Market(in.MarketIDs[0]); ok {
				m = first
			}
		}
	}
	today := m.TradeDate(now)
	return bondmath.TARGET2.AddBusinessDays(today, m.LagOn(today))
}

// MarketSettlementDate is the settlement date of a trade on date trade in
// market id, with the lag in force on that date.
func (s *Service) MarketSettlementDate(ctx context.Context, p venue.Principal, id string, trade *bondmath.Date) (bondmath.Date, bondmath.Date, int, error) {
	if !validID(id) {
		return bondmath.Date{}, bondmath.Date{}, 0, venue.NotFound("market")
	}
	var m venue.Market
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if m, err = tx.Market(ctx, id); err != nil {
			return notFoundOr(err, "market")
		}
		return nil
	}); err != nil {
		return bondmath.Date{}, bondmath.Date{}, 0, err
	}
	day := m.TradeDate(s.now())
	if trade != nil {
		day = *trade
	}
	lag := m.LagOn(day)
	_, d, err := calculator.SettlementDate(m.Calendar, day, lag)
	return day, d, lag, err
}
