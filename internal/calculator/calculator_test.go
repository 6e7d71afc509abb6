package calculator_test

import (
	"errors"
	"testing"
	"time"

	"github.com/quagmt/udecimal"

	"github.com/bondvenue/bondvenue/internal/bondmath"
	"github.com/bondvenue/bondvenue/internal/calculator"
	"github.com/bondvenue/bondvenue/internal/venue"
)

func TestDayCountRounds(t *testing.T) {
	two := 2
	in := calculator.DayCountInput{DayCount: bondmath.Actual360, Start: bondmath.MustDate(2026, time.January, 1),
		End: bondmath.MustDate(2026, time.February, 1)}
	got, err := calculator.DayCount(in)
	want, _ := udecimal.MustParse("31").Div(udecimal.MustParse("360"))
	if err != nil || got.Days != 31 || !got.YearFraction.Equal(want) {
		t.Fatalf("DayCount(ACT/360, 31 days) = %+v, %v, want 31 days, 31/360", got, err)
	}
	in.Decimals = &two
	if got, err = calculator.DayCount(in); err != nil || got.YearFraction.String() != "0.09" {
		t.Errorf("DayCount(ACT/360, 31 days, 2 decimals) = %v, %v, want 0.09", got.YearFraction, err)
	}
}

func TestYieldRefusesNonPositivePrice(t *testing.T) {
	_, err := calculator.Yield(calculator.BondInput{}, udecimal.Zero)
	var ve *venue.Error
	if !errors.As(err, &ve) || ve.Kind != venue.KindInvalid || len(ve.Details) != 1 || ve.Details[0].Field != "clean_price" {
		t.Errorf("Yield(price 0) = %v, want invalid clean_price", err)
	}
}

func TestSettlementDate(t *testing.T) {
	friday := bondmath.MustDate(2026, time.April, 2) // the day before Good Friday
	tests := []struct {
		name     string
		calendar string
		lag      int
		want     string
		fails    bool
		kind     venue.Kind
	}{
		{"over Easter", "target2", 2, "2026-04-08", false, 0},
		{"the same day", "TARGET2", 0, "2026-04-02", false, 0},
		{"an unknown calendar", "moon", 2, "", true, venue.KindNotFound},
		{"a lag too long", "TARGET2", 31, "", true, venue.KindInvalid},
		{"a negative lag", "TARGET2", -1, "", true, venue.KindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, d, err := calculator.SettlementDate(tt.calendar, friday, tt.lag)
			if (err != nil) != tt.fails || (tt.fails && venue.KindOf(err) != tt.kind) || (!tt.fails && d.String() != tt.want) {
				t.Errorf("SettlementDate(%s, %s, %d) = %s, %v, want %s (fails %v, kind %v)", tt.calendar, friday, tt.lag, d, err, tt.want, tt.fails, tt.kind)
			}
		})
	}
}

func TestHolidays(t *testing.T) {
	cal, hs, err := calculator.Holidays("TARGET2", 2026)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hs {
		got = append(got, h.Date.String()+" "+h.Name)
	}
	want := []string{"2026-01-01 New Year's Day", "2026-04-03 Good Friday", "2026-04-06 Easter Monday",
		"2026-05-01 Labour Day", "2026-12-25 Christmas Day"} // 26 December 2026 is a Saturday
	if cal != "TARGET2" || len(got) != len(want) {
		t.Fatalf("Holidays(TARGET2, 2026) = %s %v, want %v", cal, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("holiday %d = %s, want %s", i, got[i], want[i])
		}
	}
	if _, _, err := calculator.Holidays("TARGET2", 1998); venue.KindOf(err) != venue.KindInvalid {
		t.Errorf("Holidays(1998) = %v, want invalid", err)
	}
}
