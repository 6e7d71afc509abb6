package bondmath

import (
	"errors"
	"strings"
	"testing"

	"github.com/quagmt/udecimal"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"+3", "3"},
		{"99.875", "99.875"},
		{"-12.50", "-12.5"},
		{"0.0000000000000000001", "0.0000000000000000001"},
		{"1234567890123456789", "1234567890123456789"},
		{"1234567890123456789.1234567890123456789", "1234567890123456789.1234567890123456789"},
		{"007.10", "7.1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDecimal(tt.in)
			if err != nil || got.String() != tt.want {
				t.Errorf("ParseDecimal(%q) = %v, %v, want %s", tt.in, got, err, tt.want)
			}
		})
	}
	for _, in := range []string{
		"", "-", "+", ".", ".5", "5.", "1e5", "1E-2", "0x10", "NaN", "Inf", "-Inf", "1,000", "1 000",
		" 1", "1 ", "--1", "+-1", "1.2.3", "12345678901234567890", "0.12345678901234567890",
		"١٢", strings.Repeat("1", 100), "1_000",
	} {
		t.Run("reject "+in, func(t *testing.T) {
			got, err := ParseDecimal(in)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseDecimal(%q) = %v, %v, want ErrInvalid", in, got, err)
			}
		})
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-0", "99.875", "-12.50", "1e5", "NaN", ".5", "1234567890123456789.1234567890123456789", "+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseDecimal(%q) error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		back, err := ParseDecimal(d.String())
		if err != nil || !back.Equal(d) {
			t.Fatalf("ParseDecimal(%q) = %v, %v; want %v (from %q)", d.String(), back, err, d, s)
		}
		// The value is the one written: compare against exact rational parsing.
		if decToRat(d).Cmp(rat(strings.TrimPrefix(s, "+"))) != 0 {
			t.Fatalf("ParseDecimal(%q) = %v, not the written value", s, d)
		}
	})
}

// The internal ln and exp must be good to a few 1e-18 for prices to be good to 1e-14 (each
// truncated product or quotient loses up to 1e-19).
func TestLnExp(t *testing.T) {
	// Reference digits: e = 2.71828182845904523536…, ln 10 = 2.30258509299404568401…,
	// ln 0.5 = -0.69314718055994530941…, e^-1 = 0.36787944117144232159….
	checkNear(t, "exp(1)", mustExp(t, dec("1")), rat("2.7182818284590452354"), "5e-18")
	checkNear(t, "exp(-1)", mustExp(t, dec("-1")), rat("0.3678794411714423216"), "5e-18")
	checkNear(t, "ln(10)", ln(dec("10")), rat("2.3025850929940456840"), "1e-18")
	checkNear(t, "ln(0.5)", ln(dec("0.5")), rat("-0.6931471805599453094"), "1e-18")
	checkNear(t, "ln(1)", ln(dec("1")), rat("0"), "0")
	for _, c := range []struct{ x, tol string }{
		{"0.0001", "1e-19"}, {"0.97", "1e-18"}, {"1.0235", "1e-18"}, {"3.5", "1e-17"}, {"150", "1e-15"},
	} {
		x := dec(c.x)
		checkNear(t, "exp(ln("+c.x+"))", mustExp(t, ln(x)), decToRat(x), c.tol)
	}
	if _, ok := exp(dec("1000")); ok {
		t.Error("exp(1000) reported ok, want out of range")
	}
}

func mustExp(t *testing.T, x udecimal.Decimal) udecimal.Decimal {
	t.Helper()
	v, ok := exp(x)
	if !ok {
		t.Fatalf("exp(%s) out of range", x)
	}
	return v
}
