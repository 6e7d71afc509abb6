package bondmath

import (
	"strconv"
	"strings"

	"github.com/quagmt/udecimal"
)

// DayCount is a day count convention: how the days between two dates are counted and turned
// into a fraction of a year. The zero DayCount means "not given" and is invalid.
type DayCount uint8

// The supported conventions, named as in the 2006 ISDA Definitions section 4.16 and the ICMA
// Primary Market Handbook. String gives the canonical name shown in each comment.
const (
	// Thirty360 is "30/360", the 2006 ISDA "Bond Basis" (4.16(f)): D1=31 becomes 30; D2=31
	// becomes 30 when D1 is (now) 30.
	Thirty360 DayCount = iota + 1
	// Thirty360US is "30U/360", the US (SIA) rule with the end-of-February adjustment: if D1
	// is the last day of February, D1=30, and if D2 is too, D2=30; then the Bond Basis rules.
	Thirty360US
	// ThirtyE360 is "30E/360", the 2006 ISDA "Eurobond Basis" (4.16(g)), also "30/360 ICMA":
	// any 31st becomes 30.
	ThirtyE360
	// ThirtyE360ISDA is "30E/360 ISDA" (4.16(h), "German"): a 31st or the last day of February
	// becomes 30, except that D2 is left alone when it is the last day of February and the
	// maturity (termination) date.
	ThirtyE360ISDA
	// Actual360 is "ACT/360": actual days / 360.
	Actual360
	// Actual365Fixed is "ACT/365F": actual days / 365.
	Actual365Fixed
	// ActualActualISDA is "ACT/ACT ISDA" (4.16(b)): days in a leap year / 366 plus days in
	// other years / 365.
	ActualActualISDA
	// ActualActualICMA is "ACT/ACT ICMA" (ICMA Rule 251, 4.16(c)): days / (frequency × days in
	// the reference coupon period), summed over quasi-coupon periods for irregular periods.
	ActualActualICMA
)

var dayCountNames = [...]string{
	Thirty360:        "30/360",
	Thirty360US:      "30U/360",
	ThirtyE360:       "30E/360",
	ThirtyE360ISDA:   "30E/360 ISDA",
	Actual360:        "ACT/360",
	Actual365Fixed:   "ACT/365F",
	ActualActualISDA: "ACT/ACT ISDA",
	ActualActualICMA: "ACT/ACT ICMA",
}

// dayCountAliases maps normalised names (see normalizeDayCount) to conventions. The 2006 ISDA
// names come first on each line, then common market spellings.
var dayCountAliases = map[string]DayCount{
	"30/360": Thirty360, "360/360": Thirty360, "BOND BASIS": Thirty360, "30/360 BOND BASIS": Thirty360,
	"30/360 ISDA": Thirty360, "30A/360": Thirty360, "30/360 BOND": Thirty360,

	"30U/360": Thirty360US, "30/360 US": Thirty360US, "30US/360": Thirty360US, "30/360 SIA": Thirty360US,
	"30U/360 EOM": Thirty360US, "US 30/360": Thirty360US,

	"30E/360": ThirtyE360, "EUROBOND BASIS": ThirtyE360, "30/360 EUROBOND BASIS": ThirtyE360,
	"30/360 ICMA": ThirtyE360, "30/360 ISMA": ThirtyE360, "30E/360 ICMA": ThirtyE360, "30S/360": ThirtyE360,
	"SPECIAL GERMAN": ThirtyE360, "30/360 EUROPEAN": ThirtyE360, "EUROPEAN 30/360": ThirtyE360,

	"30E/360 ISDA": ThirtyE360ISDA, "30/360 GERMAN": ThirtyE360ISDA, "GERMAN": ThirtyE360ISDA,

	"ACT/360": Actual360, "A/360": Actual360, "FRENCH": Actual360,

	"ACT/365F": Actual365Fixed, "ACT/365 FIXED": Actual365Fixed, "A/365F": Actual365Fixed,
	"A/365 FIXED": Actual365Fixed, "ACT/FIXED 365": Actual365Fixed, "ENGLISH": Actual365Fixed,

	"ACT/ACT ISDA": ActualActualISDA, "ACT/ACT": ActualActualISDA, "A/A": ActualActualISDA,
	"A/A ISDA": ActualActualISDA, "ACT/ACT HISTORICAL": ActualActualISDA,

	"ACT/ACT ICMA": ActualActualICMA, "ACT/ACT ISMA": ActualActualICMA, "ISMA-99": ActualActualICMA,
	"ISMA 99": ActualActualICMA, "ACT/ACT BOND": ActualActualICMA, "A/A ICMA": ActualActualICMA,
	"A/A ISMA": ActualActualICMA,
}

