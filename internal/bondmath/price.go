package bondmath

import (
	"github.com/quagmt/udecimal"
)

// PriceResult is a bond's price per 100 nominal for a given yield.
type PriceResult struct {
	Clean         udecimal.Decimal
	Dirty         udecimal.Decimal
	AccruedPer100 udecimal.Decimal
}

// YieldResult is a bond's yield for a given clean price.
type YieldResult struct {
	// Yield is the yield to maturity in percent (4.25 = 4.25 %), compounded at the coupon
	// frequency.
	Yield         udecimal.Decimal
	Dirty         udecimal.Decimal
	AccruedPer100 udecimal.Decimal
}

// Yield range the solver searches, in percent. Prices outside it are rejected.
var (
	minYield = udecimal.MustFromInt64(-50, 0)
	maxYield = udecimal.MustFromInt64(10000, 0)
)

// Price returns the clean and dirty price per 100 nominal of b for settlement on settle at a
// yield to maturity in percent, by the street convention described in the package doc.
func Price(b Bond, settle Date, yieldPercent udecimal.Decimal) (PriceResult, error) {
	if err := b.checkSettlement(settle); err != nil {
		return PriceResult{}, err
	}
	p := newPricer(&b, settle)
	if yieldPercent.LessThan(minYield) || yieldPercent.GreaterThan(maxYield) {
		return PriceResult{}, invalid("yield", "must be between %s and %s percent", minYield, maxYield)
	}
	dirty, ok := p.dirty(yieldPercent)
	if !ok {
		return PriceResult{}, invalid("yield", "%s percent is outside the range the price formula can handle", yieldPercent)
	}
	return PriceResult{Clean: dirty.Sub(p.accrued), Dirty: dirty, AccruedPer100: p.accrued}, nil
}

// Yield returns the yield to maturity in percent of b for settlement on settle at a clean
// price per 100 nominal: the inverse of Price, found by Brent's bracketing method to full
// decimal precision (Price at the returned yield reproduces the dirty price to about 1e-14).
// A clean price that is not positive, or that implies a yield outside -50 % to 10000 %, is an
// error wrapping ErrInvalid.
func Yield(b Bond, settle Date, cleanPrice udecimal.Decimal) (YieldResult, error) {
	if err := b.checkSettlement(settle); err != nil {
		return YieldResult{}, err
	}
	if !cleanPrice.IsPos() {
		return YieldResult{}, invalid("clean_price", "must be positive")
	}
	p := newPricer(&b, settle)
	target := cleanPrice.Add(p.accrued)
	if !target.IsPos() {
		return YieldResult{}, invalid("clean_price", "dirty price %s (clean plus accrued) must be positive", target)
	}
	y, err := p.solve(target)
	if err != nil {
		return YieldResult{}, err
	}
	return YieldResult{Yield: y, Dirty: target, AccruedPer100: p.accrued}, nil
}

// pricer holds a bond's remaining cash flows per 100 nominal as seen from a settlement date.
type pricer struct {
	accrued udecimal.Decimal
	// w is the time from settlement to the next coupon date in coupon periods.
	w udecimal.Decimal
	// cf are the remaining cash flows; cf[0] is paid on the next coupon date, cf[k] k periods
	// later. The redemption is included in the last one.
	cf []udecimal.Decimal
	// uniform reports that cf[1:len-1] are all equal, which allows the annuity formula.
	uniform bool
	perYear int
}

func newPricer(b *Bond, settle Date) pricer {
	s := newSchedule(b)
	i := s.find(settle)
	a := accrued(b, &s, i, settle)
	p := pricer{accrued: a.PerHundred, perYear: b.Frequency.PerYear(), uniform: true}

	// The fraction of a period to the next coupon date, measured against the regular
	// reference period of the current coupon period (more than one period in a long first
	// coupon period).
	q := s.quasi(i)
	next := s.date(i)
	if b.DayCount == ActualActualICMA {
		p.w = icmaFraction(settle, next, q, p.perYear).Mul64(uint64(p.perYear))
	} else {
		p.w = ratio(days(b.DayCount, settle, next, b.Maturity), days(b.DayCount, q.at(0), q.at(1), b.Maturity))
	}

	p.cf = make([]udecimal.Decimal, s.n-i)
	start := s.start(i)
	for k := range p.cf {
		end := s.date(i + k)
		p.cf[k] = couponAmount(b, &s, i+k, start, end)
		if k > 1 && k < len(p.cf)-1 && !p.cf[k].Equal(p.cf[1]) {
			p.uniform = false
		}
		start = end
	}
	if a.ExCoupon {
		p.cf[0] = decZero
	}
	p.cf[len(p.cf)-1] = p.cf[len(p.cf)-1].Add(decHundred)
	return p
}

