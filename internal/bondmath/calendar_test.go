package bondmath

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Source: published Easter Sunday dates (Gregorian), including the earliest possible date,
// 22 March (1818, 2285), and the latest, 25 April (1943, 2038). The 2000-2006 dates are also
// two days after the Good Fridays in QuantLib's TARGET test list below.
var easterSundays = []string{
	"1818-03-22", "1943-04-25", "2000-04-23", "2001-04-15", "2002-03-31", "2003-04-20", "2004-04-11",
	"2005-03-27", "2006-04-16", "2019-04-21", "2024-03-31", "2025-04-20", "2026-04-05", "2038-04-25", "2285-03-22",
}

func TestEaster(t *testing.T) {
	for _, s := range easterSundays {
		want := day(s)
		if got := Easter(want.Year()); got != want {
			t.Errorf("Easter(%d) = %v, want %v", want.Year(), got, want)
		}
	}
}

// Source: QuantLib test-suite/calendars.cpp, testTARGET: every TARGET holiday falling on a
// weekday from 1999 to 2006, including the one-off closings of 31 December 1999 and 2001.
var quantlibTARGETHolidays = []string{
	"1999-01-01", "1999-12-31",
	"2000-04-21", "2000-04-24", "2000-05-01", "2000-12-25", "2000-12-26",
	"2001-01-01", "2001-04-13", "2001-04-16", "2001-05-01", "2001-12-25", "2001-12-26", "2001-12-31",
	"2002-01-01", "2002-03-29", "2002-04-01", "2002-05-01", "2002-12-25", "2002-12-26",
	"2003-01-01", "2003-04-18", "2003-04-21", "2003-05-01", "2003-12-25", "2003-12-26",
	"2004-01-01", "2004-04-09", "2004-04-12",
	"2005-03-25", "2005-03-28", "2005-12-26",
	"2006-04-14", "2006-04-17", "2006-05-01", "2006-12-25", "2006-12-26",
}

func TestTARGET2AgainstQuantLib(t *testing.T) {
	var got []string
	for d := day("1999-01-01"); !d.After(day("2006-12-31")); d = d.AddDays(1) {
		if w := d.Weekday(); w != time.Saturday && w != time.Sunday && !TARGET2.IsBusinessDay(d) {
			got = append(got, d.String())
		}
	}
	if diff := cmp.Diff(quantlibTARGETHolidays, got); diff != "" {
		t.Errorf("TARGET2 weekday holidays 1999-2006 mismatch (-want +got):\n%s", diff)
	}
}

// Source: ECB, TARGET2 (T2) closing days: New Year's Day, Good Friday, Easter Monday,
// 1 May (Labour Day), 25 December (Christmas Day) and 26 December; Easter Sunday 2024-03-31,
// 2025-04-20, 2026-04-05.
func TestTARGET2Holidays(t *testing.T) {
	tests := []struct {
		year int
		want []string
	}{
		{2024, []string{"2024-01-01", "2024-03-29", "2024-04-01", "2024-05-01", "2024-12-25", "2024-12-26"}},
		{2025, []string{"2025-01-01", "2025-04-18", "2025-04-21", "2025-05-01", "2025-12-25", "2025-12-26"}},
		{2026, []string{"2026-01-01", "2026-04-03", "2026-04-06", "2026-05-01", "2026-12-25", "2026-12-26"}},
		{2001, []string{"2001-01-01", "2001-04-13", "2001-04-16", "2001-05-01", "2001-12-25", "2001-12-26", "2001-12-31"}},
		{1999, []string{"1999-01-01", "1999-12-25", "1999-12-31"}},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range TARGET2.Holidays(tt.year) {
			got = append(got, d.String())
			if TARGET2.IsBusinessDay(d) {
				t.Errorf("IsBusinessDay(%v) = true for a listed holiday", d)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Holidays(%d) mismatch (-want +got):\n%s", tt.year, diff)
		}
	}
}

func TestParseCalendar(t *testing.T) {
	for _, name := range []string{"TARGET2", "target", "T2", " Target2 "} {
		if c, err := ParseCalendar(name); err != nil || c != TARGET2 {
			t.Errorf("ParseCalendar(%q) = %v, %v, want TARGET2", name, c, err)
		}
	}
	if _, err := ParseCalendar("NYSE"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseCalendar(NYSE) error = %v, want ErrInvalid", err)
	}
}

func TestAddBusinessDays(t *testing.T) {
	tests := []struct {
		name  string
		trade string
		n     int
		want  string
	}{
		{"plain T+2", "2026-11-18", 2, "2026-11-20"},
		{"over a weekend", "2026-11-19", 2, "2026-11-23"},
		{"over Easter", "2024-03-28", 2, "2024-04-03"},
		{"over Christmas", "2025-12-24", 2, "2025-12-30"},
		{"trade date a holiday", "2026-01-01", 2, "2026-01-05"},
		{"trade date a Saturday", "2026-11-21", 1, "2026-11-23"},
		{"zero lag on a holiday", "2025-05-01", 0, "2025-05-02"},
		{"backward", "2024-04-02", -2, "2024-03-27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TARGET2.AddBusinessDays(day(tt.trade), tt.n); got != day(tt.want) {
				t.Errorf("AddBusinessDays(%s, %d) = %v, want %s", tt.trade, tt.n, got, tt.want)
			}
		})
	}
}

func TestAdjust(t *testing.T) {
	tests := []struct {
		d    string
		conv BusinessDayConvention
		want string
	}{
		{"2024-03-29", Following, "2024-04-02"},
		{"2024-03-29", Preceding, "2024-03-28"},
		{"2024-03-29", ModifiedFollowing, "2024-03-28"}, // following would leave March
		{"2026-05-30", ModifiedFollowing, "2026-05-29"},
		{"2026-05-16", ModifiedFollowing, "2026-05-18"},
		{"2024-03-29", Unadjusted, "2024-03-29"},
		{"2026-11-20", Following, "2026-11-20"},
	}
	for _, tt := range tests {
		if got := TARGET2.Adjust(day(tt.d), tt.conv); got != day(tt.want) {
			t.Errorf("Adjust(%s, %d) = %v, want %s", tt.d, tt.conv, got, tt.want)
		}
	}
}

// Property: a settlement date derived with AddBusinessDays is a business day, with exactly n
// business days after the trade date up to and including it.
func TestAddBusinessDaysProperty(t *testing.T) {
	r := newRand(t)
	for range 20000 {
		trade := day("1999-01-01").AddDays(r.IntN(365 * 60))
		n := r.IntN(11)
		settle := TARGET2.AddBusinessDays(trade, n)
		if !TARGET2.IsBusinessDay(settle) {
			t.Fatalf("AddBusinessDays(%v, %d) = %v, not a business day", trade, n, settle)
		}
		count := 0
		for d := trade.AddDays(1); !d.After(settle); d = d.AddDays(1) {
			if TARGET2.IsBusinessDay(d) {
				count++
			}
		}
		if n > 0 && count != n {
			t.Fatalf("AddBusinessDays(%v, %d) = %v, which is %d business days later", trade, n, settle, count)
		}
	}
}
