package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// State is a record as an entry keeps it: the record encoded as JSON, each
// object's keys in snake_case (a Go field name, such as PriceCollarPercent,
// becomes price_collar_percent; a key that does not start with a capital,
// such as a tagged field's, stays as it is) and in sorted order, numbers and
// decimal text as the record gives them. A nil record has no state (nil):
// before a create, after a delete.
func State(record any) (json.RawMessage, error) {
	if record == nil {
		return nil, nil
	}
	raw, err := json.Marshal(record)
	if err != nil {
		return nil, fmt.Errorf("audit state: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // decimal figures keep their exact text
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("audit state: %w", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(snakeKeys(v)); err != nil { // maps encode with sorted keys
		return nil, fmt.Errorf("audit state: %w", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// snakeKeys renames the Go field names among v's object keys to snake_case.
func snakeKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[snake(k)] = snakeKeys(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = snakeKeys(e)
		}
		return x
	}
	return v
}

// snake turns a Go field name into snake_case: a word starts at a capital
// after a small letter or a digit, and at the last capital of an acronym
// followed by a small letter (KYCStatus: kyc_status); an acronym's plural
// stays whole (MarketIDs: market_ids). Other keys stay as they are.
func snake(name string) string {
	rs := []rune(name)
	if len(rs) == 0 || !unicode.IsUpper(rs[0]) {
		return name
	}
	var b strings.Builder
	for i, r := range rs {
		if !unicode.IsUpper(r) {
			b.WriteRune(r)
			continue
		}
		if i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			plural := nextLower && rs[i+1] == 's' && (i+2 == len(rs) || unicode.IsUpper(rs[i+2]))
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower && !plural) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
