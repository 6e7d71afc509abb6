package positions

import (
	"math/rand/v2"
	"testing"

	"github.com/quagmt/udecimal"
)

func d(s string) udecimal.Decimal { return udecimal.MustParse(s) }

// fill is one step of a ledger test: a buy or a sell.
type fill struct {
	buy            bool
	nominal, price string
}

func apply(l *Ledger, fs []fill) {
	for _, f := range fs {
		if f.buy {
			l.Buy(d(f.nominal), d(f.price))
		} else {
			l.Sell(d(f.nominal), d(f.price))
		}
	}
}

// TestLedger works examples of average cost by hand: a position built,
// reduced, flattened and turned through zero on both sides.
func TestLedger(t *testing.T) {
	tests := []struct {
		name     string
		fills    []fill
		net      string
		average  string // "" when flat
		realised string
		mark     string
		unreal   string
	}{
		{name: "one buy", fills: []fill{{true, "1000000", "99.5"}},
			net: "1000000", average: "99.5", realised: "0", mark: "100", unreal: "5000"},
		{name: "two buys average", fills: []fill{{true, "1000000", "99"}, {true, "3000000", "100"}},
			net: "4000000", average: "99.75", realised: "0", mark: "99.5", unreal: "-10000"},
		{name: "a sell against a long realises at the average",
			fills: []fill{{true, "1000000", "99"}, {true, "1000000", "101"}, {false, "500000", "102"}},
			net:   "1500000", average: "100", realised: "10000", mark: "100", unreal: "0"},
		{name: "flat after a round trip", fills: []fill{{true, "2000000", "99.25"}, {false, "2000000", "99.75"}},
			net: "0", realised: "10000", mark: "101", unreal: "0"},
		{name: "a sell through zero opens a short at its price",
			fills: []fill{{true, "1000000", "100"}, {false, "3000000", "101"}},
			net:   "-2000000", average: "101", realised: "10000", mark: "100.5", unreal: "10000"},
		{name: "a short built and bought back",
			fills: []fill{{false, "1000000", "102"}, {false, "1000000", "100"}, {true, "500000", "99"}},
			net:   "-1500000", average: "101", realised: "10000", mark: "101", unreal: "0"},
		{name: "a buy through zero opens a long at its price",
			fills: []fill{{false, "1000000", "100"}, {true, "1500000", "101"}},
			net:   "500000", average: "101", realised: "-10000", mark: "101", unreal: "0"},
		{name: "a third of a position at a price in thirds",
			fills: []fill{{true, "1000", "100"}, {true, "2000", "100.01"}, {false, "1000", "100"}},
			net:   "2000", average: "100.006666666666666667", realised: "-0.0666666666666666667", mark: "100", unreal: "-0.1333333333333333333"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Ledger
			apply(&l, tt.fills)
			if got := l.Net(); !got.Equal(d(tt.net)) {
				t.Errorf("Net() = %s, want %s", got, tt.net)
			}
			avg, open := l.Average()
			if open != (tt.average != "") {
				t.Errorf("Average() open = %v, want %v", open, tt.average != "")
			} else if open && avg.RoundHAZ(18).String() != d(tt.average).RoundHAZ(18).String() {
				t.Errorf("Average() = %s, want %s", avg, tt.average)
			}
			if got := l.Realised(); got.RoundHAZ(18).String() != d(tt.realised).RoundHAZ(18).String() {
				t.Errorf("Realised() = %s, want %s", got, tt.realised)
			}
			if got := l.Unrealised(d(tt.mark)); got.RoundHAZ(18).String() != d(tt.unreal).RoundHAZ(18).String() {
				t.Errorf("Unrealised(%s) = %s, want %s", tt.mark, got, tt.unreal)
			}
		})
	}
}

// TestLedgerProperties runs random fills (a fixed seed) through a ledger
// and checks after every one what must hold whatever the path: the net is
// bought − sold; realised + unrealised at any mark is exactly the cash of
// the sells less the buys plus the net valued at the mark; and a flat
// position has realised exactly that cash.
func TestLedgerProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(20261208, 1))
	marks := []udecimal.Decimal{d("0"), d("97.125"), d("100"), d("103.3333")}
	for run := range 200 {
		var l Ledger
		var bought, sold, cash udecimal.Decimal // cash: Σ sells − Σ buys at clean/100
		for step := range 40 {
			nominal := udecimal.MustFromInt64(int64(1+r.IntN(5000))*1000, 0)
			price := udecimal.MustFromInt64(int64(95000+r.IntN(10000)), 3)
			value := nominal.Mul(price).MustDiv(hundred)
			if r.IntN(2) == 0 {
				l.Buy(nominal, price)
				bought, cash = bought.Add(nominal), cash.Sub(value)
			} else {
				l.Sell(nominal, price)
				sold, cash = sold.Add(nominal), cash.Add(value)
			}
			if got, want := l.Net(), bought.Sub(sold); !got.Equal(want) {
				t.Fatalf("run %d step %d: Net() = %s, want %s", run, step, got, want)
			}
			if !l.Bought().Equal(bought) || !l.Sold().Equal(sold) {
				t.Fatalf("run %d step %d: Bought(), Sold() = %s, %s, want %s, %s", run, step, l.Bought(), l.Sold(), bought, sold)
			}
			for _, m := range marks {
				got := l.Realised().Add(l.Unrealised(m))
				want := cash.Add(l.Net().Mul(m).MustDiv(hundred))
				if !got.Equal(want) {
					t.Fatalf("run %d step %d: Realised() + Unrealised(%s) = %s, want %s", run, step, m, got, want)
				}
			}
			if avg, open := l.Average(); open {
				if !avg.IsPos() || avg.LessThan(d("95")) || avg.GreaterThan(d("105")) {
					t.Fatalf("run %d step %d: Average() = %s, outside the prices traded", run, step, avg)
				}
			} else if !l.Realised().Equal(cash) {
				t.Fatalf("run %d step %d: flat, Realised() = %s, want %s", run, step, l.Realised(), cash)
			}
		}
	}
}
