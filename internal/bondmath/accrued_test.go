package bondmath

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSchedule(t *testing.T) {
	tests := []struct {
		name string
		bond Bond
		want []string
	}{
		{
			name: "backward, short first period",
			bond: Bond{Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2024-03-10"), Maturity: day("2026-01-15")},
			want: []string{"2024-07-15", "2025-01-15", "2025-07-15", "2026-01-15"},
		},
		{
			name: "backward, end of month",
			bond: Bond{Frequency: Quarterly, DayCount: ThirtyE360, AccrualStart: day("2024-02-29"), Maturity: day("2025-02-28"), EndOfMonth: true},
			want: []string{"2024-05-31", "2024-08-31", "2024-11-30", "2025-02-28"},
		},
		{
			name: "backward, no end-of-month rule",
			bond: Bond{Frequency: Quarterly, DayCount: ThirtyE360, AccrualStart: day("2024-02-28"), Maturity: day("2025-02-28")},
			want: []string{"2024-05-28", "2024-08-28", "2024-11-28", "2025-02-28"},
		},
		{
			name: "forward from a long first coupon",
			bond: Bond{Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2017-01-17"), FirstCoupon: day("2017-08-31"), Maturity: day("2019-02-28"), EndOfMonth: true},
			want: []string{"2017-08-31", "2018-02-28", "2018-08-31", "2019-02-28"},
		},
		{
			name: "forward with a short final stub",
			bond: Bond{Frequency: Annual, DayCount: ActualActualICMA, AccrualStart: day("2020-03-01"), FirstCoupon: day("2021-03-01"), Maturity: day("2023-01-15")},
			want: []string{"2021-03-01", "2022-03-01", "2023-01-15"},
		},
		{
			name: "one period",
			bond: Bond{Frequency: Annual, DayCount: Thirty360, AccrualStart: day("2020-03-01"), Maturity: day("2021-03-01")},
			want: []string{"2021-03-01"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dates, err := Schedule(tt.bond)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range dates {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Schedule mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Source: Microsoft Excel documentation, COUPDAYBS, COUPDAYS, COUPDAYSNC, COUPNCD, COUPPCD
// and COUPNUM examples: settlement 2011-01-25, maturity 2011-11-15, semi-annual,
// actual/actual: 71 days accrued, 181 in the period, 110 to the next coupon 2011-05-15,
// previous coupon 2010-11-15, 2 coupons left; and COUPNUM(2007-01-25, 2008-11-15) = 4.
func TestExcelCouponExamples(t *testing.T) {
	b := Bond{Coupon: dec("4"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2005-11-15"), Maturity: day("2011-11-15")}
	settle := day("2011-01-25")
	prev, next, err := PreviousNext(b, settle)
	if err != nil {
		t.Fatal(err)
	}
	if prev != day("2010-11-15") || next != day("2011-05-15") {
		t.Errorf("PreviousNext = %v, %v, want 2010-11-15, 2011-05-15", prev, next)
	}
	if got := DaysBetween(prev, settle); got != 71 {
		t.Errorf("COUPDAYBS = %d, want 71", got)
	}
	if got := DaysBetween(prev, next); got != 181 {
		t.Errorf("COUPDAYS = %d, want 181", got)
	}
	if got := DaysBetween(settle, next); got != 110 {
		t.Errorf("COUPDAYSNC = %d, want 110", got)
	}
	a, err := Accrued(b, settle)
	if err != nil {
		t.Fatal(err)
	}
	if a.AccruedDays != 71 {
		t.Errorf("AccruedDays = %d, want 71", a.AccruedDays)
	}
	countAfter := func(b Bond, settle Date) int {
		dates, err := Schedule(b)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range dates {
			if d.After(settle) {
				n++
			}
		}
		return n
	}
	if got := countAfter(b, settle); got != 2 {
		t.Errorf("COUPNUM = %d, want 2", got)
	}
	b.Maturity = day("2008-11-15")
	if got := countAfter(b, day("2007-01-25")); got != 4 {
		t.Errorf("COUPNUM(2007-01-25, 2008-11-15) = %d, want 4", got)
	}
}

// Source: Microsoft Excel documentation, ACCRINT example: issue 2008-03-01, first interest
// 2008-08-31, settlement 2008-05-01, rate 10 %, par 1000, semi-annual, basis 0 (30/360 US):
// 16.666667. (The example has no maturity; any later one gives the same accrual.)
func TestExcelAccrint(t *testing.T) {
	b := Bond{Coupon: dec("10"), Frequency: SemiAnnual, DayCount: Thirty360US, AccrualStart: day("2008-03-01"),
		FirstCoupon: day("2008-08-31"), Maturity: day("2012-08-31")}
	a, err := Accrued(b, day("2008-05-01"))
	if err != nil {
		t.Fatal(err)
	}
	checkNear(t, "ACCRINT", AccruedAmount(a.PerHundred, dec("1000")), rat("16.666667"), "0.0000005")
}

// Source: 31 CFR Part 356, Appendix B (Uniform Offering Circular), section I.D "Accrued
// interest" examples (1) and (2), and section II examples D to G (accrued interest A). Treasury
// rounds accrued interest to five decimals per $1,000 (six per $100). Semi-annual ACT/ACT, that
// is ACT/ACT ICMA.
var treasuryAccrued = []struct {
	name   string
	bond   Bond
	settle string
	want   string // per 100
	tol    string
}{
	{"I.D(1) 6 3/4% note reopened 2000-08-15",
		Bond{Coupon: dec("6.75"), AccrualStart: day("2000-05-15"), Maturity: day("2005-05-15")},
		"2000-08-15", "1.687500", "0.0000005"},
	{"I.D(2) and II.E 10 3/4% bond reopened 1985-11-04, long first coupon",
		Bond{Coupon: dec("10.75"), AccrualStart: day("1985-07-02"), FirstCoupon: day("1986-02-15"), Maturity: day("2005-08-15")},
		"1985-11-04", "3.672798", "0.0000005"},
	{"II.D 9 1/2% note accruing from 1985-11-15",
		Bond{Coupon: dec("9.5"), AccrualStart: day("1985-11-15"), Maturity: day("1995-11-15")},
		"1985-11-29", "0.367403", "0.0000005"},
	{"II.F 10 1/2% note reopened in its short first period",
		Bond{Coupon: dec("10.5"), AccrualStart: day("1983-05-16"), Maturity: day("1991-05-15")},
		"1983-08-15", "2.596467", "0.0000005"},
	{"II.G 9 3/4% note reopened in the short part of a long first period",
		Bond{Coupon: dec("9.75"), AccrualStart: day("1988-10-15"), FirstCoupon: day("1989-06-15"), Maturity: day("1994-12-15")},
		"1988-11-15", "0.825820", "0.0000005"},
}

func TestTreasuryAccrued(t *testing.T) {
	for _, tt := range treasuryAccrued {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bond
			b.Frequency, b.DayCount = SemiAnnual, ActualActualICMA
			a, err := Accrued(b, day(tt.settle))
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "Accrued", a.PerHundred, rat(tt.want), tt.tol)
		})
	}
}

// Source: 31 CFR Part 356, Appendix B, section I.A.3 (short first payment period: 8 3/8% note
// issued 1990-07-02, first interest 1990-12-31, $41.419837004 per $1,000) and I.A.4 (long first
// payment period: 7 7/8% note issued 1990-12-03, first interest 1991-08-15,
// $55.210597810 per $1,000). Treasury multiplies a daily interest decimal rounded to nine
// places by the days, hence the tolerance.
func TestTreasuryFirstCoupons(t *testing.T) {
	tests := []struct {
		name string
		bond Bond
		want string // per 1,000
	}{
		{"I.A.3 short first coupon",
			Bond{Coupon: dec("8.375"), AccrualStart: day("1990-07-02"), Maturity: day("1992-06-30"), EndOfMonth: true},
			"41.419837004"},
		{"I.A.4 long first coupon",
			Bond{Coupon: dec("7.875"), AccrualStart: day("1990-12-03"), FirstCoupon: day("1991-08-15"), Maturity: day("1996-02-15")},
			"55.210597810"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bond
			b.Frequency, b.DayCount = SemiAnnual, ActualActualICMA
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
			s := newSchedule(&b)
			got := couponAmount(&b, &s, 0, s.start(0), s.date(0)).Mul64(10)
			checkNear(t, "first coupon per 1,000", got, rat(tt.want), "0.0000001")
		})
	}
}

// Sources, exact formulas published with the tests:
//   - OpenGamma Strata DayCountTest.java, test_actActIcma_longInitialStub_* and
//     veryLongInitialStub_* (quarterly, first regular coupon 2012-02-29, with and without the
//     end-of-month convention), accrued from the accrual start;
//   - QuantLib test-suite/daycounters.cpp, testActualActualWithSchedule: issue 2017-01-17,
//     first coupon 2017-08-31, maturity 2026-02-28, semi-annual, end of month; settlement
//     2017-01-29 accrues 12/362 = 0.03314917127071823.
var icmaFirstPeriodCases = []struct {
	name         string
	accrualStart string
	firstCoupon  string
	maturity     string
	freq         Frequency
	eom          bool
	settle       string
	want         *big.Rat
	tol          string
}{
	{"Strata long initial stub EOM, short", "2011-10-01", "2012-02-29", "2012-05-31", Quarterly, true, "2011-11-12", frac(42, 91*4), "1e-18"},
	{"Strata long initial stub EOM, long", "2011-10-01", "2012-02-29", "2012-05-31", Quarterly, true, "2012-01-12", sum(frac(60, 91*4), frac(43, 91*4)), "1e-18"},
	{"Strata very long initial stub EOM, short", "2011-07-01", "2012-02-29", "2012-05-31", Quarterly, true, "2011-08-12", frac(42, 92*4), "1e-18"},
	{"Strata very long initial stub EOM, mid", "2011-07-01", "2012-02-29", "2012-05-31", Quarterly, true, "2011-11-12", sum(frac(61, 92*4), frac(73, 91*4)), "1e-18"},
	{"Strata long initial stub not EOM, short", "2011-10-01", "2012-02-29", "2012-05-29", Quarterly, false, "2011-11-12", frac(42, 92*4), "1e-18"},
	{"Strata long initial stub not EOM, long", "2011-10-01", "2012-02-29", "2012-05-29", Quarterly, false, "2012-01-12", sum(frac(59, 92*4), frac(44, 92*4)), "1e-18"},
	{"QuantLib long first coupon, first quasi period", "2017-01-17", "2017-08-31", "2026-02-28", SemiAnnual, true, "2017-01-29", rat("0.03314917127071823"), "1e-16"},
}

func TestICMAFirstPeriodAccrued(t *testing.T) {
	for _, c := range icmaFirstPeriodCases {
		t.Run(c.name, func(t *testing.T) {
			b := Bond{Coupon: dec("4"), Frequency: c.freq, DayCount: ActualActualICMA, AccrualStart: day(c.accrualStart),
				FirstCoupon: day(c.firstCoupon), Maturity: day(c.maturity), EndOfMonth: c.eom}
			a, err := Accrued(b, day(c.settle))
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "YearFraction", a.YearFraction, c.want, c.tol)
			checkNear(t, "PerHundred", a.PerHundred, new(big.Rat).Mul(c.want, frac(4, 1)), "1e-17")
			if a.PreviousCoupon != day(c.accrualStart) || a.NextCoupon != day(c.firstCoupon) {
				t.Errorf("period = %v..%v, want %s..%s", a.PreviousCoupon, a.NextCoupon, c.accrualStart, c.firstCoupon)
			}
		})
	}
	// QuantLib: the whole long first coupon period is 0.6160220994 years.
	b := Bond{Coupon: dec("4"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2017-01-17"),
		FirstCoupon: day("2017-08-31"), Maturity: day("2026-02-28"), EndOfMonth: true}
	s := newSchedule(&b)
	checkNear(t, "first coupon / coupon", quoInt(couponAmount(&b, &s, 0, s.start(0), s.date(0)), 4), rat("0.6160220994"), "0.00000000005")
}

func TestAccruedExCoupon(t *testing.T) {
	// A 5 % annual 30E/360 bond paying on 15 June, ex-coupon 7 calendar days before.
	b := Bond{Coupon: dec("5"), Frequency: Annual, DayCount: ThirtyE360, AccrualStart: day("2020-06-15"),
		Maturity: day("2030-06-15"), ExCouponDays: 7}
	tests := []struct {
		settle  string
		ex      bool
		days    int
		perHund *big.Rat
	}{
		{"2024-06-07", false, 352, frac(5*352, 360)},
		{"2024-06-08", true, -7, frac(-5*7, 360)},
		{"2024-06-14", true, -1, frac(-5, 360)},
		{"2024-06-15", false, 0, frac(0, 1)},
		{"2024-06-16", false, 1, frac(5, 360)},
	}
	for _, tt := range tests {
		t.Run(tt.settle, func(t *testing.T) {
			a, err := Accrued(b, day(tt.settle))
			if err != nil {
				t.Fatal(err)
			}
			if a.ExCoupon != tt.ex || a.AccruedDays != tt.days {
				t.Errorf("Accrued(%s) ex=%v days=%d, want ex=%v days=%d", tt.settle, a.ExCoupon, a.AccruedDays, tt.ex, tt.days)
			}
			checkNear(t, "PerHundred", a.PerHundred, tt.perHund, "1e-18")
		})
	}
}

func TestAmounts(t *testing.T) {
	if got := AccruedAmount(dec("1.6875"), dec("150000")); !got.Equal(dec("2531.25")) {
		t.Errorf("AccruedAmount = %v, want 2531.25", got)
	}
	if got := DirtyPrice(dec("99.5"), dec("1.25")); !got.Equal(dec("100.75")) {
		t.Errorf("DirtyPrice = %v, want 100.75", got)
	}
	if got := SettlementAmount(dec("1000000"), dec("99.5"), dec("1.25")); !got.Equal(dec("1007500")) {
		t.Errorf("SettlementAmount = %v, want 1007500", got)
	}
}

func TestBondValidation(t *testing.T) {
	good := Bond{Coupon: dec("4"), Frequency: SemiAnnual, DayCount: ActualActualICMA, AccrualStart: day("2020-01-15"), Maturity: day("2030-01-15")}
	tests := []struct {
		name   string
		change func(*Bond)
		settle string
		field  string
	}{
		{"no day count", func(b *Bond) { b.DayCount = 0 }, "2024-01-01", "day_count"},
		{"no frequency", func(b *Bond) { b.Frequency = 3 }, "2024-01-01", "frequency"},
		{"negative coupon", func(b *Bond) { b.Coupon = dec("-1") }, "2024-01-01", "coupon"},
		{"no accrual start", func(b *Bond) { b.AccrualStart = Date{} }, "2024-01-01", "accrual_start"},
		{"maturity before accrual start", func(b *Bond) { b.Maturity = day("2019-01-15") }, "2024-01-01", "maturity"},
		{"maturity equals accrual start", func(b *Bond) { b.Maturity = b.AccrualStart }, "2024-01-01", "maturity"},
		{"first coupon before accrual start", func(b *Bond) { b.FirstCoupon = day("2019-07-15") }, "2024-01-01", "first_coupon_date"},
		{"first coupon after maturity", func(b *Bond) { b.FirstCoupon = day("2031-01-15") }, "2024-01-01", "first_coupon_date"},
		{"negative ex-coupon days", func(b *Bond) { b.ExCouponDays = -1 }, "2024-01-01", "ex_coupon_days"},
		{"ex-coupon longer than a period", func(b *Bond) { b.ExCouponDays = 200 }, "2024-01-01", "ex_coupon_days"},
		{"too many periods", func(b *Bond) { b.Frequency = Monthly; b.Maturity = day("2130-01-15") }, "2024-01-01", "maturity"},
		{"settlement before accrual start", func(*Bond) {}, "2019-12-31", "settlement_date"},
		{"settlement after maturity", func(*Bond) {}, "2030-01-16", "settlement_date"},
		{"settlement on maturity", func(*Bond) {}, "2030-01-15", "settlement_date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := good
			tt.change(&b)
			_, err := Accrued(b, day(tt.settle))
			var fe *FieldError
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || fe.Field != tt.field {
				t.Errorf("Accrued error = %v, want ErrInvalid on %s", err, tt.field)
			}
			_, err = Price(b, day(tt.settle), dec("3"))
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Errorf("Price error = %v, want ErrInvalid on %s", err, tt.field)
			}
		})
	}
}

// randomBond draws a bond with random terms, sometimes with a first coupon date (short or
// long first period, maybe a final stub) and an ex-coupon period.
func randomBond(r interface {
	IntN(int) int
}) Bond {
	dcs := []DayCount{Thirty360, Thirty360US, ThirtyE360, ThirtyE360ISDA, Actual360, Actual365Fixed, ActualActualISDA, ActualActualICMA}
	freqs := []Frequency{Annual, SemiAnnual, Quarterly, Monthly}
	b := Bond{
		Coupon:     dec(fmt.Sprintf("%d.%03d", r.IntN(12), r.IntN(1000))),
		Frequency:  freqs[r.IntN(len(freqs))],
		DayCount:   dcs[r.IntN(len(dcs))],
		EndOfMonth: r.IntN(2) == 0,
	}
	b.AccrualStart = day("1995-01-01").AddDays(r.IntN(365 * 35))
	b.Maturity = b.AccrualStart.AddDays(30 + r.IntN(365*40))
	if r.IntN(3) == 0 {
		first := b.AccrualStart.AddDays(1 + r.IntN(31*b.Frequency.Months()*2))
		if !first.After(b.Maturity) {
			b.FirstCoupon = first
		}
	}
	if r.IntN(4) == 0 {
		b.ExCouponDays = 1 + r.IntN(10)
	}
	return b
}

// Property: inside a coupon period the accrued interest grows with every day (until the
// ex-coupon date, where it turns negative and then grows towards zero), and it is zero on
// every coupon date and on the accrual start.
func TestAccruedProperty(t *testing.T) {
	r := newRand(t)
	for range 300 {
		b := randomBond(r)
		if b.Validate() != nil {
			continue
		}
		dates, err := Schedule(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range append([]Date{b.AccrualStart}, dates[:len(dates)-1]...) {
			a, err := Accrued(b, d)
			if err != nil {
				t.Fatalf("%+v: Accrued(%v): %v", b, d, err)
			}
			if !a.PerHundred.IsZero() && !a.ExCoupon {
				t.Fatalf("%+v: Accrued(%v) = %v on a coupon date, want 0", b, d, a.PerHundred)
			}
		}
		// Walk day by day through a random period.
		i := r.IntN(len(dates))
		start := b.AccrualStart
		if i > 0 {
			start = dates[i-1]
		}
		prev, err := Accrued(b, start)
		if err != nil {
			t.Fatal(err)
		}
		for d := start.AddDays(1); d.Before(dates[i]); d = d.AddDays(1) {
			a, err := Accrued(b, d)
			if err != nil {
				t.Fatal(err)
			}
			if a.PreviousCoupon != start || a.NextCoupon != dates[i] {
				t.Fatalf("%+v: Accrued(%v) period %v..%v, want %v..%v", b, d, a.PreviousCoupon, a.NextCoupon, start, dates[i])
			}
			grew := a.PerHundred.GreaterThanOrEqual(prev.PerHundred)
			if a.ExCoupon && !prev.ExCoupon {
				grew = a.PerHundred.LessThanOrEqual(decZero) // the drop at the ex-coupon date
			}
			if !grew || (a.ExCoupon && a.PerHundred.IsPos()) {
				t.Fatalf("%+v: accrued %v on %v after %v on the day before", b, a.PerHundred, d, prev.PerHundred)
			}
			prev = a
		}
	}
}
