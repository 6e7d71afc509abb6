package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/bondvenue/bondvenue/internal/wire"
)

// This file decodes the create body of an offer, quote or RFQ without
// reflection. It takes the bodies clients send — plain JSON without
// escapes, every field once, in its own type — and leaves everything else
// to decodeBytes, so a body is accepted, read and refused exactly as
// before: same values, same errors in the same words
// (FuzzOfferBody checks both on every input).

// decodeOffer reads the offer body of r into body.
func decodeOffer(r *http.Request, body *offerBody) error {
	b, err := readJSON(r)
	if err != nil {
		return err
	}
	if parseOfferBody(b, body) {
		return nil
	}
	return decodeBytes(b, body)
}

// offerBody is the create body of an offer, quote or RFQ
// (docs/rest-interface.md, "OfferCreate"), its decimals read as the other bodies'
// are.
type offerBody = wire.OfferBody[amountInput, priceInput]

// offerBodyKeys are offerBody's JSON names, from its tags, in its order
// (the generated constants fParticipantID… index them); offerKeysByLen
// lists them by length, so that a key is compared with the one to three
// of its length.
var offerBodyKeys, offerKeysByLen = func() ([]string, [maxOfferKey + 1][]int) {
	t := reflect.TypeFor[offerBody]()
	keys := make([]string, t.NumField())
	var byLen [maxOfferKey + 1][]int
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
		byLen[len(keys[i])] = append(byLen[len(keys[i])], i) // a longer key panics here: raise maxOfferKey
	}
	if len(keys) != offerFieldCount {
		panic(fmt.Sprintf("httpapi: offerBody has %d fields, its reader %d: run go generate in internal/wire", len(keys), offerFieldCount))
	}
	return keys, byLen
}()

// maxOfferKey is the length of offerBody's longest JSON name at the most.
const maxOfferKey = 31

// offerField returns the field named key, or -1.
func offerField(key []byte) int {
	if len(key) > maxOfferKey {
		return -1
	}
	for _, i := range offerKeysByLen[len(key)] {
		if offerBodyKeys[i] == string(key) {
			return i
		}
	}
	return -1
}

// parseOfferBody reads b into body and reports true when b is a body it
// takes; on false body is untouched and decodeBytes decides. It takes a
// JSON object, with white space around it only, that has no backslash
// (no escape: text is read as it stands, and a NUL, which needs one, is
// left to decodeBytes's check), names each field once and exactly as the
// struct does (encoding/json would also take a field name in other case),
// and gives each a value of its type (a string or null for text, true,
// false or null for a flag, an array of strings or null for
// counterparties; the decimals take any value, as their UnmarshalJSON
// does). Text must be valid UTF-8 (encoding/json replaces bad bytes);
// other fields' values are checked and skipped.
func parseOfferBody(b []byte, body *offerBody) bool {
	if bytes.IndexByte(b, '\\') >= 0 {
		return false
	}
	p := jsonScan{b: b}
	var out offerBody
	var seen uint32
	p.space()
	if !p.eat('{') {
		return false
	}
	p.space()
	if !p.eat('}') {
		for {
			p.space()
			key, ok := p.str()
			if !ok {
				return false
			}
			p.space()
			if !p.eat(':') {
				return false
			}
			p.space()
			f := offerField(key)
			if f < 0 {
				// An unknown field is ignored, unless encoding/json would
				// match it to a field without regard to case.
				if !unknownField(key) || !p.skip(0) {
					return false
				}
			} else {
				if seen&(1<<f) != 0 {
					return false
				}
				seen |= 1 << f
				if !p.field(&out, f) {
					return false
				}
			}
			p.space()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				break
			}
			return false
		}
	}
	p.space()
	if p.i != len(b) {
		return false
	}
	*body = out
	return true
}

// The readers of each type of offerBody's fields (offer_body_gen.go calls
// them).

// value reads any value, and returns it as it stands.
func (p *jsonScan) value() ([]byte, bool) {
	start := p.i
	if !p.skip(0) {
		return nil, false
	}
	return p.b[start:p.i], true
}

// textOrNull reads a string or null (which leaves v as it is).
func (p *jsonScan) textOrNull(v *string) bool {
	if p.literal("null") {
		return true
	}
	s, ok := p.text()
	if ok {
		*v = s
	}
	return ok
}

// textPtr reads a string or null (which leaves v nil).
func (p *jsonScan) textPtr(v **string) bool {
	if p.literal("null") {
		return true
	}
	s, ok := p.text()
	if ok {
		*v = &s
	}
	return ok
}

// flag reads true, false or null (which leaves v as it is).
func (p *jsonScan) flag(v *bool) bool {
	switch {
	case p.literal("true"):
		*v = true
	case p.literal("false"):
		*v = false
	case p.literal("null"):
	default:
		return false
	}
	return true
}

// texts reads an array of strings, or null.
func (p *jsonScan) texts(v *[]string) bool {
	if p.literal("null") {
		return true
	}
	if !p.eat('[') {
		return false
	}
	*v = make([]string, 0, 4)
	p.space()
	if p.eat(']') {
		return true
	}
	for {
		p.space()
		s, ok := p.text()
		if !ok {
			return false
		}
		*v = append(*v, s)
		p.space()
		if p.eat(',') {
			continue
		}
		return p.eat(']')
	}
}

// unknownField reports whether encoding/json ignores the field named key,
// which is not one of offerBody's names as it stands: an ASCII name that
// is none of them in any case. (A name with other characters is left to
// encoding/json, whose matching folds some of them to ASCII letters.)
func unknownField(key []byte) bool {
	var lower [32]byte
	for i, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if i < len(lower) {
			lower[i] = c
		}
	}
	return len(key) > len(lower) || offerField(lower[:len(key)]) < 0 // longer than every name, or none
}

// jsonScan reads JSON without escapes (the caller has refused any
// backslash).
type jsonScan struct {
	b []byte
	i int
}

func (p *jsonScan) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScan) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// literal reads the literal s (true, false, null).
func (p *jsonScan) literal(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// str reads a string and returns its contents as they stand.
func (p *jsonScan) str() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			p.i++
			return p.b[start : p.i-1], true
		}
		if c < 0x20 {
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// text reads a string whose contents are valid UTF-8.
func (p *jsonScan) text() (string, bool) {
	s, ok := p.str()
	if !ok || !utf8.Valid(s) {
		return "", false
	}
	return string(s), true
}

// maxSkipDepth bounds the nesting skip follows; deeper values are left to
// encoding/json.
const maxSkipDepth = 64

// skip reads one JSON value.
func (p *jsonScan) skip(depth int) bool {
	if p.i >= len(p.b) || depth > maxSkipDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '{':
		p.i++
		p.space()
		if p.eat('}') {
			return true
		}
		for {
			p.space()
			if _, ok := p.str(); !ok {
				return false
			}
			p.space()
			if !p.eat(':') {
				return false
			}
			p.space()
			if !p.skip(depth + 1) {
				return false
			}
			p.space()
			if p.eat(',') {
				continue
			}
			return p.eat('}')
		}
	case c == '[':
		p.i++
		p.space()
		if p.eat(']') {
			return true
		}
		for {
			p.space()
			if !p.skip(depth + 1) {
				return false
			}
			p.space()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	}
	return false
}

// number reads a number of JSON's grammar.
func (p *jsonScan) number() bool {
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.digits() > 0:
	default:
		return false
	}
	if p.eat('.') && p.digits() == 0 {
		return false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return false
		}
	}
	return true
}

func (p *jsonScan) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}
