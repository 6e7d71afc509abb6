package trading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file is the bond calculator (docs/guide.md, "The bond calculator"): thin use cases over the
// pure bondmath package, plus the terms of listed instruments.

// round applies an optional rounding (half away from zero) to outputs.
func round(d udecimal.Decimal, decimals *int) udecimal.Decimal {
	if decimals == nil {
		return d
	}
	return d.RoundHAZ(uint8(*decimals))
}

// DayCountInput asks for a day count between two dates.
type DayCountInput struct {
	DayCount         bondmath.DayCount
	Start, End       bondmath.Date
	Maturity         bondmath.Date
	Frequency        bondmath.Frequency
	RefStart, RefEnd bondmath.Date
	Decimals         *int
}

// DayCountResult is the answer of DayCount.
type DayCountResult struct {
	Days         int
	YearFraction udecimal.Decimal
}

// DayCount computes days and the year fraction between two dates.
func (s *Service) DayCount(in DayCountInput) (DayCountResult, error) {
	opts := bondmath.YearFractionOpts{Maturity: in.Maturity, Frequency: in.Frequency, RefStart: in.RefStart, RefEnd: in.RefEnd}
	days, err := bondmath.Days(in.DayCount, in.Start, in.End, opts)
	if err != nil {
		return DayCountResult{}, venue.MathError(err)
	}
	yf, err := bondmath.YearFraction(in.DayCount, in.Start, in.End, opts)
	if err != nil {
		return DayCountResult{}, venue.MathError(err)
	}
	return DayCountResult{Days: days, YearFraction: round(yf, in.Decimals)}, nil
}

// BondInput is a bond's terms with a settlement date, as the calculator
// endpoints take them.
type BondInput struct {
	Bond       bondmath.Bond
	Settlement bondmath.Date
	Nominal    udecimal.Decimal // default 100
	Decimals   *int
}

// AccruedResult is the answer of AccruedInterest.
type AccruedResult struct {
	bondmath.AccruedResult
	Amount udecimal.Decimal // for the nominal
}

// AccruedInterest computes accrued interest per 100 and for the nominal.
func (s *Service) AccruedInterest(in BondInput) (AccruedResult, error) {
	r, err := bondmath.Accrued(in.Bond, in.Settlement)
	if err != nil {
		return AccruedResult{}, venue.MathError(err)
	}
	nominal := in.Nominal
	if nominal.IsZero() {
		nominal = hundred
	}
	out := AccruedResult{AccruedResult: r, Amount: round(bondmath.AccruedAmount(r.PerHundred, nominal), in.Decimals)}
	out.YearFraction = round(out.YearFraction, in.Decimals)
	out.PerHundred = round(out.PerHundred, in.Decimals)
	return out, nil
}

var hundred = udecimal.MustParse("100")

// Price computes clean and dirty price from a yield in percent.
func (s *Service) Price(in BondInput, yield udecimal.Decimal) (bondmath.PriceResult, error) {
	r, err := bondmath.Price(in.Bond, in.Settlement, yield)
	if err != nil {
		return r, venue.MathError(err)
	}
	r.Clean, r.Dirty, r.AccruedPer100 = round(r.Clean, in.Decimals), round(r.Dirty, in.Decimals), round(r.AccruedPer100, in.Decimals)
	return r, nil
}

// Yield solves the yield in percent from a clean price.
func (s *Service) Yield(in BondInput, clean udecimal.Decimal) (bondmath.YieldResult, error) {
	if !clean.IsPos() {
		return bondmath.YieldResult{}, venue.InvalidField("clean_price", "must be greater than 0")
	}
	r, err := bondmath.Yield(in.Bond, in.Settlement, clean)
	if err != nil {
		return r, venue.MathError(err)
	}
	r.Yield, r.Dirty, r.AccruedPer100 = round(r.Yield, in.Decimals), round(r.Dirty, in.Decimals), round(r.AccruedPer100, in.Decimals)
	return r, nil
}

// calendar parses a calendar name as a path parameter: unknown → 404.
func calendar(name string) (bondmath.Calendar, error) {
	c, err := bondmath.ParseCalendar(name)
	if err != nil {
		return c, venue.NotFound("calendar " + name)
	}
	return c, nil
}

