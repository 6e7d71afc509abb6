package bondmath

import (
	"github.com/quagmt/udecimal"
)

// maxPeriods bounds the number of coupon periods of a bond (100 years of monthly coupons), so
// that no request can make the maths arbitrarily slow.
const maxPeriods = 1200

// Bond holds the terms of a fixed-coupon bond that the calculations need.
type Bond struct {
	// Coupon is the annual coupon rate in percent of par: 4.25 means 4.25 %.
	Coupon udecimal.Decimal
	// Frequency is the number of coupons per year.
	Frequency Frequency
	// DayCount is the accrual convention.
	DayCount DayCount
	// AccrualStart is the interest accrual (dated) date: interest runs from here.
	AccrualStart Date
	// FirstCoupon is the first coupon date, or the zero Date. When given, coupon dates are
	// generated forward from it; the first period may then be short or long, and the last
	// period is a short stub if the maturity is not on the coupon cycle. When absent, coupon
	// dates are generated backward from Maturity and the first period is regular or short.
	FirstCoupon Date
	// Maturity is the redemption date, which is also the last coupon date.
	Maturity Date
	// EndOfMonth makes every coupon date a month end when the date the schedule is generated
	// from (Maturity, or FirstCoupon when given) is one.
	EndOfMonth bool
	// ExCouponDays is the number of calendar days before a coupon date during which the bond
	// trades ex-coupon: settlement on or after that many days before the next coupon date does
	// not receive that coupon, and the accrued interest is negative. 0 means never ex-coupon.
	ExCouponDays int
}

// Validate checks the terms and returns a *FieldError (wrapping ErrInvalid) naming the first
// offending field.
func (b Bond) Validate() error {
	switch {
	case !b.DayCount.Valid():
		return invalid("day_count", "missing or unknown day count")
	case !b.Frequency.Valid():
		return invalid("frequency", "missing or unknown frequency (want Annual, Semi-annual, Quarterly or Monthly)")
	case b.Coupon.IsNeg():
		return invalid("coupon", "must not be negative")
	case b.AccrualStart.IsZero():
		return invalid("accrual_start", "required")
	case b.Maturity.IsZero():
		return invalid("maturity", "required")
	case !b.Maturity.After(b.AccrualStart):
		return invalid("maturity", "must be after accrual_start %s", b.AccrualStart)
	case !b.FirstCoupon.IsZero() && !b.FirstCoupon.After(b.AccrualStart):
		return invalid("first_coupon_date", "must be after accrual_start %s", b.AccrualStart)
	case !b.FirstCoupon.IsZero() && b.FirstCoupon.After(b.Maturity):
		return invalid("first_coupon_date", "must not be after maturity %s", b.Maturity)
	case b.ExCouponDays < 0:
		return invalid("ex_coupon_days", "must not be negative")
	case b.ExCouponDays >= 28*b.Frequency.Months():
		return invalid("ex_coupon_days", "must be shorter than a coupon period (at most %d)", 28*b.Frequency.Months()-1)
	}
	months := (b.Maturity.Year()-b.AccrualStart.Year())*12 + int(b.Maturity.Month()) - int(b.AccrualStart.Month())
	if months/b.Frequency.Months() > maxPeriods-2 {
		return invalid("maturity", "more than %d coupon periods", maxPeriods)
	}
	return nil
}

// checkSettlement validates the bond and a settlement date inside its accrual life.
func (b Bond) checkSettlement(settle Date) error {
	if err := b.Validate(); err != nil {
		return err
	}
	switch {
	case settle.IsZero():
		return invalid("settlement_date", "required")
	case settle.Before(b.AccrualStart):
		return invalid("settlement_date", "must not be before accrual_start %s", b.AccrualStart)
	case !settle.Before(b.Maturity):
		return invalid("settlement_date", "must be before maturity %s", b.Maturity)
	}
	return nil
}

// Schedule returns the bond's coupon dates in ascending order, ending with the maturity. The
// dates are unadjusted: they are never moved off weekends or holidays (see the package doc).
func Schedule(b Bond) ([]Date, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	s := newSchedule(&b)
	dates := make([]Date, s.n)
	for i := range dates {
		dates[i] = s.date(i)
	}
	return dates, nil
}

