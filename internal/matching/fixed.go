package matching

import (
	"math/bits"

	"github.com/quagmt/udecimal"
)

// fixed is an exact non-negative decimal as a 128-bit integer number of
// 10^-19, the finest unit a udecimal.Decimal has. Every price and quantity
// the book holds is one, so the book's records hold no pointers and
// comparing or adding them is integer arithmetic. It covers every decimal
// from 0 up to (2^128-1)·10^-19, about 3.4·10^19: far beyond the venue's
// own bound on amounts and prices (venue.MaxAmountDigits, 18 integer
// digits), so the book refuses a larger value (ErrInvalid) rather than
// round it, and never meets one from the venue.
type fixed struct{ hi, lo uint64 }

// fixedScale is the number of decimal places of a fixed.
const fixedScale = 19

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// toFixed returns d as a fixed; ok is false when d is negative or too
// large.
func toFixed(d udecimal.Decimal) (f fixed, ok bool) {
	neg, hi, lo, prec, ok := d.ToHiLo()
	if !ok || neg || prec > fixedScale {
		return fixed{}, false
	}
	m := pow10[fixedScale-prec]
	carry, lo := bits.Mul64(lo, m)
	over, hi := bits.Mul64(hi, m)
	hi, c := bits.Add64(hi, carry, 0)
	if over != 0 || c != 0 {
		return fixed{}, false
	}
	return fixed{hi: hi, lo: lo}, true
}

// decimal returns f as a udecimal.Decimal with no trailing zeros.
func (f fixed) decimal() udecimal.Decimal {
	if f.isZero() {
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
func (f fixed) divmod(m uint64) (fixed, uint64) {
	qhi, r := f.hi/m, f.hi%m
	qlo, r := bits.Div64(r, f.lo, m)
	return fixed{hi: qhi, lo: qlo}, r
}

func (f fixed) isZero() bool { return f.hi == 0 && f.lo == 0 }

// add returns f + g; the book adds only quantities whose sum is the
// quantity of one order, so it cannot overflow.
func (f fixed) add(g fixed) fixed {
	lo, c := bits.Add64(f.lo, g.lo, 0)
	hi, _ := bits.Add64(f.hi, g.hi, c)
	return fixed{hi: hi, lo: lo}
}

// sub returns f - g for g <= f.
func (f fixed) sub(g fixed) fixed {
	lo, c := bits.Sub64(f.lo, g.lo, 0)
	hi, _ := bits.Sub64(f.hi, g.hi, c)
	return fixed{hi: hi, lo: lo}
}

// cmp returns -1, 0 or +1 as f is below, equal to or above g.
func (f fixed) cmp(g fixed) int {
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

// uuidPairs are the offsets of the 16 hex byte pairs in a UUID's
// 36-character form.
var uuidPairs = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// unhex maps a lowercase hex digit to its value, anything else to 0xff.
var unhex = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = uint8(i)
	}
	return t
}()

// parseUUID returns the 16 bytes of s when s is a UUID in its canonical
// 36-character lowercase form, so that formatUUID gives s back. The venue's
// ids have that form; the book keys them by their bytes.
func parseUUID(s string) (k [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	for i, p := range uuidPairs {
		hi, lo := unhex[s[p]], unhex[s[p+1]]
		if (hi|lo)&0xf0 != 0 {
			return [16]byte{}, false
		}
		k[i] = hi<<4 | lo
	}
	return k, true
}

// formatUUID returns the canonical form of UUID k.
func formatUUID(k *[16]byte) string {
	const digits = "0123456789abcdef"
	var buf [36]byte
	buf[8], buf[13], buf[18], buf[23] = '-', '-', '-', '-'
	for i, p := range uuidPairs {
		buf[p], buf[p+1] = digits[k[i]>>4], digits[k[i]&0xf]
	}
	return string(buf[:])
}
