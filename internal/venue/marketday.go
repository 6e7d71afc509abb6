package venue

import (
	"time"

	"github.com/bondvenue/bondvenue/internal/bondmath"
)

// A market's business day is in its own time zone (Timezone): the trade
// date of a trade, and so its default settlement date and accrued
// interest, the public tape's end-of-day deadlines and the allocations'
// deadline all read the date there, not in UTC.

// TradeDate is the market's business date at t: the date in its time
// zone.
func (m *Market) TradeDate(t time.Time) bondmath.Date {
	return bondmath.DateOf(t.In(m.Location()))
}
