package wire

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends o's JSON to b: the bytes encoding/json writes for o
// with HTML escaping off (as every adapter sends records), without
// reflection. An offer answer is the venue's busiest; its encoding by
// reflection was about a tenth of its CPU. A Num that is not a number
// fails as it does in encoding/json.
func (o *Offer) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendString(b, o.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, o.Type)
	b = append(b, `,"direction":`...)
	b = appendString(b, o.Direction)
	b = append(b, `,"price":`...)
	b = appendNumPtr(b, o.Price, &err)
	b = append(b, `,"quantity":`...)
	b = appendNum(b, o.Quantity, &err)
	b = append(b, `,"price_per_unit_clean":`...)
	b = appendNumPtr(b, o.PricePerUnitClean, &err)
	b = append(b, `,"filled_quantity":`...)
	b = appendNum(b, o.FilledQuantity, &err)
	b = append(b, `,"price_per_unit":{"limit_price":`...)
	b = appendNumPtr(b, o.PricePerUnit.LimitPrice, &err)
	b = append(b, `,"__typename":`...)
	b = appendString(b, o.PricePerUnit.Typename)
	b = append(b, `},"status":`...)
	b = appendString(b, o.Status)
	b = append(b, `,"matched_offer_id":`...)
	b = appendStringPtr(b, o.MatchedOfferID)
	b = append(b, `,"notes":`...)
	b = appendString(b, o.Notes)
	b = append(b, `,"market_order":`...)
	b = strconv.AppendBool(b, o.MarketOrder)
	b = append(b, `,"is_executable":`...)
	b = strconv.AppendBool(b, o.IsExecutable)
	b = append(b, `,"settlement_date":`...)
	b = appendStringPtr(b, o.SettlementDate)
	b = append(b, `,"validity":`...)
	b = appendString(b, o.Validity)
	b = append(b, `,"valid_until":`...)
	b = appendStringPtr(b, o.ValidUntil)
	b = append(b, `,"participant_id":`...)
	b = appendString(b, o.ParticipantID)
	b = append(b, `,"account_id":`...)
	b = appendString(b, o.AccountID)
	b = append(b, `,"market_id":`...)
	b = appendString(b, o.MarketID)
	b = append(b, `,"instrument_id":`...)
	b = appendString(b, o.InstrumentID)
	b = append(b, `,"user_id":`...)
	b = appendString(b, o.UserID)
	b = append(b, `,"settlement_provider_id":`...)
	b = appendStringPtr(b, o.SettlementProviderID)
	if len(o.Counterparties) > 0 { // omitempty
		b = append(b, `,"counterparties":[`...)
		for i, c := range o.Counterparties {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, c)
		}
		b = append(b, ']')
	}
	b = append(b, `,"accrued_interest":`...)
	b = appendString(b, o.AccruedInterest)
	b = append(b, `,"message":`...)
	b = appendStringPtr(b, o.Message)
	b = append(b, `,"outcome":`...)
	b = appendStringPtr(b, o.Outcome)
	b = append(b, `,"cover_price":`...)
	b = appendNumPtr(b, o.CoverPrice, &err)
	b = append(b, `,"modified_at":`...)
	b = appendString(b, o.ModifiedAt)
	b = append(b, `,"createdAt":`...)
	b = appendString(b, o.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendString(b, o.UpdatedAt)
	b = append(b, '}')
	return b, err
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendNumPtr(b []byte, n *Num, err *error) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return appendNum(b, *n, err)
}

// appendNum writes n as encoding/json writes a json.Number: as it stands,
// "" as 0.
func appendNum(b []byte, n Num, err *error) []byte {
	if n == "" {
		return append(b, '0')
	}
	if !validNumber(string(n)) && *err == nil {
		*err = fmt.Errorf("json: invalid number literal %q", string(n))
	}
	return append(b, n...)
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		s = s[2:]
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && isDigit(s[0]) {
			s = s[1:]
		}
	}
	return s == ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string as encoding/json does with HTML
// escaping off: quotes, backslashes and control characters escaped, each
// byte of invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
