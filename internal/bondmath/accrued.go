package bondmath

import (
	"github.com/quagmt/udecimal"
)

// AccruedResult is the accrued interest of a bond at a settlement date.
type AccruedResult struct {
	// AccruedDays is the day count (under the bond's convention) from PreviousCoupon to the
	// settlement date, or minus the day count from the settlement date to NextCoupon when the
	// bond trades ex-coupon.
	AccruedDays int
	// YearFraction is the accrual fraction matching AccruedDays (negative when ex-coupon).
	YearFraction udecimal.Decimal
	// PreviousCoupon and NextCoupon delimit the coupon period holding the settlement date;
	// PreviousCoupon is the accrual start in the first period.
	PreviousCoupon, NextCoupon Date
	// PerHundred is the accrued interest per 100 of nominal, unrounded.
	PerHundred udecimal.Decimal
	// ExCoupon reports that the settlement date falls in the ex-coupon period.
	ExCoupon bool
}

// Accrued returns the accrued interest of b for settlement on settle, per 100 nominal and
// unrounded. It is zero on a coupon date and on the accrual start. For ACT/ACT ICMA it is
// coupon/frequency × days / days in the reference period, with irregular periods counted in
// quasi-coupon periods (ICMA Rule 251); for the other conventions it is coupon × the year
// fraction from the previous coupon date. Inside the ex-coupon period it is minus the
// interest from settle to the next coupon date.
func Accrued(b Bond, settle Date) (AccruedResult, error) {
	if err := b.checkSettlement(settle); err != nil {
		return AccruedResult{}, err
	}
	s := newSchedule(&b)
	i := s.find(settle)
	return accrued(&b, &s, i, settle), nil
}

func accrued(b *Bond, s *schedule, i int, settle Date) AccruedResult {
	prev, next := s.start(i), s.date(i)
	r := AccruedResult{PreviousCoupon: prev, NextCoupon: next}
	if isExCoupon(b, settle, next) {
		r.ExCoupon = true
		r.AccruedDays = -days(b.DayCount, settle, next, b.Maturity)
		r.YearFraction = periodFraction(b, s, i, settle, next).Neg()
	} else {
		r.AccruedDays = days(b.DayCount, prev, settle, b.Maturity)
		r.YearFraction = periodFraction(b, s, i, prev, settle)
	}
	r.PerHundred = b.Coupon.Mul(r.YearFraction)
	if r.PerHundred.IsZero() {
		r.PerHundred = decZero // no "-0"
	}
	return r
}

// isExCoupon reports whether settlement on settle misses the coupon paid on next.
func isExCoupon(b *Bond, settle, next Date) bool {
	return b.ExCouponDays > 0 && !settle.Before(next.AddDays(-b.ExCouponDays))
}

// periodFraction returns the year fraction from start to end, both inside coupon period i.
func periodFraction(b *Bond, s *schedule, i int, start, end Date) udecimal.Decimal {
	if b.DayCount == ActualActualICMA {
		return icmaFraction(start, end, s.quasi(i), b.Frequency.PerYear())
	}
	return yearFraction(b.DayCount, start, end, b.Maturity)
}

// couponAmount returns the coupon paid at the end of period i, which runs from start to end,
// per 100 nominal. A regular period under the 30/360 family or ACT/ACT ICMA pays exactly
// coupon/frequency; irregular periods, and every period under ACT/360, ACT/365F and ACT/ACT
// ISDA, pay coupon × the period's year fraction.
func couponAmount(b *Bond, s *schedule, i int, start, end Date) udecimal.Decimal {
	switch b.DayCount {
	case Actual360:
		return quoInt(b.Coupon.Mul64(uint64(DaysBetween(start, end))), 360)
	case Actual365Fixed:
		return quoInt(b.Coupon.Mul64(uint64(DaysBetween(start, end))), 365)
	case ActualActualISDA:
		return b.Coupon.Mul(yearFraction(b.DayCount, start, end, b.Maturity))
	}
	if !s.mayBeIrregular(i) || s.regular(i) {
		return quoInt(b.Coupon, b.Frequency.PerYear())
	}
	return b.Coupon.Mul(periodFraction(b, s, i, start, end))
}

// AccruedAmount returns the accrued interest for a nominal amount: perHundred × nominal / 100,
// unrounded (truncated only beyond 19 fractional digits).
func AccruedAmount(perHundred, nominal udecimal.Decimal) udecimal.Decimal {
	return quoInt(perHundred.Mul(nominal), 100)
}

// DirtyPrice returns the dirty (full) price per 100: clean + accrued.
func DirtyPrice(clean, accruedPer100 udecimal.Decimal) udecimal.Decimal {
	return clean.Add(accruedPer100)
}

// SettlementAmount returns what the buyer pays for nominal at a clean price in percent of par:
// nominal × clean / 100 + nominal × accrued / 100, unrounded.
func SettlementAmount(nominal, clean, accruedPer100 udecimal.Decimal) udecimal.Decimal {
	return AccruedAmount(clean, nominal).Add(AccruedAmount(accruedPer100, nominal))
}
