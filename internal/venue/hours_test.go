package venue

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPhaseAt(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(y int, mo time.Month, d, h, mi, s int) time.Time { return time.Date(y, mo, d, h, mi, s, 0, berlin) }
	hours := &TradingHours{Open: "08:00", Close: "17:30", PreOpenMinutes: 15}
	noPre := &TradingHours{Open: "08:00", Close: "17:30"}
	closedUntil := func(pre, open time.Time) PhaseState {
		return PhaseState{Phase: PhaseClosed, Next: PhaseChange{Phase: PhasePreOpen, At: pre}, Opens: open}
	}
	tests := []struct {
		name  string
		hours *TradingHours
		now   time.Time
		want  PhaseState
	}{
		{"no hours: around the clock", nil, at(2026, 12, 12, 3, 0, 0), PhaseState{Phase: PhaseContinuous}},
		{"before the pre-open", hours, at(2026, 12, 8, 7, 44, 59), closedUntil(at(2026, 12, 8, 7, 45, 0), at(2026, 12, 8, 8, 0, 0))},
		{"pre-open starts", hours, at(2026, 12, 8, 7, 45, 0),
			PhaseState{Phase: PhasePreOpen, Next: PhaseChange{Phase: PhaseContinuous, At: at(2026, 12, 8, 8, 0, 0)}, Opens: at(2026, 12, 8, 8, 0, 0)}},
		{"pre-open's last second", hours, at(2026, 12, 8, 7, 59, 59),
			PhaseState{Phase: PhasePreOpen, Next: PhaseChange{Phase: PhaseContinuous, At: at(2026, 12, 8, 8, 0, 0)}, Opens: at(2026, 12, 8, 8, 0, 0)}},
		{"open", hours, at(2026, 12, 8, 8, 0, 0), PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: at(2026, 12, 8, 17, 30, 0)}}},
		{"close - 1 s", hours, at(2026, 12, 8, 17, 29, 59), PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: at(2026, 12, 8, 17, 30, 0)}}},
		{"close", hours, at(2026, 12, 8, 17, 30, 0), closedUntil(at(2026, 12, 9, 7, 45, 0), at(2026, 12, 9, 8, 0, 0))},
		{"no pre-open: before the open", noPre, at(2026, 12, 8, 7, 50, 0),
			PhaseState{Phase: PhaseClosed, Next: PhaseChange{Phase: PhaseContinuous, At: at(2026, 12, 8, 8, 0, 0)}, Opens: at(2026, 12, 8, 8, 0, 0)}},
		{"no pre-open: close", noPre, at(2026, 12, 8, 17, 30, 0),
			PhaseState{Phase: PhaseClosed, Next: PhaseChange{Phase: PhaseContinuous, At: at(2026, 12, 9, 8, 0, 0)}, Opens: at(2026, 12, 9, 8, 0, 0)}},
		{"friday's close: monday", hours, at(2026, 12, 11, 17, 30, 0), closedUntil(at(2026, 12, 14, 7, 45, 0), at(2026, 12, 14, 8, 0, 0))},
		{"saturday", hours, at(2026, 12, 12, 10, 0, 0), closedUntil(at(2026, 12, 14, 7, 45, 0), at(2026, 12, 14, 8, 0, 0))},
		{"sunday in the session's hours", hours, at(2026, 12, 13, 9, 0, 0), closedUntil(at(2026, 12, 14, 7, 45, 0), at(2026, 12, 14, 8, 0, 0))},
		{"christmas eve's close: 25-26 Dec and a weekend", hours, at(2026, 12, 24, 17, 30, 0), closedUntil(at(2026, 12, 28, 7, 45, 0), at(2026, 12, 28, 8, 0, 0))},
		{"christmas day", hours, at(2026, 12, 25, 10, 0, 0), closedUntil(at(2026, 12, 28, 7, 45, 0), at(2026, 12, 28, 8, 0, 0))},
		{"new year's day, a friday", hours, at(2027, 1, 1, 10, 0, 0), closedUntil(at(2027, 1, 4, 7, 45, 0), at(2027, 1, 4, 8, 0, 0))},
		{"1 May, a friday", hours, at(2026, 5, 1, 10, 0, 0), closedUntil(at(2026, 5, 4, 7, 45, 0), at(2026, 5, 4, 8, 0, 0))},
		{"good friday 2027", hours, at(2027, 3, 26, 10, 0, 0), closedUntil(at(2027, 3, 30, 7, 45, 0), at(2027, 3, 30, 8, 0, 0))},
		{"easter monday 2027", hours, at(2027, 3, 29, 10, 0, 0), closedUntil(at(2027, 3, 30, 7, 45, 0), at(2027, 3, 30, 8, 0, 0))},
		// Summer time starts on Easter Sunday 2027: the thursday's close is
		// 16:30 UTC, the tuesday's open 06:00 UTC.
		{"maundy thursday's close, across Easter and the change to summer time", hours, time.Date(2027, 3, 25, 16, 30, 0, 0, time.UTC),
			closedUntil(time.Date(2027, 3, 30, 5, 45, 0, 0, time.UTC), time.Date(2027, 3, 30, 6, 0, 0, 0, time.UTC))},
		{"open in summer time", hours, time.Date(2027, 3, 30, 6, 0, 0, 0, time.UTC),
			PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: time.Date(2027, 3, 30, 15, 30, 0, 0, time.UTC)}}},
		{"friday's close before winter time", hours, time.Date(2026, 10, 23, 15, 30, 0, 0, time.UTC),
			closedUntil(time.Date(2026, 10, 26, 6, 45, 0, 0, time.UTC), time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC))},
		{"07:30 UTC is 08:30 in winter time: open", hours, time.Date(2026, 10, 26, 7, 30, 0, 0, time.UTC),
			PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: time.Date(2026, 10, 26, 16, 30, 0, 0, time.UTC)}}},
		{"06:50 UTC is 07:50 in winter time: pre-open", hours, time.Date(2026, 10, 26, 6, 50, 0, 0, time.UTC),
			PhaseState{Phase: PhasePreOpen, Next: PhaseChange{Phase: PhaseContinuous, At: time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC)},
				Opens: time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC)}},
		{"an instant given in another zone", hours, time.Date(2026, 12, 8, 2, 0, 0, 0, time.FixedZone("EST", -5*3600)),
			PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: at(2026, 12, 8, 17, 30, 0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Market{Timezone: "Europe/Berlin", Calendar: "TARGET2", Hours: tt.hours}
			got := m.PhaseAt(tt.now)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("PhaseAt(%v) mismatch (-want +got):\n%s", tt.now, diff)
			}
		})
	}
}

