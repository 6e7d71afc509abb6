package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/quagmt/udecimal"
)

// maxBody is the request body limit; larger bodies answer 413.
const maxBody = 1 << 20

// writeJSON encodes v with status. Encoding errors cannot reach the client
// (the header is sent); they only mean a broken connection.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer putAnswerBuffer(buf)
	if err := encodeJSON(buf, v); err != nil {
		http.Error(w, `{"statusCode":500,"message":"Internal Server Error"}`, http.StatusInternalServerError)
		return
	}
	writeBody(w, status, buf.Bytes())
}

// writeBody sends the JSON body b with status.
func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	// With its length known, net/http sends the body as is rather than in
	// chunks (an offer answer is past its 2 KiB buffer).
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// answerBuffers keeps the buffers answers are encoded into: growing a fresh
// one to an offer answer's 2–3 KiB took about 2 % of offer entry's CPU. The
// buffer is free again once Write has copied it into the connection's.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer bounds the buffers kept: a long list's answer is not
// held on to.
const maxPooledAnswer = 64 << 10

func putAnswerBuffer(buf *bytes.Buffer) {
	if buf.Cap() > maxPooledAnswer {
		return
	}
	buf.Reset()
	answerBuffers.Put(buf)
}

// readBody reads the request body up to the limit.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &venue.Error{Kind: venue.KindTooLarge, Message: fmt.Sprintf("request body exceeds %d bytes", maxBody)}
	}
	if err != nil {
		return nil, venue.Invalid("could not read request body")
	}
	return b, nil
}

// decode reads a JSON object body into v. Unknown fields are ignored;
// malformed JSON, a wrong type or trailing data answer 400.
func decode(r *http.Request, v any) error {
	b, err := readJSON(r)
	if err != nil {
		return err
	}
	return decodeBytes(b, v)
}

// readJSON reads a body sent as JSON: a Content-Type, when given, must say
// so.
func readJSON(r *http.Request) ([]byte, error) {
	if err := checkJSONType(r); err != nil {
		return nil, err
	}
	return readBody(r)
}

// checkJSONType refuses a Content-Type that does not say JSON.
func checkJSONType(r *http.Request) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return venue.InvalidField("Content-Type", "must be application/json")
		}
	}
	return nil
}

// decodeOptional is decode for a body a request may leave out: an empty
// body (whatever its Content-Type, as clients sent before the route took
// one) leaves v as it is.
func decodeOptional(r *http.Request, v any) error {
	b, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return err
	}
	if err := checkJSONType(r); err != nil {
		return err
	}
	return decodeBytes(b, v)
}

func decodeBytes(b []byte, v any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return venue.Invalid("request body is required (a JSON object)")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			if typeErr.Field == "" {
				return venue.Invalid("request body must be a JSON object")
			}
			// The decoder stops at the first wrong type; name them all.
			if issues := typeIssues(b, v); len(issues) > 0 {
				return venue.Invalid("Validation Error", issues...)
			}
			return venue.InvalidField(typeErr.Field, typeIssue(typeErr))
		default:
			return venue.Invalid("malformed JSON: " + err.Error())
		}
	}
	if dec.More() {
		return venue.Invalid("malformed JSON: trailing data after the object")
	}
	// A JSON string holds a NUL only as the escape \u0000 (the decoder
	// replaces invalid UTF-8), so only a body with one is looked at again.
	if bytes.Contains(b, []byte(`\u0000`)) {
		if issues := nulIssues(b); len(issues) > 0 {
			return venue.Invalid("Validation Error", issues...)
		}
	}
	return nil
}

// nulIssues names every string and object key of the JSON document b that
// holds a NUL character. No field may: PostgreSQL cannot store one.
func nulIssues(b []byte) []venue.FieldIssue {
	var doc any
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	var out []venue.FieldIssue
	var walk func(field string, v any)
	walk = func(field string, v any) {
		switch x := v.(type) {
		case string:
			if !venue.ValidText(x) {
				out = append(out, venue.FieldIssue{Field: field, Issue: "must not contain NUL characters"})
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", field, i), e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				name := k
				if field != "" {
					name = field + "." + k
				}
				if !venue.ValidText(k) {
					out = append(out, venue.FieldIssue{Field: name, Issue: "is a field name with a NUL character"})
					continue
				}
				walk(name, x[k])
			}
		}
	}
	walk("", doc)
	return out
}

func typeIssue(e *json.UnmarshalTypeError) string {
	return "must be a JSON " + jsonType(e.Type.Kind().String())
}

// typeIssues names every top-level field of the JSON object b whose value
// does not decode into its field of *v (a struct), in the struct's order.
func typeIssues(b []byte, v any) []venue.FieldIssue {
	var fields map[string]json.RawMessage
	t := reflect.TypeOf(v)
	if json.Unmarshal(b, &fields) != nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	var out []venue.FieldIssue
	for f := range t.Elem().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := fields[name]
		if !ok || name == "" || name == "-" {
			continue
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(json.Unmarshal(raw, reflect.New(f.Type).Interface()), &typeErr) {
			field := name
			if typeErr.Field != "" {
				field += "." + typeErr.Field
			}
			out = append(out, venue.FieldIssue{Field: field, Issue: typeIssue(typeErr)})
		}
	}
	return out
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	default:
		return "number"
	}
}

// decimalInput accepts a JSON number or a numeric string as an exact
// decimal. It never fails decoding: Bad records an unusable value so the
// handler can name the field in a validation error.
type decimalInput struct {
	Set   bool
	Bad   bool
	Value udecimal.Decimal
}

