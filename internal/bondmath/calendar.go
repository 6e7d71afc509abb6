package bondmath

import (
	"strings"
	"time"
)

// Calendar is a settlement calendar: which days are business days. Get one from ParseCalendar
// or use TARGET2. The zero Calendar knows no holidays: only weekends are closed.
type Calendar struct {
	name string
}

// TARGET2 is the Eurosystem's TARGET2 (T2) settlement calendar, used for EUR settlement.
// Closed on Saturdays and Sundays, New Year's Day, Good Friday, Easter Monday, 1 May,
// Christmas Day and 26 December (from 2000; before that only 1 January and 25 December), and on
// the one-off closing days 31 December 1998, 1999 and 2001.
var TARGET2 = Calendar{name: "TARGET2"}

// ParseCalendar returns the calendar with the given name, case-insensitively: "TARGET2",
// also "TARGET" and "T2". Errors wrap ErrInvalid.
func ParseCalendar(name string) (Calendar, error) {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "TARGET2", "TARGET", "T2":
		return TARGET2, nil
	}
	if len(name) > 32 {
		name = name[:32]
	}
	return Calendar{}, invalid("calendar", "unknown calendar %q (want TARGET2)", name)
}

// String returns the calendar's canonical name.
func (c Calendar) String() string { return c.name }

// IsBusinessDay reports whether d is a business day: not a weekend day and not a holiday.
func (c Calendar) IsBusinessDay(d Date) bool {
	if w := d.Weekday(); w == time.Saturday || w == time.Sunday {
		return false
	}
	return !c.isHoliday(d)
}

func (c Calendar) isHoliday(d Date) bool {
	if c.name != "TARGET2" {
		return false
	}
	y, m, day := d.Year(), d.Month(), d.Day()
	switch {
	case m == time.January && day == 1, m == time.December && day == 25:
		return true
	case m == time.December && day == 31:
		return y == 1998 || y == 1999 || y == 2001
	case y < 2000:
		return false
	case m == time.May && day == 1, m == time.December && day == 26:
		return true
	case m == time.March || m == time.April:
		easter := Easter(y)
		return d == easter.AddDays(-2) || d == easter.AddDays(1)
	}
	return false
}

// Holidays returns the calendar's holidays in year in ascending order, including fixed-date
// holidays that fall on a weekend (which are not business days anyway). Weekends themselves
// are not listed.
func (c Calendar) Holidays(year int) []Date {
	if year < 1 || year > 9999 {
		return nil
	}
	var out []Date
	add := func(m time.Month, d int) {
		if date := MustDate(year, m, d); c.isHoliday(date) {
			out = append(out, date)
		}
	}
	add(time.January, 1)
	if year >= 1583 { // Easter by the Gregorian computus
		easter := Easter(year)
		for _, d := range []Date{easter.AddDays(-2), easter.AddDays(1)} {
			if c.isHoliday(d) {
				out = append(out, d)
			}
		}
	}
	add(time.May, 1)
	add(time.December, 25)
	add(time.December, 26)
	add(time.December, 31)
	return out
}

// Easter returns Easter Sunday of a year in the Gregorian calendar (the "anonymous Gregorian
// algorithm" of Meeus/Jones/Butcher), valid from 1583.
func Easter(year int) Date {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return Date{year: int32(year), month: uint8(month), day: uint8(day)}
}

// BusinessDayConvention says how to move a date that is not a business day.
type BusinessDayConvention uint8

// The supported business day conventions.
const (
	// Unadjusted leaves the date alone.
	Unadjusted BusinessDayConvention = iota
	// Following moves to the next business day.
	Following
	// ModifiedFollowing moves to the next business day unless that is in the next month, in
	// which case it moves to the previous business day.
	ModifiedFollowing
	// Preceding moves to the previous business day.
	Preceding
)

// Adjust moves d to a business day by the convention.
func (c Calendar) Adjust(d Date, conv BusinessDayConvention) Date {
	switch conv {
	case Following:
		return c.next(d, 1)
	case ModifiedFollowing:
		if f := c.next(d, 1); f.Month() == d.Month() {
			return f
		}
		return c.next(d, -1)
	case Preceding:
		return c.next(d, -1)
	}
	return d
}

// next returns d if it is a business day, else the nearest business day in direction step.
func (c Calendar) next(d Date, step int) Date {
	for !c.IsBusinessDay(d) {
		d = d.AddDays(step)
	}
	return d
}

// AddBusinessDays returns the date n business days after d (before d when n < 0), counting
// from d whether or not d itself is a business day: this is how a settlement date is derived
// from a trade date (T+2 = AddBusinessDays(trade, 2)). With n = 0 it returns d, moved to the
// following business day if needed.
func (c Calendar) AddBusinessDays(d Date, n int) Date {
	if n == 0 {
		return c.next(d, 1)
	}
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for ; n > 0; n-- {
		d = c.next(d.AddDays(step), step)
	}
	return d
}
