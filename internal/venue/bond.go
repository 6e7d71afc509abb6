package venue

import (
	"errors"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// BondOf reads a listed instrument's terms as a bond. Withheld or invalid
// terms are a validation error: the instrument cannot be priced.
func BondOf(in Instrument) (bondmath.Bond, error) {
	t := in.Terms
	var v Validator
	var b bondmath.Bond
	var err error
	if b.Coupon, err = bondmath.ParseDecimal(t.Coupon); err != nil {
		v.Addf("coupon", "instrument coupon %q is not a decimal", t.Coupon)
	}
	if b.Frequency, err = bondmath.ParseFrequency(t.CouponFrequency); err != nil {
		v.Addf("coupon_frequency", "instrument coupon frequency %q is not supported", t.CouponFrequency)
	}
	if b.DayCount, err = bondmath.ParseDayCount(t.DayCount); err != nil {
		v.Addf("day_count", "instrument day count %q is not supported", t.DayCount)
	}
	if b.AccrualStart, err = bondmath.ParseDate(t.InterestAccrualDate); err != nil {
		v.Addf("interest_accrual_date", "instrument accrual date %q is not a date", t.InterestAccrualDate)
	}
	if b.Maturity, err = bondmath.ParseDate(t.Maturity); err != nil {
		v.Addf("maturity", "instrument maturity %q is not a date", t.Maturity)
	}
	if t.FirstCouponDate != "" {
		if b.FirstCoupon, err = bondmath.ParseDate(t.FirstCouponDate); err != nil {
			v.Addf("first_coupon_date", "instrument first coupon date %q is not a date", t.FirstCouponDate)
		}
	}
	if err := v.Err(); err != nil {
		return b, err
	}
	b.EndOfMonth = b.Maturity.IsEndOfMonth()
	if err := b.Validate(); err != nil {
		var fe *bondmath.FieldError
		if errors.As(err, &fe) && fe.Field == "accrual_start" {
			return b, InvalidField("interest_accrual_date", fe.Issue)
		}
		return b, MathError(err)
	}
	return b, nil
}

// MathError turns a bondmath input error into a validation error naming the
// field; other errors pass through.
func MathError(err error) error {
	var fe *bondmath.FieldError
	if errors.As(err, &fe) {
		return InvalidField(fe.Field, fe.Issue)
	}
	if errors.Is(err, bondmath.ErrInvalid) {
		return Invalid(err.Error())
	}
	return err
}
