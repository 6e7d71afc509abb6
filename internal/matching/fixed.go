package matching

import (
	"math/bits"

	"github.com/quagmt/udecimal"
)

// Fixed is an exact non-negative decimal as a 128-bit integer number of
// 10^-19, the finest unit a udecimal.Decimal has: the book's prices and
// quantities. The book's records hold no pointers, and comparing or adding
// them is integer arithmetic. It covers every decimal from 0 up to
// (2^128-1)·10^-19, about 3.4·10^19: far beyond the venue's own bound on
// amounts and prices (venue.MaxAmountDigits, 18 integer digits). The caller
// converts at its edge with FixedOf, which refuses what does not fit rather
// than round it, and back with Decimal. The zero value is 0.
type Fixed struct{ hi, lo uint64 }

// fixedScale is the number of decimal places of a Fixed.
const fixedScale = 19

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// FixedOf returns d exactly as a Fixed; ok is false when d is negative or
// beyond the range (about 3.4·10^19), which it never rounds.
func FixedOf(d udecimal.Decimal) (f Fixed, ok bool) {
	neg, hi, lo, prec, ok := d.ToHiLo()
	if !ok || neg || prec > fixedScale {
		return Fixed{}, false
	}
	m := pow10[fixedScale-prec]
	carry, lo := bits.Mul64(lo, m)
	over, hi := bits.Mul64(hi, m)
	hi, c := bits.Add64(hi, carry, 0)
	if over != 0 || c != 0 {
		return Fixed{}, false
	}
	return Fixed{hi: hi, lo: lo}, true
}

// Decimal returns f as a udecimal.Decimal with no trailing zeros.
func (f Fixed) Decimal() udecimal.Decimal {
	if f.IsZero() {
		return udecimal.Zero
	}
	q, r := f.divmod(pow10[fixedScale])
	zeros := fixedScale
	if r != 0 {
		// A bound: 10^k divides r only if 2^k does, and r < 10^19.
		zeros = min(bits.TrailingZeros64(r), fixedScale-1)
		for zeros > 0 && r%pow10[zeros] != 0 {
			zeros--
		}
		q, _ = f.divmod(pow10[zeros])
	}
	d, err := udecimal.NewFromHiLo(false, q.hi, q.lo, uint8(fixedScale-zeros))
	if err != nil {
		// Only when udecimal's default precision was lowered below a
		// value the book was given: it never is.
		panic("matching: " + err.Error())
	}
	return d
}

// divmod returns f / m and f % m.
func (f Fixed) divmod(m uint64) (Fixed, uint64) {
	qhi, r := f.hi/m, f.hi%m
	qlo, r := bits.Div64(r, f.lo, m)
	return Fixed{hi: qhi, lo: qlo}, r
}

// IsZero reports whether f is 0.
func (f Fixed) IsZero() bool { return f.hi == 0 && f.lo == 0 }

// String returns f in decimal notation with no trailing zeros.
func (f Fixed) String() string { return f.Decimal().String() }

// add returns f + g; the book adds only quantities whose sum is the
// quantity of one order, so it cannot overflow.
func (f Fixed) add(g Fixed) Fixed {
	lo, c := bits.Add64(f.lo, g.lo, 0)
	hi, _ := bits.Add64(f.hi, g.hi, c)
	return Fixed{hi: hi, lo: lo}
}

// sub returns f - g for g <= f.
func (f Fixed) sub(g Fixed) Fixed {
	lo, c := bits.Sub64(f.lo, g.lo, 0)
	hi, _ := bits.Sub64(f.hi, g.hi, c)
	return Fixed{hi: hi, lo: lo}
}

// Cmp returns -1, 0 or +1 as f is below, equal to or above g.
func (f Fixed) Cmp(g Fixed) int {
	switch {
	case f.hi < g.hi:
		return -1
	case f.hi > g.hi:
		return 1
	case f.lo < g.lo:
		return -1
	case f.lo > g.lo:
		return 1
	}
	return 0
}
