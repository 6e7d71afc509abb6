// Package calculator is the venue's bond calculator (docs/guide.md, "The
// bond calculator"): day counts, accrued interest, price from yield and
// yield from price, settlement dates and holiday calendars, each a thin
// function over the pure bondmath package that answers the venue's error
// kinds and rounds its outputs on request. It needs no state: every
// channel calls it directly.
package calculator

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

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
func DayCount(in DayCountInput) (DayCountResult, error) {
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
func AccruedInterest(in BondInput) (AccruedResult, error) {
	r, err := bondmath.Accrued(in.Bond, in.Settlement)
	if err != nil {
		return AccruedResult{}, venue.MathError(err)
	}
	nominal := in.Nominal
	if nominal.IsZero() {
		nominal = Hundred
	}
	out := AccruedResult{AccruedResult: r, Amount: round(bondmath.AccruedAmount(r.PerHundred, nominal), in.Decimals)}
	out.YearFraction = round(out.YearFraction, in.Decimals)
	out.PerHundred = round(out.PerHundred, in.Decimals)
	return out, nil
}

// Hundred is the nominal the calculator assumes when none is given.
var Hundred = udecimal.MustParse("100")

// Price computes clean and dirty price from a yield in percent.
func Price(in BondInput, yield udecimal.Decimal) (bondmath.PriceResult, error) {
	r, err := bondmath.Price(in.Bond, in.Settlement, yield)
	if err != nil {
		return r, venue.MathError(err)
	}
	r.Clean, r.Dirty, r.AccruedPer100 = round(r.Clean, in.Decimals), round(r.Dirty, in.Decimals), round(r.AccruedPer100, in.Decimals)
	return r, nil
}

// Yield solves the yield in percent from a clean price.
func Yield(in BondInput, clean udecimal.Decimal) (bondmath.YieldResult, error) {
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
func SettlementDate(name string, trade bondmath.Date, lag int) (string, bondmath.Date, error) {
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
func Holidays(name string, year int) (string, []Holiday, error) {
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