// SettlementDate returns trade date + lag business days of the calendar.
func (s *Service) SettlementDate(name string, trade bondmath.Date, lag int) (string, bondmath.Date, error) {
	c, err := calendar(name)
	if err != nil {
		return "", bondmath.Date{}, err
	}
	if lag < 0 || lag > 30 {
		return "", bondmath.Date{}, venue.InvalidField("lag", "must be between 0 and 30 business days")
	}
	d := c.AddBusinessDays(trade, lag)
	if d.Year() > 9999 {
		return "", bondmath.Date{}, venue.InvalidField("trade_date", "is too late: the settlement date would fall after 9999-12-31")
	}
	return c.String(), d, nil
}

// Holiday is a named non-business weekday of a calendar.
type Holiday struct {
	Date bondmath.Date
	Name string
}

// Holidays lists a calendar's holidays in a year.
func (s *Service) Holidays(name string, year int) (string, []Holiday, error) {
	c, err := calendar(name)
	if err != nil {
		return "", nil, err
	}
	if year < 1999 || year > 2199 {
		return "", nil, venue.InvalidField("year", "must be between 1999 and 2199")
	}
	easter := bondmath.Easter(year)
	names := map[bondmath.Date]string{
		bondmath.MustDate(year, time.January, 1):   "New Year's Day",
		easter.AddDays(-2):                         "Good Friday",
		easter.AddDays(1):                          "Easter Monday",
		bondmath.MustDate(year, time.May, 1):       "Labour Day",
		bondmath.MustDate(year, time.December, 25): "Christmas Day",
		bondmath.MustDate(year, time.December, 26): "Christmas Holiday",
	}
	out := []Holiday{}
	for _, d := range c.Holidays(year) {
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			continue
		}
		n, ok := names[d]
		if !ok {
			n = "TARGET closing day"
		}
		out = append(out, Holiday{Date: d, Name: n})
	}
	return c.String(), out, nil
}

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
	Accrued            AccruedResult
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
	out := InstrumentAnalytics{InstrumentID: instr.ID, ISIN: instr.Terms.ISIN, Nominal: hundred}
	if in.Nominal != nil {
		if !in.Nominal.IsPos() {
			return out, venue.InvalidField("nominal", "must be greater than 0")
		}
		out.Nominal = *in.Nominal
	}
	if in.Settlement != nil {
		out.Settlement = *in.Settlement
	} else {
		today := bondmath.DateOf(s.now().UTC())
		out.Settlement = bondmath.TARGET2.AddBusinessDays(today, s.defaultLag(instr.ID, today))
	}
	bi := BondInput{Bond: b, Settlement: out.Settlement, Nominal: out.Nominal}
	if out.Accrued, err = s.AccruedInterest(bi); err != nil {
		return out, err
	}
	if in.Price != nil {
		y, err := s.Yield(bi, *in.Price)
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

// defaultLag is the settlement lag of a trade on date trade in an
// instrument: that of the first market listing it (2 when none is known).
func (s *Service) defaultLag(instrumentID string, trade bondmath.Date) int {
	ref := s.eng.Reference()
	if ref == nil {
		return 2
	}
	in, ok := ref.Instrument(instrumentID)
	if !ok || len(in.MarketIDs) == 0 {
		return 2
	}
	m, ok := ref.Market(in.MarketIDs[0])
	if !ok {
		return 2
	}
	return m.LagOn(trade)
}

// MarketSettlementDate is the settlement date of a trade on date trade in
// market id, with the lag in force on that date.
func (s *Service) MarketSettlementDate(ctx context.Context, p venue.Principal, id string, trade bondmath.Date) (bondmath.Date, int, error) {
	if !validID(id) {
		return bondmath.Date{}, 0, venue.NotFound("market")
	}
	var m venue.Market
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		if m, err = tx.Market(ctx, id); err != nil {
			return notFoundOr(err, "market")
		}
		return nil
	}); err != nil {
		return bondmath.Date{}, 0, err
	}
	lag := m.LagOn(trade)
	_, d, err := s.SettlementDate(m.Calendar, trade, lag)
	return d, lag, err
}
