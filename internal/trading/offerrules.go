package trading

import (
	"strings"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the rules every offer, quote and RFQ follows, on create
// and on amend alike, and that indicative prices share: direction, price,
// quantity and settlement date.

func direction(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "ask", "sell":
		return venue.Ask, true
	case "bid", "buy":
		return venue.Bid, true
	}
	return "", false
}

// checkPrecision records an issue on field when price has more significant
// decimal places than an instrument's precision allows. Trailing zeros are
// not significant: "99.5000" fits a precision of 1.
func checkPrecision(v *venue.Validator, field string, price udecimal.Decimal, precision int) {
	if precision < 0 || !price.Trunc(uint8(precision)).Equal(price) {
		v.Addf(field, "has more than the instrument's %d decimal places", precision)
	}
}

// checkAmount records the issue of an amount (a nominal or a price) of
// any channel outside the venue's bounds (venue.AmountIssue) or not
// positive, and reports whether it is usable.
func checkAmount(v *venue.Validator, field string, d udecimal.Decimal) bool {
	if issue := venue.AmountIssue(d); issue != "" {
		v.Addf(field, "%s", issue)
		return false
	}
	if !d.IsPos() {
		v.Addf(field, "must be greater than 0")
		return false
	}
	return true
}

// checkPrice records the issues of a clean price on instrument in: the
// rules of every offer, RFQ, quote and indicative price, on create and on
// amend.
func checkPrice(v *venue.Validator, field string, price udecimal.Decimal, in venue.Instrument) {
	if checkAmount(v, field, price) {
		checkPrecision(v, field, price, in.Precision)
	}
}

// checkQuantity records the issues of a nominal quantity on instrument
// in: at least min_piece, a multiple of min_increment.
func checkQuantity(v *venue.Validator, field string, q udecimal.Decimal, in venue.Instrument) {
	if !checkAmount(v, field, q) {
		return
	}
	v.Check(q.GreaterThanOrEqual(in.MinPiece), field, "must be at least min_piece "+in.MinPiece.String())
	_, rem, err := q.QuoRem(in.MinIncrement)
	v.Check(err == nil && rem.IsZero(), field, "must be a multiple of min_increment "+in.MinIncrement.String())
}

// checkSettlement records the issues of settle as the settlement date of a
// record traded today on an instrument with terms bond: a TARGET2 business
// day, not before today, before maturity. bondErr says the terms are
// unusable, which the caller reports on instrument_id.
func checkSettlement(v *venue.Validator, settle, today bondmath.Date, bond bondmath.Bond, bondErr error) {
	v.Check(bondmath.TARGET2.IsBusinessDay(settle), "settlement_date", "must be a TARGET2 business day")
	v.Check(!settle.Before(today), "settlement_date", "must not be before the trade date "+today.String())
	if bondErr == nil {
		v.Check(settle.Before(bond.Maturity), "settlement_date", "must be before the instrument's maturity "+bond.Maturity.String())
	}
}

// checkValidity records the issues of a validity and its deadline, and
// returns the validity in its canonical case: gtc, or gtd with a
// valid_until in the future.
func checkValidity(v *venue.Validator, validity string, until *time.Time, now time.Time) string {
	validity = strings.ToLower(validity)
	v.Check(validity == venue.GTC || validity == venue.GTD, "validity", "must be gtc or gtd")
	if validity == venue.GTD {
		v.Check(until != nil && until.After(now), "valid_until", "is required with gtd and must be in the future")
	}
	return validity
}