// ParseDayCount parses a day count name case-insensitively. It accepts the canonical names
// (see DayCount's constants), the 2006 ISDA names and their usual spellings: "Actual" for
// "ACT", parentheses ("Actual/Actual (ICMA)"), "Bond Basis", "Eurobond Basis", "ISMA-99",
// "30/360 US". "ACT/365" and "A/365" are rejected as ambiguous: the 2006 ISDA Definitions
// make them ACT/ACT ISDA while many markets mean ACT/365F. Errors wrap ErrInvalid.
func ParseDayCount(name string) (DayCount, error) {
	if len(name) > 40 {
		return 0, invalid("day_count", "unknown day count %.40q", name)
	}
	n := normalizeDayCount(name)
	if dc, ok := dayCountAliases[n]; ok {
		return dc, nil
	}
	if n == "ACT/365" || n == "A/365" {
		return 0, invalid("day_count", "%q is ambiguous: use ACT/365F or ACT/ACT ISDA", name)
	}
	return 0, invalid("day_count", "unknown day count %q (want one of 30/360, 30U/360, 30E/360, "+
		"30E/360 ISDA, ACT/360, ACT/365F, ACT/ACT ISDA, ACT/ACT ICMA)", name)
}

func normalizeDayCount(s string) string {
	s = strings.ToUpper(s)
	s = strings.NewReplacer("(", " ", ")", " ", "_", " ", "\t", " ").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(strings.ReplaceAll(s, " /", "/"), "/ ", "/")
	return strings.ReplaceAll(s, "ACTUAL", "ACT")
}

// Valid reports whether dc is one of the supported conventions.
func (dc DayCount) Valid() bool { return dc >= Thirty360 && dc <= ActualActualICMA }

// String returns the canonical name, for example "ACT/ACT ICMA".
func (dc DayCount) String() string {
	if dc.Valid() {
		return dayCountNames[dc]
	}
	if dc == 0 {
		return ""
	}
	return "DayCount(" + strconv.Itoa(int(dc)) + ")"
}

// MarshalText encodes dc by its canonical name.
func (dc DayCount) MarshalText() ([]byte, error) {
	if dc != 0 && !dc.Valid() {
		return nil, invalid("day_count", "invalid day count %d", int(dc))
	}
	return []byte(dc.String()), nil
}

// UnmarshalText accepts what ParseDayCount accepts; empty text gives the zero DayCount.
func (dc *DayCount) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*dc = 0
		return nil
	}
	v, err := ParseDayCount(string(b))
	if err != nil {
		return err
	}
	*dc = v
	return nil
}

// YearFractionOpts carries the extra inputs some conventions need. The zero value is fine for
// all conventions except ACT/ACT ICMA, which needs RefStart and RefEnd, or Frequency.
type YearFractionOpts struct {
	// Maturity is the termination date for 30E/360 ISDA: an end date on the last day of
	// February is not moved to the 30th when it is the maturity. Ignored by the others.
	Maturity Date
	// RefStart and RefEnd delimit the ACT/ACT ICMA reference period: the regular coupon period
	// that holds the accrual period, or against which an irregular one is measured. Quasi
	// coupon dates are rolled back from RefStart and forward from RefEnd as needed.
	RefStart, RefEnd Date
	// Frequency is the ACT/ACT ICMA coupon frequency. With a reference period and no
	// Frequency, the frequency is inferred from the reference period's length. Without a
	// reference period, the start date is taken as the start of a regular coupon period and
	// quasi-coupon dates are rolled forward from it.
	Frequency Frequency
	// EndOfMonth rolls ACT/ACT ICMA quasi-coupon dates to month ends when the date they are
	// rolled from is a month end.
	EndOfMonth bool
}

