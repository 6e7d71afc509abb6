package venue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/quagmt/udecimal"
)

// TestAllocateSumsExactly: over random splits of random trades the parts'
// quantities, accrued interest and settlement amounts always sum to the
// trade's exactly; each part is within a cent of its pro rata share except
// the largest, which takes the residual; and every figure has cents only.
func TestAllocateSumsExactly(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d", seed)
	thousand := udecimal.MustFromInt64(1000, 0)
	for n := range 5000 {
		// A trade of 1..50,000 lots of 1,000 with accrued and amount to the cent.
		lots := r.Int64N(50_000) + 1
		total := udecimal.MustFromInt64(lots, 0).Mul(thousand)
		accrued := udecimal.MustFromInt64(r.Int64N(5_000_000_00), 2)
		amount := udecimal.MustFromInt64(r.Int64N(100_000_000_00)+1, 2).Add(accrued)
		k := min(int(r.Int64N(12))+1, int(lots))
		// k parts of at least one lot each, summing to lots.
		cuts := map[int64]bool{}
		for len(cuts) < k-1 {
			cuts[r.Int64N(lots-1)+1] = true
		}
		var parts []AllocationPart
		prev := int64(0)
		for i := int64(1); i <= lots; i++ {
			if cuts[i] || i == lots {
				parts = append(parts, AllocationPart{AccountID: string(rune('a' + len(parts))),
					Quantity: udecimal.MustFromInt64(i-prev, 0).Mul(thousand)})
				prev = i
			}
		}
		got, err := Allocate(total, accrued, amount, parts)
		if err != nil {
			t.Fatalf("case %d: Allocate = %v", n, err)
		}
		sq, sa, sm := udecimal.Zero, udecimal.Zero, udecimal.Zero
		largest := 0
		for i, a := range got {
			sq, sa, sm = sq.Add(a.Quantity), sa.Add(a.AccruedInterest), sm.Add(a.SettlementAmount)
			if a.Quantity.GreaterThan(got[largest].Quantity) {
				largest = i
			}
			if !a.AccruedInterest.Trunc(2).Equal(a.AccruedInterest) || !a.SettlementAmount.Trunc(2).Equal(a.SettlementAmount) {
				t.Fatalf("case %d: part %d has more than cents: %s %s", n, i, a.AccruedInterest, a.SettlementAmount)
			}
		}
		if !sq.Equal(total) || !sa.Equal(accrued) || !sm.Equal(amount) {
			t.Fatalf("case %d: parts sum to %s / %s / %s, want %s / %s / %s", n, sq, sa, sm, total, accrued, amount)
		}
		cent := udecimal.MustFromInt64(1, 2)
		for i, a := range got {
			want, _ := amount.Mul(a.Quantity).Div(total)
			if off := a.SettlementAmount.Sub(want).Abs(); i != largest && off.GreaterThan(cent) {
				t.Fatalf("case %d: part %d amount %s is %s from its share %s", n, i, a.SettlementAmount, off, want)
			}
		}
	}
}

// TestAllocateResidual: the residual cent goes to the largest part, the
// first of equal ones.
func TestAllocateResidual(t *testing.T) {
	d := udecimal.MustParse
	got, err := Allocate(d("3000000"), d("100.00"), d("3000100.00"),
		[]AllocationPart{{"a", d("1000000")}, {"b", d("1000000")}, {"c", d("1000000")}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"33.34", "1000033.34"}, {"33.33", "1000033.33"}, {"33.33", "1000033.33"}}
	for i, a := range got {
		if a.AccruedInterest.String() != want[i][0] || a.SettlementAmount.String() != want[i][1] {
			t.Errorf("part %d = %s / %s, want %s / %s", i, a.AccruedInterest, a.SettlementAmount, want[i][0], want[i][1])
		}
	}
}

// TestAllocationDeadline: 23:00 on the trade's date in the market's time
// zone: in Brussels in winter (CET, 22:00 UTC) and summer (CEST, 21:00
// UTC), a trade at 23:30 UTC already the next day there; in New York a
// trade at 02:00 UTC is still the day before.
func TestAllocationDeadline(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		trade string
		loc   *time.Location
		want  string
	}{
		{"2027-01-15T09:30:00Z", CentralEurope, "2027-01-15T22:00:00Z"},
		{"2027-07-15T09:30:00Z", CentralEurope, "2027-07-15T21:00:00Z"},
		{"2027-01-15T23:30:00Z", CentralEurope, "2027-01-16T22:00:00Z"},
		{"2027-10-11T21:59:59Z", CentralEurope, "2027-10-11T21:00:00Z"},
		{"2027-01-16T02:00:00Z", ny, "2027-01-16T04:00:00Z"},
		{"2027-01-15T09:30:00Z", time.UTC, "2027-01-15T23:00:00Z"},
	} {
		at, _ := time.Parse(time.RFC3339, tt.trade)
		if got := AllocationDeadline(at, tt.loc).UTC().Format(time.RFC3339); got != tt.want {
			t.Errorf("AllocationDeadline(%s, %s) = %s, want %s", tt.trade, tt.loc, got, tt.want)
		}
	}
}

// TestTradeDate: a market's business date is the date in its time zone;
// an unknown or empty zone is UTC.
func TestTradeDate(t *testing.T) {
	at, _ := time.Parse(time.RFC3339, "2026-12-01T23:15:00Z") // 00:15 on 2 December in Berlin
	for _, tt := range []struct{ zone, want string }{
		{"Europe/Berlin", "2026-12-02"},
		{"UTC", "2026-12-01"},
		{"", "2026-12-01"},
		{"America/New_York", "2026-12-01"},
		{"Asia/Tokyo", "2026-12-02"},
		{"Not/AZone", "2026-12-01"},
	} {
		m := Market{Timezone: tt.zone}
		if got := m.TradeDate(at).String(); got != tt.want {
			t.Errorf("Market{Timezone: %q}.TradeDate(%s) = %s, want %s", tt.zone, at.Format(time.RFC3339), got, tt.want)
		}
	}
}
