package wire

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds what the generated encoder of an offer (offer_json.go)
// calls: its keys, read from Offer's tags, and the writers of its values.

// offerKeys are what AppendJSON writes before each value of an Offer, in
// the order it writes them (a nested object's keys after its own): the
// key from Offer's tag, with the brace or comma before it.
var offerKeys = objectKeys(reflect.TypeFor[Offer](), nil)

func init() {
	if len(offerKeys) != offerKeyCount {
		panic(fmt.Sprintf("wire: Offer has %d keys, its encoder %d: run go generate", len(offerKeys), offerKeyCount))
	}
}

// objectKeys appends the keys of struct type t's fields, depth first.
func objectKeys(t reflect.Type, out []string) []string {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		sep := ","
		if i == 0 {
			sep = "{"
		}
		out = append(out, sep+strconv.Quote(name)+":")
		if f.Type.Kind() == reflect.Struct {
			out = objectKeys(f.Type, out)
		}
	}
	return out
}

// appendStrings writes a list of strings.
func appendStrings(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
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
