package bondmath

import (
	"errors"
	"fmt"
	"testing"

	"github.com/quagmt/udecimal"
)

// Published price ↔ yield examples that follow the street convention (compounding at the
// coupon frequency, fractional first period, SIA "Standard Securities Calculation Methods").
var priceExamples = []struct {
	source  string
	bond    Bond
	settle  string
	yield   string
	clean   string // "" when the source gives only the dirty price
	dirty   string
	accrued string
	tol     string // the source's rounding
}{
	{
		// Microsoft Excel documentation, PRICE example, and Power BI DAX documentation
		// (price-function-dax.md) for the unrounded value: 94.6343616213221. Basis 0 is
		// 30/360 US.
		source: "Excel PRICE",
		bond:   Bond{Coupon: dec("5.75"), Frequency: SemiAnnual, DayCount: Thirty360US, AccrualStart: day("2007-11-15"), Maturity: day("2017-11-15")},
		settle: "2008-02-15", yield: "6.5", clean: "94.6343616213221", tol: "0.00000000000005",
	},
	{
		// 31 CFR Part 356, Appendix B, II.A: 8 3/4% 30-year bond issued and settled on
		// 1990-05-15 (a coupon date), yield 8.84 %: P = 99.057893.
		source: "Treasury II.A",
		bond:   Bond{Coupon: dec("8.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("1990-05-15"), Maturity: day("2020-05-15")},
		settle: "1990-05-15", yield: "8.84", clean: "99.057893", accrued: "0", tol: "0.0000005",
	},
	{
		// HP 12c Platinum User's Guide, section 4 "Bond Price": 6.75 % US Treasury maturing
		// 2018-06-04, settlement 2004-04-28, yield 4.75 %: 120.38, total 123.07.
		source: "HP 12c bond price",
		bond:   Bond{Coupon: dec("6.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2003-12-04"), Maturity: day("2018-06-04")},
		settle: "2004-04-28", yield: "4.75", clean: "120.38", dirty: "123.07", tol: "0.005",
	},
	{
		// HP 17bII+ manual, ch. 8 "Price and Yield of a Bond", and HP 12C "Bonds" learning
		// module, example 1: 6 3/4 % US Treasury maturing 2018-05-01, settlement 2003-08-10,
		// yield 8 3/8 %: net price paid 88.23.
		source: "HP 17bII+ bond price",
		bond:   Bond{Coupon: dec("6.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2003-05-01"), Maturity: day("2018-05-01")},
		settle: "2003-08-10", yield: "8.375", dirty: "88.23", tol: "0.005",
	},
	{
		// HP 12c Platinum User's Guide, section 16 "Bonds", example 1: 5.5 % 30/360 bond
		// maturing 2008-06-01, settlement 2004-08-28, yield 4.75 %: 102.55, accrued 1.33.
		source: "HP 12c 30/360 bond",
		bond:   Bond{Coupon: dec("5.5"), Frequency: SemiAnnual, DayCount: Thirty360US, AccrualStart: day("2004-06-01"), Maturity: day("2008-06-01")},
		settle: "2004-08-28", yield: "4.75", clean: "102.55", accrued: "1.33", tol: "0.005",
	},
}

func TestPublishedPrices(t *testing.T) {
	for _, ex := range priceExamples {
		t.Run(ex.source, func(t *testing.T) {
			got, err := Price(ex.bond, day(ex.settle), dec(ex.yield))
			if err != nil {
				t.Fatal(err)
			}
			if ex.clean != "" {
				checkNear(t, "Clean", got.Clean, rat(ex.clean), ex.tol)
			}
			if ex.dirty != "" {
				checkNear(t, "Dirty", got.Dirty, rat(ex.dirty), ex.tol)
			}
			if ex.accrued != "" {
				checkNear(t, "AccruedPer100", got.AccruedPer100, rat(ex.accrued), ex.tol)
			}
			if !got.Dirty.Equal(got.Clean.Add(got.AccruedPer100)) {
				t.Errorf("Dirty %v != Clean %v + Accrued %v", got.Dirty, got.Clean, got.AccruedPer100)
			}
		})
	}
}

// Published yield examples.
var yieldExamples = []struct {
	source string
	bond   Bond
	settle string
	clean  string
	yield  string
	tol    string
}{
	{
		// Microsoft Excel documentation, YIELD example: settlement 2008-02-15, maturity
		// 2016-11-15, 5.75 %, price 95.04287, semi-annual, basis 0: 6.5 % (the price is
		// rounded to 5 decimals, the yield shown to 2).
		source: "Excel YIELD",
		bond:   Bond{Coupon: dec("5.75"), Frequency: SemiAnnual, DayCount: Thirty360US, AccrualStart: day("2007-11-15"), Maturity: day("2016-11-15")},
		settle: "2008-02-15", clean: "95.04287", yield: "6.5", tol: "0.000001",
	},
	{
		// 31 CFR Part 356, Appendix B, II.A read backwards: 99.057893 yields 8.84 %.
		source: "Treasury II.A",
		bond:   Bond{Coupon: dec("8.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("1990-05-15"), Maturity: day("2020-05-15")},
		settle: "1990-05-15", clean: "99.057893", yield: "8.84", tol: "0.00001",
	},
	{
		// HP 12c Platinum User's Guide, section 4 "Bond Yield": the bond above quoted at
		// 122.125 yields 4.60 %.
		source: "HP 12c bond yield",
		bond:   Bond{Coupon: dec("6.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2003-12-04"), Maturity: day("2018-06-04")},
		settle: "2004-04-28", clean: "122.125", yield: "4.60", tol: "0.005",
	},
	{
		// HP 12C "Bonds" learning module, example 2: quoted at 88.25, the 6 3/4 % bond of
		// 2018-05-01 settling 2003-08-10 yields 8.13 %.
		source: "HP 12C bond yield",
		bond:   Bond{Coupon: dec("6.75"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2003-05-01"), Maturity: day("2018-05-01")},
		settle: "2003-08-10", clean: "88.25", yield: "8.13", tol: "0.005",
	},
}

func TestPublishedYields(t *testing.T) {
	for _, ex := range yieldExamples {
		t.Run(ex.source, func(t *testing.T) {
			got, err := Yield(ex.bond, day(ex.settle), dec(ex.clean))
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "Yield", got.Yield, rat(ex.yield), ex.tol)
			back, err := Price(ex.bond, day(ex.settle), got.Yield)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "Price(Yield(p))", back.Clean, rat(ex.clean), "0.0000000001")
		})
	}
}

func TestFinalPeriodSimpleInterest(t *testing.T) {
	// One coupon left: dirty = (100 + c/f) / (1 + w·y/f), here w = 91/181 (2025-04-15 to
	// 2025-07-15 over 2025-01-15 to 2025-07-15).
	b := Bond{Coupon: dec("4"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2020-01-15"), Maturity: day("2025-07-15")}
	got, err := Price(b, day("2025-04-15"), dec("3"))
	if err != nil {
		t.Fatal(err)
	}
	// 102 / (1 + 91/181 × 0.015) = 102 × 36200 / 36473
	checkNear(t, "Dirty", got.Dirty, frac(102*36200, 36473), "1e-17")
	y, err := Yield(b, day("2025-04-15"), got.Clean)
	if err != nil {
		t.Fatal(err)
	}
	checkNear(t, "Yield", y.Yield, rat("3"), "1e-15")
}

func TestPriceYieldErrors(t *testing.T) {
	b := Bond{Coupon: dec("4"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2020-01-15"), Maturity: day("2030-01-15")}
	settle := day("2024-03-01")
	for _, p := range []string{"0", "-1", "100000000"} {
		_, err := Yield(b, settle, dec(p))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "clean_price" || !errors.Is(err, ErrInvalid) {
			t.Errorf("Yield(clean %s) error = %v, want ErrInvalid on clean_price", p, err)
		}
	}
	for _, y := range []string{"-60", "20000"} {
		_, err := Price(b, settle, dec(y))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "yield" {
			t.Errorf("Price(yield %s) error = %v, want ErrInvalid on yield", y, err)
		}
	}
}

// Property: for random bonds, settlement dates and prices, Price(Yield(p)) = p within 1e-10
// (the solver actually reaches about 1e-14), and Yield(Price(y)) = y.
func TestPriceYieldRoundTrip(t *testing.T) {
	r := newRand(t)
	tol := rat("0.0000000001")
	worst := new(udecimal.Decimal)
	n := 0
	for n < 2000 {
		b := randomBond(r)
		if b.Validate() != nil {
			continue
		}
		settle := b.AccrualStart.AddDays(r.IntN(DaysBetween(b.AccrualStart, b.Maturity)))
		clean := dec(fmt.Sprintf("%d.%06d", 40+r.IntN(120), r.IntN(1000000)))
		y, err := Yield(b, settle, clean)
		if err != nil {
			if errors.Is(err, ErrInvalid) {
				continue // e.g. a price implying a yield outside -50 %..10000 % on a short bond
			}
			t.Fatal(err)
		}
		n++
		p, err := Price(b, settle, y.Yield)
		if err != nil {
			t.Fatalf("%+v settle %v: Price(%v): %v", b, settle, y.Yield, err)
		}
		diff := p.Clean.Sub(clean).Abs()
		if diff.GreaterThan(*worst) {
			*worst = diff
		}
		if decToRat(diff).Cmp(tol) > 0 {
			t.Fatalf("%+v settle %v: Price(Yield(%v) = %v) = %v, off by %v", b, settle, clean, y.Yield, p.Clean, diff)
		}
	}
	t.Logf("worst |Price(Yield(p)) - p| = %v over %d bonds", worst, n)

	for range 1000 {
		b := randomBond(r)
		if b.Validate() != nil {
			continue
		}
		settle := b.AccrualStart.AddDays(r.IntN(DaysBetween(b.AccrualStart, b.Maturity)))
		yield := dec(fmt.Sprintf("%d.%04d", r.IntN(15)-2, r.IntN(10000)))
		p, err := Price(b, settle, yield)
		if err != nil {
			t.Fatalf("%+v settle %v: Price(%v): %v", b, settle, yield, err)
		}
		if !p.Clean.IsPos() {
			continue
		}
		y, err := Yield(b, settle, p.Clean)
		if err != nil {
			t.Fatalf("%+v settle %v: Yield(%v): %v", b, settle, p.Clean, err)
		}
		// Near maturity the price hardly depends on the yield; check the price instead.
		back, err := Price(b, settle, y.Yield)
		if err != nil {
			t.Fatal(err)
		}
		if decToRat(back.Clean.Sub(p.Clean).Abs()).Cmp(tol) > 0 {
			t.Fatalf("%+v settle %v: yield %v → %v → %v → %v", b, settle, yield, p.Clean, y.Yield, back.Clean)
		}
	}
}

// Monotonic: a higher yield never gives a higher price.
func TestPriceMonotonic(t *testing.T) {
	r := newRand(t)
	for range 300 {
		b := randomBond(r)
		if b.Validate() != nil {
			continue
		}
		settle := b.AccrualStart.AddDays(r.IntN(DaysBetween(b.AccrualStart, b.Maturity)))
		prev := udecimal.Zero
		for i := 0; i < 20; i++ {
			y := dec(fmt.Sprintf("%d", 20-2*i))
			p, err := Price(b, settle, y)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && p.Dirty.LessThan(prev) {
				t.Fatalf("%+v: price %v at %v%% below %v at the higher yield", b, p.Dirty, y, prev)
			}
			prev = p.Dirty
		}
	}
}

// The closed-form annuity and the flow-by-flow sum must agree wherever both apply.
func TestAnnuityMatchesHorner(t *testing.T) {
	b := Bond{Coupon: dec("7.5"), Frequency: Monthly, DayCount: ThirtyE360, AccrualStart: day("2025-01-10"), Maturity: day("2124-01-10")}
	p := newPricer(&b, day("2025-03-17"))
	if !p.uniform {
		t.Fatal("flows of a 30E/360 bond should be uniform")
	}
	horner := p
	horner.uniform = false
	for _, y := range []string{"-20", "-0.03", "0.12", "0.13", "1", "4.5", "25", "400"} {
		a, ok1 := p.dirty(dec(y))
		h, ok2 := horner.dirty(dec(y))
		if !ok1 || !ok2 {
			t.Fatalf("dirty(%s) not ok", y)
		}
		// Relative: at -20 % the price of this century bond is about 6e10.
		tol := maxDec(h.Abs(), decOne).Mul(dec("0.000000000001"))
		checkNear(t, "annuity dirty at "+y, a, decToRat(h), tol.String())
	}
}

// FuzzBond feeds arbitrary terms to the bond maths: no panic, and every error is ErrInvalid.
func FuzzBond(f *testing.F) {
	f.Add(uint8(8), uint8(2), int32(400), int32(0), int32(3650), int32(100), int32(0), false, uint8(0), int64(9900), int64(400))
	f.Add(uint8(1), uint8(12), int32(1), int32(-5), int32(36000), int32(35999), int32(30), true, uint8(5), int64(1), int64(-4999))
	f.Add(uint8(4), uint8(1), int32(0), int32(7000), int32(10), int32(9), int32(2), true, uint8(7), int64(10000000), int64(1000000))
	f.Fuzz(func(t *testing.T, dc, freq uint8, couponBp, start, length, settleOff, firstOff int32, eom bool, exDays uint8, cleanBp, yieldBp int64) {
		b := Bond{
			Coupon:       udecimalFromBp(int64(couponBp)),
			Frequency:    Frequency(freq),
			DayCount:     DayCount(dc),
			AccrualStart: day("2000-01-01").AddDays(int(start % 40000)),
			EndOfMonth:   eom,
			ExCouponDays: int(exDays),
		}
		b.Maturity = b.AccrualStart.AddDays(int(length % 40000))
		if firstOff != 0 {
			b.FirstCoupon = b.AccrualStart.AddDays(int(firstOff % 40000))
		}
		settle := b.AccrualStart.AddDays(int(settleOff % 40000))
		check := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("%s(%+v, %v): %v is not ErrInvalid", what, b, settle, err)
			}
		}
		_, err := Schedule(b)
		check("Schedule", err)
		_, err = Accrued(b, settle)
		check("Accrued", err)
		_, err = Price(b, settle, udecimalFromBp(yieldBp%1000000))
		check("Price", err)
		y, err := Yield(b, settle, udecimalFromBp(cleanBp%100000000))
		check("Yield", err)
		if err == nil {
			p, err := Price(b, settle, y.Yield)
			if err != nil {
				t.Fatalf("Price(%+v, %v, %v) after Yield: %v", b, settle, y.Yield, err)
			}
			if d := p.Clean.Sub(udecimalFromBp(cleanBp % 100000000)).Abs(); d.GreaterThan(dec("0.0000000001")) {
				t.Fatalf("%+v %v: Price(Yield(%v)) off by %v", b, settle, udecimalFromBp(cleanBp%100000000), d)
			}
		}
	})
}

func udecimalFromBp(bp int64) udecimal.Decimal { return udecimal.MustFromInt64(bp, 2) }
