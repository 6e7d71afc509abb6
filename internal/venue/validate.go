package venue

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/quagmt/udecimal"
)

// ValidISIN reports whether s is a 12-character ISIN with a correct check
// digit (ISO 6166: letters expand to two digits, then the Luhn algorithm).
func ValidISIN(s string) bool {
	if len(s) != 12 || !isUpperAlpha(s[0]) || !isUpperAlpha(s[1]) || !isDigit(s[11]) {
		return false
	}
	var digits []byte
	for i := 0; i < 11; i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digits = append(digits, c-'0')
		case isUpperAlpha(c):
			v := int(c-'A') + 10
			digits = append(digits, byte(v/10), byte(v%10))
		default:
			return false
		}
	}
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i])
		if (len(digits)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return (10-sum%10)%10 == int(s[11]-'0')
}

// ValidLEI reports whether s is a 20-character legal entity identifier
// whose last two digits satisfy ISO 17442 (ISO 7064 MOD 97-10).
func ValidLEI(s string) bool {
	if len(s) != 20 || !isDigit(s[18]) || !isDigit(s[19]) {
		return false
	}
	rem := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpperAlpha(c):
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// LEICheckDigits returns the two check digits that complete an 18-character
// LEI prefix.
func LEICheckDigits(prefix string) string {
	rem := 0
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if isDigit(c) {
			rem = (rem*10 + int(c-'0')) % 97
		} else {
			rem = (rem*100 + int(c-'A') + 10) % 97
		}
	}
	rem = (rem * 100) % 97
	check := 98 - rem
	return string([]byte{byte('0' + check/10), byte('0' + check%10)})
}

// ValidCountry reports whether s looks like an ISO 3166 alpha-2 code.
func ValidCountry(s string) bool {
	return len(s) == 2 && isUpperAlpha(s[0]) && isUpperAlpha(s[1])
}

// ValidEmail is a deliberately loose check: one @ with text on both sides,
// a dot in the domain, and at most the 254 characters of RFC 5321.
func ValidEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	return len(s) <= 254 && at > 0 && at < len(s)-1 && strings.Contains(s[at+1:], ".") && !strings.ContainsAny(s, " \t\r\n")
}

// ValidCurrency reports whether s looks like an ISO 4217 code.
func ValidCurrency(s string) bool {
	return len(s) == 3 && isUpperAlpha(s[0]) && isUpperAlpha(s[1]) && isUpperAlpha(s[2])
}

// ParseAmount parses a non-negative exact decimal as sent by a client,
// within the bounds of AmountIssue.
func ParseAmount(s string) (udecimal.Decimal, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 || strings.ContainsAny(s, "eE") {
		return udecimal.Zero, false
	}
	d, err := udecimal.Parse(s)
	if err != nil || d.IsNeg() || AmountIssue(d) != "" {
		return udecimal.Zero, false
	}
	return d, true
}

// Bounds of the nominal amounts (quantities, min_piece, min_increment,
// par_amount, risk-limit values) and prices a client sends. Eighteen
// integer digits are far beyond any issue size or price; eight decimal
// places are the finest price an instrument's precision allows, and keep a
// quantity times a price within the nineteen decimal places udecimal holds
// exactly (a value itself, at most 37 digits, within its 128-bit form).
const (
	MaxAmountDigits   = 18
	MaxAmountDecimals = 8
)

// maxAmount is the first magnitude past MaxAmountDigits integer digits.
var maxAmount = udecimal.MustFromInt64(1_000_000_000_000_000_000, 0)

// AmountIssue says why d cannot be a nominal amount or a price ("" when it
// can): more than MaxAmountDigits digits before the decimal point or more
// than MaxAmountDecimals significant digits after it. The sign is the
// caller's to check.
func AmountIssue(d udecimal.Decimal) string {
	if d.Abs().GreaterThanOrEqual(maxAmount) || !d.Trunc(MaxAmountDecimals).Equal(d) {
		return fmt.Sprintf("must have at most %d digits before the decimal point and %d after it", MaxAmountDigits, MaxAmountDecimals)
	}
	return ""
}

// Text limits: a name, code or other one-line field holds at most MaxName
// characters, a note or other free text at most MaxText.
const (
	MaxName = 255
	MaxText = 4096
)

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isUpperAlpha(c byte) bool { return c >= 'A' && c <= 'Z' }

// ValidID reports whether s can be a record id at all: a UUID in its
// hyphenated 36-character form.
func ValidID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// ValidText reports whether s can be stored and compared as text on every
// engine: valid UTF-8 without NUL characters (PostgreSQL refuses both).
func ValidText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
