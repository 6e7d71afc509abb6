package bondmath

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// Date is a civil (calendar) date in the proleptic Gregorian calendar, without time of day or
// time zone. The zero Date is "no date" (see IsZero); it is what optional dates such as
// Bond.FirstCoupon hold when absent. Dates are comparable with == and ordered with Compare,
// Before and After.
type Date struct {
	year  int32
	month uint8
	day   uint8
}

// NewDate returns the date year-month-day, or an error wrapping ErrInvalid if there is no such
// day or the year is outside 1–9999.
func NewDate(year int, month time.Month, day int) (Date, error) {
	if year < 1 || year > 9999 {
		return Date{}, invalid("date", "year %d outside 1-9999", year)
	}
	if month < time.January || month > time.December {
		return Date{}, invalid("date", "month %d outside 1-12", int(month))
	}
	if day < 1 || day > daysIn(year, month) {
		return Date{}, invalid("date", "%04d-%02d has no day %d", year, int(month), day)
	}
	return Date{year: int32(year), month: uint8(month), day: uint8(day)}, nil
}

// MustDate is NewDate for literals known to be valid (tables, tests, demo data); it panics on
// an invalid date.
func MustDate(year int, month time.Month, day int) Date {
	d, err := NewDate(year, month, day)
	if err != nil {
		panic("bondmath: " + err.Error())
	}
	return d
}

// DateOf returns the calendar date of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{year: int32(y), month: uint8(m), day: uint8(d)}
}

// maxDateInput bounds the length of date strings ParseDate looks at; the longest accepted
// form, RFC 3339 with nanoseconds and an offset, has 35 characters.
const maxDateInput = 40

// ParseDate parses "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS" or an RFC 3339 timestamp
// ("2026-11-20T14:48:00.000Z"). For the two forms with a time of day it returns the date as
// written, without converting to another time zone. The time part must be valid but is
// otherwise ignored. Errors are *FieldError values for the field "date" (wrapping ErrInvalid);
// callers that know the request field can report it under that name instead.
func ParseDate(s string) (Date, error) {
	if len(s) > maxDateInput {
		return Date{}, invalid("date", "too long")
	}
	switch {
	case len(s) == 10:
		return parseISODate(s)
	case len(s) == 19 && s[10] == ' ':
		d, err := parseISODate(s[:10])
		if err != nil {
			return Date{}, err
		}
		if _, err := time.Parse(time.TimeOnly, s[11:]); err != nil {
			return Date{}, invalid("date", "%q is not YYYY-MM-DD HH:MM:SS", s)
		}
		return d, nil
	case len(s) > 10 && s[10] == 'T':
		d, err := parseISODate(s[:10])
		if err != nil {
			return Date{}, err
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return Date{}, invalid("date", "%q is not an RFC 3339 timestamp", s)
		}
		return d, nil
	}
	return Date{}, invalid("date", "%q is not YYYY-MM-DD", s)
}

func parseISODate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, invalid("date", "%q is not YYYY-MM-DD", s)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return Date{}, invalid("date", "%q is not YYYY-MM-DD", s)
	}
	return NewDate(y, time.Month(m), d)
}

// digits parses a string of ASCII digits only (no sign, no spaces).
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}

// Year returns the year.
func (d Date) Year() int { return int(d.year) }

// Month returns the month.
func (d Date) Month() time.Month { return time.Month(d.month) }

// Day returns the day of the month.
func (d Date) Day() int { return int(d.day) }

// IsZero reports whether d is the zero Date, used for "no date".
func (d Date) IsZero() bool { return d == Date{} }

// String returns d as "YYYY-MM-DD" (the zero Date gives "0000-00-00").
func (d Date) String() string {
	return string(d.appendISO(make([]byte, 0, 10)))
}

func (d Date) appendISO(b []byte) []byte {
	b = appendInt(b, int(d.year), 4)
	b = append(b, '-')
	b = appendInt(b, int(d.month), 2)
	b = append(b, '-')
	return appendInt(b, int(d.day), 2)
}

func appendInt(b []byte, v, width int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// Time returns midnight UTC at the start of d.
func (d Date) Time() time.Time {
	return time.Date(int(d.year), time.Month(d.month), int(d.day), 0, 0, 0, 0, time.UTC)
}

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.year != e.year:
		return cmpInt(int(d.year), int(e.year))
	case d.month != e.month:
		return cmpInt(int(d.month), int(e.month))
	default:
		return cmpInt(int(d.day), int(e.day))
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Before reports whether d is strictly before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is strictly after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// AddDays returns d moved by n calendar days (n may be negative).
func (d Date) AddDays(n int) Date { return fromSerial(d.serial() + n) }

// AddMonths returns d moved by n calendar months, clamping the day to the length of the
// target month: 2024-01-31 plus one month is 2024-02-29. It never applies an end-of-month
// rule; see EndOfMonth for that.
func (d Date) AddMonths(n int) Date {
	m := int(d.year)*12 + int(d.month) - 1 + n
	y, mo := floorDiv(m, 12), m-floorDiv(m, 12)*12+1
	day := min(int(d.day), daysIn(y, time.Month(mo)))
	return Date{year: int32(y), month: uint8(mo), day: uint8(day)}
}

// DaysBetween returns the number of calendar days from start to end, negative when end is
// before start.
func DaysBetween(start, end Date) int { return end.serial() - start.serial() }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday {
	// Serial day 0 is 1970-01-01, a Thursday.
	return time.Weekday((d.serial()%7 + 7 + 4) % 7)
}

// IsLeap reports whether d falls in a leap year.
func (d Date) IsLeap() bool { return isLeap(int(d.year)) }

// DaysInMonth returns the number of days in d's month.
func (d Date) DaysInMonth() int { return daysIn(int(d.year), time.Month(d.month)) }

// IsEndOfMonth reports whether d is the last day of its month.
func (d Date) IsEndOfMonth() bool { return int(d.day) == d.DaysInMonth() }

// EndOfMonth returns the last day of d's month.
func (d Date) EndOfMonth() Date {
	d.day = uint8(d.DaysInMonth())
	return d
}

// MarshalText encodes d as "YYYY-MM-DD", and the zero Date as an empty string.
func (d Date) MarshalText() ([]byte, error) {
	if d.IsZero() {
		return []byte{}, nil
	}
	return d.appendISO(make([]byte, 0, 10)), nil
}

// UnmarshalText accepts what ParseDate accepts; empty text gives the zero Date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON encodes d as the JSON string "YYYY-MM-DD", and the zero Date as null.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 12)
	b = append(b, '"')
	b = d.appendISO(b)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts a JSON string in any form ParseDate accepts, or null for the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*d = Date{}
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return invalid("date", "want a JSON string, got %.20s", b)
	}
	v, err := ParseDate(string(b[1 : len(b)-1]))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// GoString makes test failure output readable.
func (d Date) GoString() string {
	return fmt.Sprintf("bondmath.MustDate(%d, %d, %d)", d.year, d.month, d.day)
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if isLeap(y) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// serial returns the number of days since 1970-01-01 (days-from-civil, after H. Hinnant).
func (d Date) serial() int {
	y, m, day := int(d.year), int(d.month), int(d.day)
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// fromSerial is the inverse of serial.
func fromSerial(z int) Date {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return Date{year: int32(y), month: uint8(m), day: uint8(day)}
}
