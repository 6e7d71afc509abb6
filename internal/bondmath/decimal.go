package bondmath

import (
	"github.com/quagmt/udecimal"
)

// Limits of ParseDecimal. Nineteen fractional digits is what udecimal holds exactly; nineteen
// integer digits is far beyond any price, yield or nominal the venue will see.
const (
	maxDecimalInput   = 41 // sign + 19 + "." + 19, plus one to spare
	maxIntegerDigits  = 19
	maxFractionDigits = 19
)

// ParseDecimal parses a plain decimal number strictly: an optional sign, 1–19 digits, and
// optionally a point followed by 1–19 digits ("-12.50", "+3", "0.0001"). Exponents, spaces,
// hex, "NaN", "Inf", thousands separators, a bare "." or a trailing "." are rejected, as is
// anything longer than 41 bytes. "-0" parses as zero. Errors are *FieldError values for the
// field "number" (wrapping ErrInvalid); callers can report them under their own field name.
func ParseDecimal(s string) (udecimal.Decimal, error) {
	if len(s) == 0 {
		return udecimal.Zero, invalid("number", "empty")
	}
	if len(s) > maxDecimalInput {
		return udecimal.Zero, invalid("number", "longer than %d characters", maxDecimalInput)
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	intDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		intDigits++
	}
	if intDigits == 0 || intDigits > maxIntegerDigits {
		return udecimal.Zero, invalid("number", "%.41q is not a decimal number (want e.g. 99.875)", s)
	}
	if i < len(s) {
		if s[i] != '.' {
			return udecimal.Zero, invalid("number", "%.41q is not a decimal number (want e.g. 99.875)", s)
		}
		i++
		fracDigits := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			fracDigits++
		}
		if fracDigits == 0 || i != len(s) {
			return udecimal.Zero, invalid("number", "%.41q is not a decimal number (want e.g. 99.875)", s)
		}
		if fracDigits > maxFractionDigits {
			return udecimal.Zero, invalid("number", "more than %d digits after the decimal point", maxFractionDigits)
		}
	}
	d, err := udecimal.Parse(s)
	if err != nil {
		return udecimal.Zero, invalid("number", "%.41q is not a decimal number", s)
	}
	if d.IsZero() {
		return udecimal.Zero, nil
	}
	return d, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Internal decimal arithmetic. udecimal keeps 19 fractional digits and truncates beyond
// them; every result of this package inherits that resolution and nothing else is rounded.

var (
	decZero    = udecimal.Zero
	decOne     = udecimal.One
	decTwo     = udecimal.MustFromInt64(2, 0)
	decHundred = udecimal.MustFromInt64(100, 0)
	decHalf    = udecimal.MustFromInt64(5, 1)
	// ln2 to 19 fractional digits (0.693147180559945309417…).
	decLn2 = udecimal.MustParse("0.6931471805599453094")
	// Range bounds for the argument reduction in ln.
	decThreeQuarters = udecimal.MustFromInt64(75, 2)
	decThreeHalves   = udecimal.MustFromInt64(15, 1)
)

func decInt(n int) udecimal.Decimal { return udecimal.MustFromInt64(int64(n), 0) }

// quo returns a/b. Callers guarantee b != 0; a zero divisor is a bug in this package.
func quo(a, b udecimal.Decimal) udecimal.Decimal {
	q, err := a.Div(b)
	if err != nil {
		panic("bondmath: internal division by zero")
	}
	return q
}

// quoInt returns a/n for n > 0.
func quoInt(a udecimal.Decimal, n int) udecimal.Decimal {
	q, err := a.Div64(uint64(n))
	if err != nil {
		panic("bondmath: internal division by zero")
	}
	return q
}

// ratio returns num/den for integers, den > 0.
func ratio(num, den int) udecimal.Decimal { return quoInt(decInt(num), den) }

// powInt returns x**n by repeated squaring, truncating every product to 19 fractional digits.
// It avoids udecimal's exact big.Int fallback, whose cost grows with 19·n digits.
func powInt(x udecimal.Decimal, n int) udecimal.Decimal {
	if n < 0 {
		return quo(decOne, powInt(x, -n))
	}
	result := decOne
	for n > 0 {
		if n&1 == 1 {
			result = result.Mul(x)
		}
		n >>= 1
		if n > 0 {
			x = x.Mul(x)
		}
	}
	return result
}

// ln returns the natural logarithm of x > 0: x = m·2^k with m in [0.75, 1.5], then
// ln m = 2·atanh((m-1)/(m+1)) by its power series, whose ratio is at most 1/49.
func ln(x udecimal.Decimal) udecimal.Decimal {
	if !x.IsPos() {
		panic("bondmath: internal ln of a non-positive number")
	}
	k := 0
	for x.GreaterThan(decThreeHalves) {
		x = quoInt(x, 2)
		k++
	}
	for x.LessThan(decThreeQuarters) {
		x = x.Mul64(2)
		k--
	}
	z := quo(x.Sub(decOne), x.Add(decOne))
	z2 := z.Mul(z)
	sum, term := z, z
	for n := 3; ; n += 2 {
		term = term.Mul(z2)
		t := quoInt(term, n)
		if t.IsZero() {
			break
		}
		sum = sum.Add(t)
	}
	return sum.Mul64(2).Add(decLn2.Mul(decInt(k)))
}

// exp returns e**t: t = k·ln2 + r with |r| <= ln2/2, e**r by its Taylor series, then 2**k.
// It reports false when |t| is beyond about 700, where the result stops being useful.
func exp(t udecimal.Decimal) (udecimal.Decimal, bool) {
	k64, err := quo(t, decLn2).RoundHAZ(0).Int64()
	if err != nil || k64 > 1000 || k64 < -1000 {
		return decZero, false
	}
	k := int(k64)
	r := t.Sub(decLn2.Mul(decInt(k)))
	sum, term := decOne, decOne
	for n := 1; ; n++ {
		term = quoInt(term.Mul(r), n)
		if term.IsZero() {
			break
		}
		sum = sum.Add(term)
	}
	switch {
	case k > 0:
		return sum.Mul(powInt(decTwo, k)), true
	case k < 0:
		return quo(sum, powInt(decTwo, -k)), true
	}
	return sum, true
}
