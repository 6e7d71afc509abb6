package bondmath

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want Date
	}{
		{"2026-11-20", MustDate(2026, 11, 20)},
		{"2024-02-29", MustDate(2024, 2, 29)},
		{"0001-01-01", MustDate(1, 1, 1)},
		{"9999-12-31", MustDate(9999, 12, 31)},
		{"2026-11-20 14:48:00", MustDate(2026, 11, 20)},
		{"2026-11-20T14:48:00.000Z", MustDate(2026, 11, 20)},
		{"2026-11-20T14:48:00Z", MustDate(2026, 11, 20)},
		{"2026-11-20T23:30:00-05:00", MustDate(2026, 11, 20)}, // the date as written
		{"2026-11-20T00:30:00.123456789+02:00", MustDate(2026, 11, 20)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDate(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ParseDate(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
	for _, in := range []string{
		"", "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-00", "2024-04-31", "0000-01-01",
		"24-01-01", "2024/01/01", "2024-1-1", "+024-01-01", "2024-01-01 25:00:00", "2024-01-01 12:00",
		"2024-01-01T12:00:00", "2024-01-01T12:00:00+2", "2024-01-01Z", "2024-01-01 12:00:00Z",
		" 2024-01-01", "2024-01-01x", "２０２４-01-01",
	} {
		t.Run("reject "+in, func(t *testing.T) {
			got, err := ParseDate(in)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseDate(%q) = %v, %v, want ErrInvalid", in, got, err)
			}
		})
	}
}

func TestDateArithmetic(t *testing.T) {
	tests := []struct {
		name string
		got  Date
		want Date
	}{
		{"month end clamps", day("2024-01-31").AddMonths(1), day("2024-02-29")},
		{"month end clamps, non-leap", day("2023-01-31").AddMonths(1), day("2023-02-28")},
		{"backward across year", day("2024-03-31").AddMonths(-4), day("2023-11-30")},
		{"twelve months", day("2024-02-29").AddMonths(12), day("2025-02-28")},
		{"negative large", day("2024-05-15").AddMonths(-1200), day("1924-05-15")},
		{"add days over leap day", day("2024-02-28").AddDays(2), day("2024-03-01")},
		{"subtract days", day("2024-01-01").AddDays(-1), day("2023-12-31")},
		{"end of month", day("2100-02-10").EndOfMonth(), day("2100-02-28")},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if got := DaysBetween(day("2003-11-01"), day("2004-05-01")); got != 182 {
		t.Errorf("DaysBetween = %d, want 182", got)
	}
	if !day("2024-02-29").IsLeap() || day("2100-03-01").IsLeap() || !day("2000-03-01").IsLeap() {
		t.Error("IsLeap wrong for 2024, 2100 or 2000")
	}
	if !day("2024-02-29").IsEndOfMonth() || day("2024-02-28").IsEndOfMonth() || !day("2023-02-28").IsEndOfMonth() {
		t.Error("IsEndOfMonth wrong around February")
	}
}

// TestDateAgainstTime checks the civil-date arithmetic against the standard library on random
// dates across the whole supported range.
func TestDateAgainstTime(t *testing.T) {
	r := newRand(t)
	for range 20000 {
		tm := time.Date(1+r.IntN(9998), time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC)
		d := DateOf(tm)
		if d.Time() != tm {
			t.Fatalf("DateOf(%v).Time() = %v", tm, d.Time())
		}
		if d.Weekday() != tm.Weekday() {
			t.Fatalf("%v.Weekday() = %v, want %v", d, d.Weekday(), tm.Weekday())
		}
		n := r.IntN(4000) - 2000
		if got, want := d.AddDays(n), DateOf(tm.AddDate(0, 0, n)); got != want {
			t.Fatalf("%v.AddDays(%d) = %v, want %v", d, n, got, want)
		}
		e := DateOf(tm.AddDate(0, 0, n))
		if got := DaysBetween(d, e); got != n {
			t.Fatalf("DaysBetween(%v, %v) = %d, want %d", d, e, got, n)
		}
		if got, want := d.Compare(e), cmpInt(0, n); got != want {
			t.Fatalf("%v.Compare(%v) = %d, want %d", d, e, got, want)
		}
		if d.String() != tm.Format(time.DateOnly) {
			t.Fatalf("String() = %q, want %q", d.String(), tm.Format(time.DateOnly))
		}
	}
}

func TestDateJSON(t *testing.T) {
	type doc struct {
		Settlement Date  `json:"settlement_date"`
		Maturity   Date  `json:"maturity"`
		Missing    Date  `json:"missing"`
		Ptr        *Date `json:"ptr,omitempty"`
	}
	in := doc{Settlement: day("2026-11-20"), Maturity: day("2035-02-15")}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"settlement_date":"2026-11-20","maturity":"2035-02-15","missing":null}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	var out doc
	if err := json.Unmarshal([]byte(`{"settlement_date":"2026-11-20 10:00:00","maturity":"2035-02-15T00:00:00Z","missing":null}`), &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(Date{})); diff != "" {
		t.Errorf("json.Unmarshal mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"maturity":"2035-02-30"}`, `{"maturity":20350215}`, `{"maturity":"x"}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("json.Unmarshal(%s) succeeded, want error", bad)
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-11-20", "2024-02-29", "2026-11-20 14:48:00", "2026-11-20T14:48:00.000Z",
		"2026-11-20T23:30:00-05:00", "9999-12-31", "0000-00-00", "2023-02-29", "2024-01-01T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseDate(%q) error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if d.IsZero() || d.Year() < 1 || d.Year() > 9999 || d.Day() > d.DaysInMonth() {
			t.Fatalf("ParseDate(%q) = %#v, not a valid date", s, d)
		}
		back, err := ParseDate(d.String())
		if err != nil || back != d {
			t.Fatalf("ParseDate(%q) = %v, %v; want %v", d.String(), back, err, d)
		}
		if s[:10] != d.String() {
			t.Fatalf("ParseDate(%q) = %v, want the written date %s", s, d, s[:10])
		}
	})
}
