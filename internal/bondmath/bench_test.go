package bondmath

import (
	"strings"
	"testing"
)

func BenchmarkYearFraction(b *testing.B) {
	start, end := day("2024-02-29"), day("2025-08-31")
	for dc := Thirty360; dc <= ActualActualICMA; dc++ {
		opts := YearFractionOpts{Maturity: end, Frequency: SemiAnnual}
		b.Run(strings.ReplaceAll(dc.String(), "/", "-"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := YearFraction(dc, start, end, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchBonds = []struct {
	name string
	bond Bond
}{
	{"10y semi-annual ACT-ACT ICMA", Bond{Coupon: dec("4.25"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2024-02-15"), Maturity: day("2034-02-15")}},
	{"30y annual 30E-360", Bond{Coupon: dec("2.5"), Frequency: Annual, DayCount: ThirtyE360, AccrualStart: day("2024-07-04"), Maturity: day("2054-07-04")}},
	{"30y monthly ACT-360", Bond{Coupon: dec("5.1"), Frequency: Monthly, DayCount: Actual360, AccrualStart: day("2024-01-10"), Maturity: day("2054-01-10")}},
	{"long first coupon ICMA", Bond{Coupon: dec("3"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2025-01-17"), FirstCoupon: day("2025-08-31"), Maturity: day("2035-02-28"), EndOfMonth: true}},
}

func BenchmarkAccrued(b *testing.B) {
	settle := day("2025-06-30")
	for _, bb := range benchBonds {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Accrued(bb.bond, settle); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPrice(b *testing.B) {
	settle := day("2025-06-30")
	for _, bb := range benchBonds {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Price(bb.bond, settle, dec("3.875")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkYield(b *testing.B) {
	settle := day("2025-06-30")
	for _, bb := range benchBonds {
		for _, clean := range []string{"97.125", "100.00005"} { // ~4 % and near-zero-ish spreads
			b.Run(bb.name+" at "+clean, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Yield(bb.bond, settle, dec(clean)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
