package httpapi

import (
	"bytes"
	"net/http"
	"unicode/utf8"
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

// The fields of offerBody, by their JSON names.
const (
	fParticipantID = iota
	fAccountID
	fUserID
	fInstrumentID
	fMarketID
	fSettlementProviderID
	fDirection
	fPrice
	fPricePerUnit
	fQuantity
	fMatchedOfferID
	fNotes
	fMarketOrder
	fIsExecutable
	fSettlementDate
	fValidity
	fValidUntil
	fCounterparties
)

// offerField returns the field named key, or -1.
func offerField(key []byte) int {
	switch string(key) {
	case "participant_id":
		return fParticipantID
	case "account_id":
		return fAccountID
	case "user_id":
		return fUserID
	case "instrument_id":
		return fInstrumentID
	case "market_id":
		return fMarketID
	case "settlement_provider_id":
		return fSettlementProviderID
	case "direction":
		return fDirection
	case "price":
		return fPrice
	case "price_per_unit":
		return fPricePerUnit
	case "quantity":
		return fQuantity
	case "matched_offer_id":
		return fMatchedOfferID
	case "notes":
		return fNotes
	case "market_order":
		return fMarketOrder
	case "is_executable":
		return fIsExecutable
	case "settlement_date":
		return fSettlementDate
	case "validity":
		return fValidity
	case "valid_until":
		return fValidUntil
	case "counterparties":
		return fCounterparties
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

// field reads the value of field f into out.
func (p *jsonScan) field(out *offerBody, f int) bool {
	switch f {
	case fPrice, fQuantity, fPricePerUnit:
		start := p.i
		if !p.skip(0) {
			return false
		}
		raw := p.b[start:p.i]
		switch f {
		case fPrice:
			return out.Price.UnmarshalJSON(raw) == nil
		case fQuantity:
			return out.Quantity.UnmarshalJSON(raw) == nil
		default:
			return out.PricePerUnit.UnmarshalJSON(raw) == nil
		}
	case fMarketOrder, fIsExecutable:
		v := &out.MarketOrder
		if f == fIsExecutable {
			v = &out.IsExecutable
		}
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
	case fSettlementDate, fValidUntil:
		v := &out.SettlementDate
		if f == fValidUntil {
			v = &out.ValidUntil
		}
		if p.literal("null") {
			return true
		}
		s, ok := p.text()
		if ok {
			*v = &s
		}
		return ok
	case fCounterparties:
		if p.literal("null") {
			return true
		}
		if !p.eat('[') {
			return false
		}
		out.Counterparties = make([]string, 0, 4)
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
			out.Counterparties = append(out.Counterparties, s)
			p.space()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	}
	if p.literal("null") {
		return true
	}
	s, ok := p.text()
	if !ok {
		return false
	}
	switch f {
	case fParticipantID:
		out.ParticipantID = s
	case fAccountID:
		out.AccountID = s
	case fUserID:
		out.UserID = s
	case fInstrumentID:
		out.InstrumentID = s
	case fMarketID:
		out.MarketID = s
	case fSettlementProviderID:
		out.SettlementProviderID = s
	case fDirection:
		out.Direction = s
	case fMatchedOfferID:
		out.MatchedOfferID = s
	case fNotes:
		out.Notes = s
	case fValidity:
		out.Validity = s
	default:
		return false
	}
	return true
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