// annuityMinRate is the smallest per-period rate |g| for which the closed-form annuity
// (1 - v^n)/g is accurate to 1e-12; below it the flows are summed one by one.
var annuityMinRate = udecimal.MustParse("0.0001")

// dirty returns the dirty price per 100 at a yield in percent. With one flow left it
// discounts at simple interest, cf / (1 + w·g); otherwise it compounds,
// Σ cf[k] / (1+g)^(w+k), with g the yield per period. It reports false when the yield is
// outside the formula's domain.
func (p *pricer) dirty(yieldPercent udecimal.Decimal) (udecimal.Decimal, bool) {
	g := quoInt(yieldPercent, 100*p.perYear)
	onePlusG := decOne.Add(g)
	if !onePlusG.IsPos() {
		return decZero, false
	}
	if len(p.cf) == 1 {
		den := decOne.Add(p.w.Mul(g))
		if !den.IsPos() {
			return decZero, false
		}
		return quo(p.cf[0], den), true
	}
	v := quo(decOne, onePlusG)
	n := len(p.cf)
	var sum udecimal.Decimal
	if p.uniform && n > 3 && g.Abs().GreaterThanOrEqual(annuityMinRate) {
		// cf[0] + c·(v + … + v^(n-2)) + cf[n-1]·v^(n-1), with v + … + v^m = (1 - v^m)/g.
		vm := powInt(v, n-2)
		annuity := quo(decOne.Sub(vm), g)
		sum = p.cf[0].Add(p.cf[1].Mul(annuity)).Add(p.cf[n-1].Mul(vm.Mul(v)))
	} else {
		// Horner: ((cf[n-1]·v + cf[n-2])·v + …)·v + cf[0].
		sum = p.cf[n-1]
		for k := n - 2; k >= 0; k-- {
			sum = sum.Mul(v).Add(p.cf[k])
		}
	}
	vw, ok := exp(ln(onePlusG).Mul(p.w).Neg())
	if !ok {
		return decZero, false
	}
	return sum.Mul(vw), true
}

// solverTolerance is the yield precision (in percent) at which the solver stops.
var (
	solverTolerance = udecimal.MustParse("0.0000000000000001")
	priceTolerance  = udecimal.MustParse("0.00000000000001")
)

// solve finds the yield in percent at which dirty(y) equals target.
func (p *pricer) solve(target udecimal.Decimal) (udecimal.Decimal, error) {
	outOfRange := invalid("clean_price", "implies a yield outside %s to %s percent", minYield, maxYield)
	f := func(y udecimal.Decimal) (udecimal.Decimal, bool) {
		d, ok := p.dirty(y)
		return d.Sub(target), ok
	}
	if len(p.cf) == 1 {
		if p.w.IsZero() {
			// A 30/360 count can leave no time before the last coupon (settling on the 30th
			// for a payment on the 31st): the price no longer depends on the yield.
			return decZero, invalid("settlement_date", "no accrual time is left before the final coupon; the yield is undefined")
		}
		// Simple interest in the final period: y = (cf/dirty - 1) / w, per period.
		g := quo(quo(p.cf[0], target).Sub(decOne), p.w)
		y := g.Mul64(uint64(100 * p.perYear))
		if y.LessThan(minYield) || y.GreaterThan(maxYield) {
			return decZero, outOfRange
		}
		return y, nil
	}

	// Bracket the root. The dirty price falls as the yield rises, so look for f(lo) > 0 > f(hi),
	// starting around a rough guess and widening geometrically.
	guess := p.guess(target)
	step := decOne
	lo, hi := maxDec(guess.Sub(step), minYield), minDec(guess.Add(step), maxYield)
	flo, ok1 := f(lo)
	fhi, ok2 := f(hi)
	for i := 0; ; i++ {
		if !ok1 || !ok2 || i > 64 {
			return decZero, outOfRange
		}
		if !flo.IsNeg() && !fhi.IsPos() {
			break
		}
		step = step.Mul64(2)
		if fhi.IsPos() { // yield above hi
			if hi.Equal(maxYield) {
				return decZero, outOfRange
			}
			lo, flo = hi, fhi
			hi = minDec(hi.Add(step), maxYield)
			fhi, ok2 = f(hi)
		} else { // yield below lo
			if lo.Equal(minYield) {
				return decZero, outOfRange
			}
			hi, fhi = lo, flo
			lo = maxDec(lo.Sub(step), minYield)
			flo, ok1 = f(lo)
		}
	}
	return brent(f, lo, hi, flo, fhi)
}

