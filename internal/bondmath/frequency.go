package bondmath

import (
	"strconv"
	"strings"
)

// Frequency is the number of coupon payments per year. The zero Frequency means "not given"
// and is invalid wherever a frequency is required.
type Frequency uint8

// The coupon frequencies the venue supports. Their values are the payments per year.
const (
	// Annual is one coupon a year ("Annual").
	Annual Frequency = 1
	// SemiAnnual is two coupons a year ("Semi-annual").
	SemiAnnual Frequency = 2
	// Quarterly is four coupons a year ("Quarterly").
	Quarterly Frequency = 4
	// Monthly is twelve coupons a year ("Monthly").
	Monthly Frequency = 12
)

var frequencyNames = map[string]Frequency{
	"annual": Annual, "annually": Annual, "yearly": Annual, "1": Annual, "12m": Annual, "1y": Annual,
	"semi-annual": SemiAnnual, "semiannual": SemiAnnual, "semi annual": SemiAnnual,
	"semi-annually": SemiAnnual, "semiannually": SemiAnnual, "half-yearly": SemiAnnual,
	"2": SemiAnnual, "6m": SemiAnnual,
	"quarterly": Quarterly, "4": Quarterly, "3m": Quarterly,
	"monthly": Monthly, "12": Monthly, "1m": Monthly,
}

// ParseFrequency parses a frequency name case-insensitively: "Annual", "Semi-annual",
// "Quarterly", "Monthly", the payments per year ("1", "2", "4", "12"), the period ("12M",
// "6M", "3M", "1M") and common spellings such as "semiannual". Errors wrap ErrInvalid.
func ParseFrequency(name string) (Frequency, error) {
	if len(name) <= 32 {
		if f, ok := frequencyNames[strings.ToLower(strings.TrimSpace(name))]; ok {
			return f, nil
		}
	}
	return 0, invalid("frequency", "unknown frequency %.32q (want Annual, Semi-annual, Quarterly or Monthly)", name)
}

// Valid reports whether f is one of Annual, SemiAnnual, Quarterly and Monthly.
func (f Frequency) Valid() bool {
	switch f {
	case Annual, SemiAnnual, Quarterly, Monthly:
		return true
	}
	return false
}

// PerYear returns the number of coupon payments per year (0 for an invalid Frequency).
func (f Frequency) PerYear() int {
	if !f.Valid() {
		return 0
	}
	return int(f)
}

// Months returns the length of a regular coupon period in months (0 for an invalid Frequency).
func (f Frequency) Months() int {
	if !f.Valid() {
		return 0
	}
	return 12 / int(f)
}

// String returns the canonical name: "Annual", "Semi-annual", "Quarterly" or "Monthly".
func (f Frequency) String() string {
	switch f {
	case Annual:
		return "Annual"
	case SemiAnnual:
		return "Semi-annual"
	case Quarterly:
		return "Quarterly"
	case Monthly:
		return "Monthly"
	case 0:
		return ""
	}
	return "Frequency(" + strconv.Itoa(int(f)) + ")"
}

// MarshalText encodes f by its canonical name.
func (f Frequency) MarshalText() ([]byte, error) {
	if f != 0 && !f.Valid() {
		return nil, invalid("frequency", "invalid frequency %d", int(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText accepts what ParseFrequency accepts; empty text gives the zero Frequency.
func (f *Frequency) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*f = 0
		return nil
	}
	v, err := ParseFrequency(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}