func TestPhaseRefusal(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	m := Market{Timezone: "Europe/Berlin", Calendar: "TARGET2", Hours: &TradingHours{Open: "09:00", Close: "17:30", PreOpenMinutes: 30}}
	tests := []struct {
		now  time.Time
		want string // "" when open
	}{
		{time.Date(2026, 12, 8, 6, 0, 0, 0, berlin), "the market is closed; it opens at 2026-12-08T09:00:00+01:00"},
		{time.Date(2026, 12, 8, 8, 30, 0, 0, berlin), "the market is in pre-open; it opens at 2026-12-08T09:00:00+01:00"},
		{time.Date(2026, 12, 8, 9, 0, 0, 0, berlin), ""},
		{time.Date(2026, 12, 8, 17, 30, 0, 0, berlin), "the market is closed; it opens at 2026-12-09T09:00:00+01:00"},
	}
	for _, tt := range tests {
		err := m.PhaseAt(tt.now).Refusal(m.Location())
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrConflict) {
				t.Errorf("Refusal at %v = %v, want a conflict", tt.now, err)
			}
		}
		if got != tt.want {
			t.Errorf("Refusal at %v = %q, want %q", tt.now, got, tt.want)
		}
	}
}

func TestValidateMarketHours(t *testing.T) {
	tests := []struct {
		name  string
		hours TradingHours
		want  []FieldIssue
	}{
		{"valid", TradingHours{Open: "08:00", Close: "17:30", PreOpenMinutes: 15}, nil},
		{"one hour digit", TradingHours{Open: "8:00", Close: "17:30"},
			[]FieldIssue{{"trading_hours.open", "must be a local time HH:MM (00:00 to 23:59)"}}},
		{"24:00", TradingHours{Open: "08:00", Close: "24:00"},
			[]FieldIssue{{"trading_hours.close", "must be a local time HH:MM (00:00 to 23:59)"}}},
		{"minute 60", TradingHours{Open: "08:60", Close: "17:30"},
			[]FieldIssue{{"trading_hours.open", "must be a local time HH:MM (00:00 to 23:59)"}}},
		{"close before open", TradingHours{Open: "17:30", Close: "08:00"},
			[]FieldIssue{{"trading_hours.close", "must be after trading_hours.open, on the same day"}}},
		{"close at open", TradingHours{Open: "08:00", Close: "08:00"},
			[]FieldIssue{{"trading_hours.close", "must be after trading_hours.open, on the same day"}}},
		{"negative pre-open", TradingHours{Open: "08:00", Close: "17:30", PreOpenMinutes: -1},
			[]FieldIssue{{"trading_hours.pre_open_minutes", "must be between 0 and 240 minutes"}}},
		{"pre-open from the day before", TradingHours{Open: "01:00", Close: "17:30", PreOpenMinutes: 61},
			[]FieldIssue{{"trading_hours.pre_open_minutes", "must start the pre-open on the day it opens (at or after 00:00)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.hours
			m := Market{Name: "m", FacilityType: FacilityContinuous, Timezone: "Europe/Berlin", Calendar: "TARGET2",
				PriceCollarPercent: DefaultPriceCollarPercent, MaxPricePercent: DefaultMaxPricePercent, Hours: &h}
			var got []FieldIssue
			var e *Error
			if err := ValidateMarket(&m); errors.As(err, &e) {
				got = e.Details
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidateMarket issues mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