// guess returns a rough yield in percent for a dirty price: the coupon plus the pull to par
// spread over the remaining life, over the average of price and par.
func (p *pricer) guess(target udecimal.Decimal) udecimal.Decimal {
	periods := p.w.Add(decInt(len(p.cf) - 1))
	years := quoInt(periods, p.perYear)
	c := p.cf[len(p.cf)/2]
	if len(p.cf) > 2 {
		c = p.cf[1]
	}
	annualCoupon := c.Mul64(uint64(p.perYear))
	clean := target.Sub(p.accrued)
	g := quo(annualCoupon.Add(quo(decHundred.Sub(clean), years)), quoInt(decHundred.Add(clean), 2))
	return maxDec(minDec(g.Mul(decHundred), maxYield), minYield)
}

func minDec(a, b udecimal.Decimal) udecimal.Decimal {
	if a.LessThan(b) {
		return a
	}
	return b
}

func maxDec(a, b udecimal.Decimal) udecimal.Decimal {
	if a.GreaterThan(b) {
		return a
	}
	return b
}

// brent finds a root of f in [a, b], where f(a) and f(b) have opposite signs (or one is zero),
// by Brent's method: inverse quadratic interpolation or secant steps, falling back to
// bisection whenever they would not shrink the bracket fast enough.
func brent(f func(udecimal.Decimal) (udecimal.Decimal, bool), a, b, fa, fb udecimal.Decimal) (udecimal.Decimal, error) {
	c, fc := a, fa
	d := b.Sub(a)
	e := d
	for iter := 0; iter < 200; iter++ {
		if fb.Sign() == fc.Sign() && !fb.IsZero() {
			c, fc = a, fa
			d = b.Sub(a)
			e = d
		}
		if fc.Abs().LessThan(fb.Abs()) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol := solverTolerance
		xm := c.Sub(b).Mul(decHalf)
		if fb.Abs().LessThanOrEqual(priceTolerance) || xm.Abs().LessThanOrEqual(tol) {
			return b, nil
		}
		if e.Abs().GreaterThanOrEqual(tol) && fa.Abs().GreaterThan(fb.Abs()) {
			var p, q udecimal.Decimal
			s := quo(fb, fa)
			if a.Equal(c) {
				// Secant.
				p = xm.Mul64(2).Mul(s)
				q = decOne.Sub(s)
			} else {
				// Inverse quadratic interpolation.
				qq := quo(fa, fc)
				r := quo(fb, fc)
				p = s.Mul(xm.Mul64(2).Mul(qq).Mul(qq.Sub(r)).Sub(b.Sub(a).Mul(r.Sub(decOne))))
				q = qq.Sub(decOne).Mul(r.Sub(decOne)).Mul(s.Sub(decOne))
			}
			if p.IsPos() {
				q = q.Neg()
			}
			p = p.Abs()
			min1 := xm.Mul64(3).Mul(q).Sub(tol.Mul(q).Abs())
			min2 := e.Mul(q).Abs()
			if !q.IsZero() && p.Mul64(2).LessThan(minDec(min1, min2)) {
				e = d
				d = quo(p, q)
			} else {
				d, e = xm, xm
			}
		} else {
			d, e = xm, xm
		}
		a, fa = b, fb
		if d.Abs().GreaterThan(tol) {
			b = b.Add(d)
		} else if xm.IsPos() {
			b = b.Add(tol)
		} else {
			b = b.Sub(tol)
		}
		var ok bool
		fb, ok = f(b)
		if !ok {
			return decZero, invalid("clean_price", "no yield found")
		}
	}
	return decZero, invalid("clean_price", "no yield found")
}