// Days returns the day count of the period from start to end: 30/360-style days for the
// 30/360 family, actual days otherwise. end before start is an error wrapping ErrInvalid.
func Days(dc DayCount, start, end Date, opts YearFractionOpts) (int, error) {
	if err := checkPeriod(dc, start, end); err != nil {
		return 0, err
	}
	return days(dc, start, end, opts.Maturity), nil
}

// YearFraction returns the fraction of a year from start to end under dc, at full precision
// (up to 19 fractional digits, truncated beyond). end before start is an error wrapping
// ErrInvalid, as is ACT/ACT ICMA without a reference period or frequency.
func YearFraction(dc DayCount, start, end Date, opts YearFractionOpts) (udecimal.Decimal, error) {
	if err := checkPeriod(dc, start, end); err != nil {
		return decZero, err
	}
	if dc != ActualActualICMA {
		return yearFraction(dc, start, end, opts.Maturity), nil
	}
	r, perYear, err := icmaRoller(start, opts)
	if err != nil {
		return decZero, err
	}
	return icmaFraction(start, end, r, perYear), nil
}

func checkPeriod(dc DayCount, start, end Date) error {
	switch {
	case !dc.Valid():
		return invalid("day_count", "missing or unknown day count")
	case start.IsZero():
		return invalid("start", "required")
	case end.IsZero():
		return invalid("end", "required")
	case end.Before(start):
		return invalid("end", "must not be before start %s", start)
	}
	return nil
}

// icmaRoller builds the quasi-coupon date generator for an ACT/ACT ICMA year fraction.
func icmaRoller(start Date, opts YearFractionOpts) (roller, int, error) {
	hasRef := !opts.RefStart.IsZero() || !opts.RefEnd.IsZero()
	if opts.Frequency != 0 && !opts.Frequency.Valid() {
		return roller{}, 0, invalid("frequency", "unknown frequency")
	}
	if !hasRef {
		if opts.Frequency == 0 {
			return roller{}, 0, invalid("frequency", "ACT/ACT ICMA needs ref_start and ref_end, or frequency")
		}
		m := opts.Frequency.Months()
		return roller{a0: start, a1: start, o0: 0, o1: 1, months: m, eom: opts.EndOfMonth}, opts.Frequency.PerYear(), nil
	}
	switch {
	case opts.RefStart.IsZero():
		return roller{}, 0, invalid("ref_start", "required with ref_end")
	case opts.RefEnd.IsZero():
		return roller{}, 0, invalid("ref_end", "required with ref_start")
	case !opts.RefStart.Before(opts.RefEnd):
		return roller{}, 0, invalid("ref_end", "must be after ref_start")
	}
	f := opts.Frequency
	if f == 0 {
		// As QuantLib does: the reference period's length rounded to whole months.
		d := DaysBetween(opts.RefStart, opts.RefEnd)
		switch (12*d + 182) / 365 {
		case 12:
			f = Annual
		case 6:
			f = SemiAnnual
		case 3:
			f = Quarterly
		case 1:
			f = Monthly
		default:
			return roller{}, 0, invalid("ref_end", "reference period of %d days is not a 1, 3, 6 or 12 month coupon period; give frequency", d)
		}
	}
	return roller{a0: opts.RefStart, a1: opts.RefEnd, months: f.Months(), eom: opts.EndOfMonth}, f.PerYear(), nil
}

// days counts the days of a period under dc, assuming start <= end.
func days(dc DayCount, start, end, maturity Date) int {
	switch dc {
	case Thirty360, Thirty360US, ThirtyE360, ThirtyE360ISDA:
		return days360(dc, start, end, maturity)
	}
	return DaysBetween(start, end)
}

func isLastOfFebruary(d Date) bool { return d.Month() == 2 && d.IsEndOfMonth() }