func (d *decimalInput) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := udecimal.Parse(strings.TrimSpace(s))
	if err != nil || strings.ContainsAny(s, "eE") || len(s) > 40 {
		d.Bad = true
		return nil
	}
	d.Set, d.Value = true, v
	return nil
}

// amountInput is a decimalInput for a nominal amount or a price. Its
// bounds are the use cases' to check, for every channel alike.
type amountInput struct{ decimalInput }

// priceInput is an amountInput that also takes the form records show a
// price in, {"limit_price": 99.5, "__typename": "LimitOrderPrice"}, so a
// client may send a record it read back as an update's entity.
type priceInput struct{ amountInput }

func (p *priceInput) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return p.amountInput.UnmarshalJSON(b)
	}
	var obj struct {
		LimitPrice json.RawMessage `json:"limit_price"`
	}
	if json.Unmarshal(b, &obj) != nil || len(obj.LimitPrice) == 0 {
		p.Bad = true
		return nil
	}
	return p.amountInput.UnmarshalJSON(obj.LimitPrice)
}

// check records a validation issue for field when the value was unusable.
func (d decimalInput) check(v *venue.Validator, field string) {
	if d.Bad {
		v.Addf(field, "%s", d.issue())
	}
}

// issues returns the issue of an unusable value, for a use case to report
// with its own.
func (d decimalInput) issues(field string) []venue.FieldIssue {
	if !d.Bad {
		return nil
	}
	return []venue.FieldIssue{{Field: field, Issue: d.issue()}}
}

func (d decimalInput) issue() string { return decimalIssue }

// decimalIssue is the issue of a value that is not a decimal.
const decimalIssue = "must be a decimal number (a JSON number or numeric string)"

// ptr returns a pointer to the value when set, for use-case inputs.
func (d decimalInput) ptr() *udecimal.Decimal {
	if !d.Set {
		return nil
	}
	v := d.Value
	return &v
}

// query reads a list's query parameters and collects every bad one, so one
// answer names them all.
type query struct {
	url.Values
	v venue.Validator
}

// checkQuery rejects a query parameter holding a NUL character or invalid
// UTF-8, which no parameter's value may: PostgreSQL refuses such text in a
// query, so it would otherwise fail as a database error.
func checkQuery(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	values := r.URL.Query()
	var v venue.Validator
	for _, name := range slices.Sorted(maps.Keys(values)) {
		v.Check(venue.ValidText(name) && !slices.ContainsFunc(values[name], func(s string) bool { return !venue.ValidText(s) }),
			name, "must be UTF-8 text without NUL characters")
	}
	return v.Err()
}

// pageParams parses limit, cursor, from and to.
func pageParams(values url.Values) (venue.Page, error) {
	q := query{Values: values}
	p := q.page()
	return p, q.v.Err()
}

// page parses limit, cursor, from and to.
func (q *query) page() venue.Page {
	p := venue.Page{Limit: 100}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			q.v.Addf("limit", "must be an integer between 1 and 1000")
		}
		p.Limit = n
	}
	if s := q.Get("cursor"); s != "" {
		id, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(id) == 0 || len(id) > 64 || !venue.ValidText(string(id)) {
			q.v.Addf("cursor", "is not a cursor from a Link header")
		}
		p.Cursor = string(id)
	}
	for _, k := range []string{"from", "to"} {
		s := q.Get(k)
		if s == "" {
			continue
		}
		t, err := parseInstant(s)
		if err != nil {
			q.v.Addf(k, "must be a timestamp (YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or ISO 8601)")
			continue
		}
		if k == "from" {
			p.From = &t
		} else {
			p.To = &t
		}
	}
	return p
}

// oneOf returns parameter name when it is one of allowed ("" when absent).
func oneOf[T ~string](q *query, name string, allowed []T) T {
	s := T(q.Get(name))
	if s == "" || slices.Contains(allowed, s) {
		return s
	}
	words := make([]string, 0, len(allowed))
	for _, a := range allowed {
		words = append(words, string(a))
	}
	last := len(words) - 1
	q.v.Addf(name, "must be %s or %s", strings.Join(words[:last], ", "), words[last])
	return ""
}

// boolean returns parameter name as a bool (nil when absent).
func (q *query) boolean(name string) *bool {
	s := q.Get(name)
	if s == "" {
		return nil
	}
	if s != "true" && s != "false" {
		q.v.Addf(name, "must be true or false")
		return nil
	}
	b := s == "true"
	return &b
}

// id returns parameter name when it is a record id ("" when absent); what
// names the record in the issue.
func (q *query) id(name, what string) string {
	s := q.Get(name)
	if s == "" {
		return ""
	}
	if !venue.ValidID(s) {
		q.v.Addf(name, "must be %s id", what)
		return ""
	}
	return s
}

// parseInstant accepts the venue's input formats for instants (UTC).
func parseInstant(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", venue.DateLayout} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a timestamp: %q", s)
}

// writeList answers a page of a list: a bare JSON array, with a Link
// header to the next page when there is one.
func writeList[T, U any](w http.ResponseWriter, r *http.Request, items []T, next string, view func(T) U) {
	if next != "" {
		q := r.URL.Query()
		q.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte(next)))
		if q.Get("limit") == "" {
			q.Set("limit", "100")
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s?%s>; rel="next"`, r.URL.Path, q.Encode()))
	}
	writeJSON(w, http.StatusOK, mapSlice(items, view))
}
