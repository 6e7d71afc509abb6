package bondmath

import (
	"flag"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/quagmt/udecimal"
)

// day parses a YYYY-MM-DD literal in a test table.
func day(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// dec parses a decimal literal in a test table.
func dec(s string) udecimal.Decimal { return udecimal.MustParse(s) }

// frac is the exact rational num/den, for writing published formulas such as 4/365 + 58/366.
func frac(num, den int64) *big.Rat { return big.NewRat(num, den) }

// sum adds rationals.
func sum(rs ...*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, r := range rs {
		s.Add(s, r)
	}
	return s
}

// rat parses a decimal literal exactly.
func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational " + s)
	}
	return r
}

func decToRat(d udecimal.Decimal) *big.Rat { return rat(d.String()) }

// near reports whether |got - want| <= tol.
func near(got udecimal.Decimal, want *big.Rat, tol string) bool {
	diff := new(big.Rat).Sub(decToRat(got), want)
	return diff.Abs(diff).Cmp(rat(tol)) <= 0
}

func ratString(r *big.Rat) string { return r.FloatString(19) }

// checkNear fails the test unless got is within tol of want.
func checkNear(t *testing.T, what string, got udecimal.Decimal, want *big.Rat, tol string) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %s, want %s (±%s)", what, got, ratString(want), tol)
	}
}

var seed = flag.Uint64("seed", 20261120, "seed of the random property tests")

// newRand returns the property tests' random source, logging its seed so that a failure can be
// replayed with -seed.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	t.Logf("random seed %d (rerun with -seed=%d)", *seed, *seed)
	return rand.New(rand.NewPCG(*seed, 0x626f6e64))
}