func days360(dc DayCount, start, end, maturity Date) int {
	d1, d2 := start.Day(), end.Day()
	switch dc {
	case Thirty360:
		if d1 == 31 {
			d1 = 30
		}
		if d2 == 31 && d1 == 30 {
			d2 = 30
		}
	case Thirty360US:
		if isLastOfFebruary(start) {
			if isLastOfFebruary(end) {
				d2 = 30
			}
			d1 = 30
		}
		if d2 == 31 && d1 >= 30 {
			d2 = 30
		}
		if d1 == 31 {
			d1 = 30
		}
	case ThirtyE360:
		if d1 == 31 {
			d1 = 30
		}
		if d2 == 31 {
			d2 = 30
		}
	case ThirtyE360ISDA:
		if d1 == 31 || isLastOfFebruary(start) {
			d1 = 30
		}
		if d2 == 31 || (isLastOfFebruary(end) && end != maturity) {
			d2 = 30
		}
	}
	return 360*(end.Year()-start.Year()) + 30*(int(end.Month())-int(start.Month())) + d2 - d1
}

// yearFraction is YearFraction for every convention but ACT/ACT ICMA, assuming start <= end.
func yearFraction(dc DayCount, start, end, maturity Date) udecimal.Decimal {
	switch dc {
	case Actual360:
		return ratio(DaysBetween(start, end), 360)
	case Actual365Fixed:
		return ratio(DaysBetween(start, end), 365)
	case ActualActualISDA:
		y1, y2 := start.Year(), end.Year()
		if y1 == y2 {
			return ratio(DaysBetween(start, end), daysInYear(y1))
		}
		first := ratio(DaysBetween(start, Date{year: int32(y1 + 1), month: 1, day: 1}), daysInYear(y1))
		last := ratio(DaysBetween(Date{year: int32(y2), month: 1, day: 1}, end), daysInYear(y2))
		return first.Add(last).Add(decInt(y2 - y1 - 1))
	}
	return ratio(days360(dc, start, end, maturity), 360)
}

func daysInYear(y int) int {
	if isLeap(y) {
		return 366
	}
	return 365
}

// roller generates quasi-coupon dates q(k) for ACT/ACT ICMA: q(0) and q(1) delimit a reference
// period, and the others are whole coupon periods before and after it. Dates at k <= 0 are
// rolled from anchor a0, dates at k >= 1 from anchor a1, each always from the anchor itself so
// that month-end clamping never accumulates.
type roller struct {
	a0, a1 Date
	o0, o1 int // periods from a0 to q(0) and from a1 to q(1)
	months int
	eom    bool
}

func (r roller) at(k int) Date {
	if k <= 0 {
		return roll(r.a0, (r.o0+k)*r.months, r.eom)
	}
	return roll(r.a1, (r.o1+k-1)*r.months, r.eom)
}

// roll moves a by n months, to the month end if eom is set and a is a month end.
func roll(a Date, n int, eom bool) Date {
	d := a.AddMonths(n)
	if eom && a.IsEndOfMonth() {
		d = d.EndOfMonth()
	}
	return d
}

// index returns the largest k with q(k) <= d.
func (r roller) index(d Date) int {
	q0 := r.at(0)
	months := (d.Year()-q0.Year())*12 + int(d.Month()) - int(q0.Month())
	k := floorDiv(months, r.months)
	for r.at(k).After(d) {
		k--
	}
	for !r.at(k + 1).After(d) {
		k++
	}
	return k
}

// icmaFraction returns the ACT/ACT ICMA year fraction from start to end (start <= end): the
// sum over the quasi-coupon periods it touches of days in the period / (perYear × the
// period's days), as in ICMA Rule 251.1 (iii). Whole quasi periods count 1/perYear each, so
// the cost does not grow with the length of the interval.
func icmaFraction(start, end Date, r roller, perYear int) udecimal.Decimal {
	if !start.Before(end) {
		return decZero
	}
	k0, k1 := r.index(start), r.index(end)
	part := func(k int, from, to Date) udecimal.Decimal {
		return ratio(DaysBetween(from, to), perYear*DaysBetween(r.at(k), r.at(k+1)))
	}
	if k0 == k1 {
		return part(k0, start, end)
	}
	sum := part(k0, start, r.at(k0+1))
	if whole := k1 - k0 - 1; whole > 0 {
		sum = sum.Add(ratio(whole, perYear))
	}
	if q := r.at(k1); q.Before(end) {
		sum = sum.Add(part(k1, q, end))
	}
	return sum
}
