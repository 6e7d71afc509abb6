package venue

import (
	"fmt"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// This file holds a market's trading hours and the trading phase they give
// at an instant: pure, the instant is the caller's.

// Phase is a market's (or, halted, an instrument's) trading phase.
type Phase string

// Trading phases. A market without trading hours is continuous around
// the clock; one with hours is in pre-open for its pre-open minutes before
// it opens, continuous from open to close, closed otherwise (and all day
// on a day its calendar does not count as a business day). An instrument
// halted on a market that is open is halted.
const (
	PhasePreOpen    Phase = "pre-open"
	PhaseContinuous Phase = "continuous"
	PhaseClosed     Phase = "closed"
	PhaseHalted     Phase = "halted"
)

// TradingHours are a market's daily session: Open and Close are local
// times "HH:MM" in the market's time zone, Close after Open on the same
// day; the pre-open runs PreOpenMinutes before Open.
type TradingHours struct {
	Open, Close    string
	PreOpenMinutes int
}

// MaxPreOpenMinutes bounds a market's pre-open.
const MaxPreOpenMinutes = 240

// PhaseChange is a market's next change of phase: at At it enters Phase.
type PhaseChange struct {
	Phase Phase
	At    time.Time
}

// parseClock reads "HH:MM" as minutes after midnight.
func parseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[3]) || !isDigit(s[4]) {
		return 0, false
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// checkHours records the issues of a market's trading hours.
func checkHours(v *Validator, h *TradingHours) {
	open, okOpen := parseClock(h.Open)
	closeAt, okClose := parseClock(h.Close)
	v.Check(okOpen, "trading_hours.open", "must be a local time HH:MM (00:00 to 23:59)")
	v.Check(okClose, "trading_hours.close", "must be a local time HH:MM (00:00 to 23:59)")
	if okOpen && okClose {
		v.Check(closeAt > open, "trading_hours.close", "must be after trading_hours.open, on the same day")
	}
	v.Check(h.PreOpenMinutes >= 0 && h.PreOpenMinutes <= MaxPreOpenMinutes, "trading_hours.pre_open_minutes",
		fmt.Sprintf("must be between 0 and %d minutes", MaxPreOpenMinutes))
	if okOpen && h.PreOpenMinutes >= 0 {
		v.Check(h.PreOpenMinutes <= open, "trading_hours.pre_open_minutes", "must start the pre-open on the day it opens (at or after 00:00)")
	}
}

// locations caches the time zones markets name: loading one parses the
// zone database.
var locations sync.Map // name → *time.Location

// Location is the market's time zone (UTC when it names none the zone
// database knows; ValidateMarket refuses those).
func (m *Market) Location() *time.Location {
	if l, ok := locations.Load(m.Timezone); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(m.Timezone)
	if err != nil {
		return time.UTC
	}
	locations.Store(m.Timezone, l)
	return l
}

// PhaseState is a market's phase at an instant: the phase, its next
// change (At zero when it never changes: no trading hours) and, when it is
// not open, when it next opens.
type PhaseState struct {
	Phase Phase
	Next  PhaseChange
	Opens time.Time
}

// PhaseAt is the market's phase at now; a market without trading hours is
// continuous and never changes.
func (m *Market) PhaseAt(now time.Time) PhaseState {
	if m.Hours == nil {
		return PhaseState{Phase: PhaseContinuous}
	}
	cal, err := bondmath.ParseCalendar(m.Calendar)
	if err != nil {
		cal = bondmath.TARGET2
	}
	return m.Hours.PhaseAt(now, m.Location(), cal)
}

// session is one business day's pre-open, open and close.
type session struct{ preOpen, open, close time.Time }

func (h *TradingHours) session(d bondmath.Date, loc *time.Location) session {
	open, _ := parseClock(h.Open)
	closeAt, _ := parseClock(h.Close)
	at := func(min int) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), 0, min, 0, 0, loc) }
	return session{preOpen: at(open - h.PreOpenMinutes), open: at(open), close: at(closeAt)}
}

// closedUntil is the state of a market closed until session s.
func (s session) closedUntil(pre bool) PhaseState {
	if pre {
		return PhaseState{Phase: PhaseClosed, Next: PhaseChange{Phase: PhasePreOpen, At: s.preOpen}, Opens: s.open}
	}
	return PhaseState{Phase: PhaseClosed, Next: PhaseChange{Phase: PhaseContinuous, At: s.open}, Opens: s.open}
}

// maxClosedDays bounds the search for the next business day: no calendar
// closes for this long.
const maxClosedDays = 31

// PhaseAt is the phase at now of a market with hours h in time zone loc,
// open on the business days of cal. A local time that a daylight saving
// change skips or repeats is read as time.Date reads it.
func (h *TradingHours) PhaseAt(now time.Time, loc *time.Location, cal bondmath.Calendar) PhaseState {
	pre := h.PreOpenMinutes > 0
	day := bondmath.DateOf(now.In(loc))
	if cal.IsBusinessDay(day) {
		s := h.session(day, loc)
		switch {
		case now.Before(s.preOpen) || (!pre && now.Before(s.open)):
			return s.closedUntil(pre)
		case now.Before(s.open):
			return PhaseState{Phase: PhasePreOpen, Next: PhaseChange{Phase: PhaseContinuous, At: s.open}, Opens: s.open}
		case now.Before(s.close):
			return PhaseState{Phase: PhaseContinuous, Next: PhaseChange{Phase: PhaseClosed, At: s.close}}
		}
	}
	for i := 1; i <= maxClosedDays; i++ {
		if d := day.AddDays(i); cal.IsBusinessDay(d) {
			return h.session(d, loc).closedUntil(pre)
		}
	}
	return PhaseState{Phase: PhaseClosed}
}

// Refusal is the refusal of new trading interest in phase state s, a
// conflict that names the phase and when the market opens; nil when the
// market is open.
func (s PhaseState) Refusal(loc *time.Location) error {
	var what string
	switch s.Phase {
	case PhaseContinuous, PhaseHalted:
		return nil
	case PhasePreOpen:
		what = "the market is in pre-open"
	default:
		what = "the market is closed"
	}
	if s.Opens.IsZero() {
		return Conflict("%s", what)
	}
	return Conflict("%s; it opens at %s", what, s.Opens.In(loc).Format(time.RFC3339))
}
