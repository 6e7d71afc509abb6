package venue

import (
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// A market's business day is in its own time zone (Timezone): the trade
// date of a trade, and so its default settlement date and accrued
// interest, the public tape's end-of-day deadlines and the allocations'
// deadline all read the date there, not in UTC.

// zones keeps the time zones loaded by name: loading one reads the zone
// database.
var zones sync.Map // string → *time.Location

// ZoneOf is the time zone named name, or UTC for an empty or unknown
// name (a market's is checked when it is set: MarketRules).
func ZoneOf(name string) *time.Location {
	if name == "" || name == "UTC" {
		return time.UTC
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	zones.Store(name, l)
	return l
}

// Location is the market's time zone.
func (m *Market) Location() *time.Location { return ZoneOf(m.Timezone) }

// TradeDate is the market's business date at t: the date in its time
// zone.
func (m *Market) TradeDate(t time.Time) bondmath.Date {
	return bondmath.DateOf(t.In(m.Location()))
}