// PreviousNext returns the coupon period that holds settle: prev is the last coupon date on or
// before settle (the accrual start in the first period) and next the first coupon date after
// it. settle must lie in [AccrualStart, Maturity).
func PreviousNext(b Bond, settle Date) (prev, next Date, err error) {
	if err := b.checkSettlement(settle); err != nil {
		return Date{}, Date{}, err
	}
	s := newSchedule(&b)
	i := s.find(settle)
	return s.start(i), s.date(i), nil
}

// schedule generates a bond's coupon dates without storing them. Date i (0 <= i < n) ends
// coupon period i; period 0 starts at the accrual start.
type schedule struct {
	accrualStart Date
	maturity     Date
	anchor       Date // Maturity (backward generation) or FirstCoupon (forward)
	forward      bool
	months       int
	eom          bool
	n            int
}

func newSchedule(b *Bond) schedule {
	s := schedule{
		accrualStart: b.AccrualStart,
		maturity:     b.Maturity,
		anchor:       b.Maturity,
		months:       b.Frequency.Months(),
		eom:          b.EndOfMonth,
	}
	if !b.FirstCoupon.IsZero() {
		s.forward = true
		s.anchor = b.FirstCoupon
		// j = the last regular date roll(FirstCoupon, j) strictly before maturity (-1 if none).
		j := monthsBetween(b.FirstCoupon, b.Maturity) / s.months
		for j >= 0 && !s.roll(j).Before(b.Maturity) {
			j--
		}
		for s.roll(j + 1).Before(b.Maturity) {
			j++
		}
		s.n = j + 2
		return s
	}
	// k = the last k with roll(Maturity, -k) after the accrual start.
	k := monthsBetween(b.AccrualStart, b.Maturity) / s.months
	for k > 0 && !s.roll(-k).After(b.AccrualStart) {
		k--
	}
	for s.roll(-(k + 1)).After(b.AccrualStart) {
		k++
	}
	s.n = k + 1
	return s
}

func monthsBetween(a, b Date) int {
	return (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
}

// roll returns the regular coupon date p periods from the anchor.
func (s *schedule) roll(p int) Date { return roll(s.anchor, p*s.months, s.eom) }

// offset returns the position of date i on the anchor's coupon cycle, in periods.
func (s *schedule) offset(i int) int {
	if s.forward {
		return i
	}
	return i - (s.n - 1)
}

// date returns coupon date i.
func (s *schedule) date(i int) Date {
	if i == s.n-1 {
		return s.maturity
	}
	return s.roll(s.offset(i))
}

// start returns the start of coupon period i.
func (s *schedule) start(i int) Date {
	if i == 0 {
		return s.accrualStart
	}
	return s.date(i - 1)
}

// quasi returns the quasi-coupon date generator whose q(0), q(1) is the regular reference
// period of coupon period i: for the first period the regular period ending on its coupon date
// (quasi dates roll backward), for later ones the regular period starting on their start date
// (quasi dates roll forward, covering a final stub).
func (s *schedule) quasi(i int) roller {
	o := s.offset(0) - 1
	if i > 0 {
		o = s.offset(i - 1)
	}
	return roller{a0: s.anchor, a1: s.anchor, o0: o, o1: o + 1, months: s.months, eom: s.eom}
}

// mayBeIrregular reports whether coupon period i can differ from a regular period: only the
// first one can, and the last one when dates are generated forward.
func (s *schedule) mayBeIrregular(i int) bool {
	return i == 0 || (s.forward && i == s.n-1)
}

// regular reports whether coupon period i is a full regular period.
func (s *schedule) regular(i int) bool {
	q := s.quasi(i)
	return s.start(i) == q.at(0) && s.date(i) == q.at(1)
}

// find returns the period i with start(i) <= d < date(i), for accrualStart <= d < maturity.
func (s *schedule) find(d Date) int {
	var i int
	if s.forward {
		i = 0
		if !d.Before(s.anchor) {
			i = monthsBetween(s.anchor, d)/s.months + 1
		}
	} else {
		i = s.n - 1 - monthsBetween(d, s.maturity)/s.months
	}
	i = max(0, min(i, s.n-1))
	for i > 0 && s.date(i-1).After(d) {
		i--
	}
	for !s.date(i).After(d) {
		i++
	}
	return i
}
