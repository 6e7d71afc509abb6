// Package bondmath is the venue's bond calculator: civil dates, day count conventions, coupon
// schedules, accrued interest, clean and dirty prices, price ↔ yield, and settlement
// calendars. It is pure: no clock, I/O, logging or goroutines, and every function is safe for
// concurrent use.
//
// # Numbers and rounding
//
// Amounts, prices, yields and year fractions are exact decimals (udecimal), never float64.
// Coupons and yields are in percent (4.25 = 4.25 %), prices in percent of par, accrued
// interest per 100 nominal unless a nominal is given. Nothing is rounded: results carry the
// full precision of udecimal, 19 fractional digits, truncated beyond that. Rounding for
// display or settlement is the caller's decision.
//
// # Day counts
//
// The 2006 ISDA Definitions (section 4.16) and ICMA Rule 251 define the conventions:
// 30/360 (Bond Basis), 30U/360 (US, with the end-of-February rule), 30E/360 (Eurobond Basis),
// 30E/360 ISDA (with the maturity exception for February), ACT/360, ACT/365F, ACT/ACT ISDA and
// ACT/ACT ICMA. ACT/ACT ICMA measures each accrual against a reference coupon period; an
// irregular (short or long) first or last period is split into quasi-coupon periods, each
// counted as its days / (frequency × its length), as ICMA Rule 251.1 (iii) prescribes.
//
// # Coupon schedule
//
// Coupon dates are generated backward from the maturity, or forward from the first coupon
// date when one is given, in whole coupon periods, with the end-of-month rule when asked.
// A first period shorter than a regular one is a short first coupon; with an explicit first
// coupon date it may also be long. Forward generation ends with a short final stub when the
// maturity is off the cycle. Regular coupons under the 30/360 family and ACT/ACT ICMA are
// exactly coupon/frequency; irregular ones, and all coupons under ACT/360, ACT/365F and
// ACT/ACT ISDA, are coupon × the period's year fraction.
//
// # Payment dates are not adjusted
//
// Coupon dates are used unadjusted for both accrual and discounting, as the ICMA street
// convention does for bonds: a coupon date on a weekend or holiday is paid on the next
// business day without extra interest and without changing the accrual or the yield.
// Calendars matter only for the settlement date (Calendar.AddBusinessDays).
//
// # Accrued interest and ex-coupon
//
// Accrued interest runs from the previous coupon date (or the accrual start) to the
// settlement date: zero when settling on a coupon date, coupon × year fraction otherwise.
// A bond with Bond.ExCouponDays > 0 trades ex-coupon from that many calendar days before each
// coupon date: settlement on or after next coupon date − ExCouponDays does not receive the next
// coupon, so the accrued interest is negative, minus the interest from settlement to the
// coupon date, and the coupon is left out of the price.
//
// # Price and yield
//
// Price ↔ yield follows the street convention: the yield compounds at the coupon frequency,
// and the dirty price is Σ CF_k / (1 + y/f)^(w + k), where w is the fraction of a coupon
// period from settlement to the next coupon date (the day count's days to the next coupon
// over the days of the current regular coupon period; for ACT/ACT ICMA counted in
// quasi-coupon periods, so w exceeds 1 in a long first period). When only the final coupon
// remains, the yield is simple interest: dirty = CF / (1 + w·y/f). The clean price is the dirty
// price minus the accrued interest. Yield inverts Price with Brent's bracketing method on
// decimals.
package bondmath
