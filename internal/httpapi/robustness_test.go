package httpapi_test

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/getkin/kin-openapi/openapi3"
)

// TestNoServerErrorOnBadInput walks every operation of the OpenAPI
// document, as a caller its x-roles allow, and sends it bad input:
// malformed, unknown and another firm's ids in its path; bad values of each
// query parameter it declares; broken bodies and, for each property of its
// request schema (one level into nested objects), the wrong JSON type,
// extreme numbers, odd strings and impossible dates, in an otherwise valid
// body; an oversized body, a wrong Content-Type and odd Idempotency-Keys.
// No answer may be a 5xx; every answer must match the document (so an
// accepted bad value must still make a documented record) and every error
// carries the Error body with its status (the harness checks both); the
// bad requests must mostly reach validation (400, 404, 409, 413, 422)
// rather than 401/403; afterwards the venue still takes an offer and its
// event log has no gap. An operation added to the document is swept without
// touching this test; sweepBodies gives its request body a valid start.
// The order and values are fixed, so every run sends the same requests.
func TestNoServerErrorOnBadInput(t *testing.T) {
	doc, err := document()
	if err != nil {
		t.Fatal(err)
	}
	ops := sweptOperations(t, doc)
	fresh(t, func(t *testing.T, v *env) {
		s := newSweep(t, v)
		tally := map[int]int{}
		sent := 0
		for _, op := range ops {
			t.Run(op.method+" "+op.path, func(t *testing.T) {
				probes := s.probes(t, op)
				reached := 0
				for _, p := range probes {
					r := v.do(t, p.as, p.method, p.target, p.body, p.header)
					sent++
					if r.status >= 500 {
						t.Errorf("%s %.300s (%s) as %s: status %d\n%.500s", p.method, p.target, p.what, p.as, r.status, r.body)
					}
					if p.want != 0 && r.status != p.want {
						t.Errorf("%s %.300s (%s) as %s: status %d, want %d\n%.500s", p.method, p.target, p.what, p.as, r.status, p.want, r.body)
					}
					if p.base {
						if r.status >= 300 {
							t.Errorf("%s %s (the valid request the sweep starts from) as %s: status %d, want 2xx\n%.500s",
								p.method, p.target, p.as, r.status, r.body)
						}
						continue
					}
					tally[r.status]++
					if validationStatus[r.status] {
						reached++
					}
				}
				// An operation with inputs must answer some of the bad ones
				// itself, not only turn the caller away.
				if op.hasInput() && reached == 0 {
					t.Errorf("none of %d bad requests reached validation (answered 400, 404, 409, 413 or 422); is %s the right caller?",
						len(probes), callerOf(op))
				}
			})
		}

		total, reached, refused := 0, 0, tally[http.StatusUnauthorized]+tally[http.StatusForbidden]
		for status, n := range tally {
			total += n
			if validationStatus[status] {
				reached += n
			}
		}
		t.Logf("%s: %d requests; statuses of the bad ones: %v", v.engine, sent, tally)
		if reached < total*3/4 || refused > total/20 {
			t.Errorf("%d of %d bad requests reached validation and %d were refused (401/403); want at least 3/4 and at most 1/20",
				reached, total, refused)
		}

		t.Run("the venue still works", func(t *testing.T) {
			r := v.do(t, trader(0), "POST", "/api/v1/participant/offers", s.f.offerBody(), nil)
			if r.status != http.StatusOK {
				t.Fatalf("create offer: status %d, want 200\n%.500s", r.status, r.body)
			}
			id, _ := r.object(t)["id"].(string)
			var last event
			for after := int64(0); ; {
				var page []event
				v.get(t, operator, fmt.Sprintf("/api/v1/events?after=%d&limit=1000", after), http.StatusOK).decode(t, &page)
				if len(page) == 0 {
					break
				}
				for _, e := range page {
					if e.Seq != last.Seq+1 {
						t.Fatalf("event seq %d follows %d: the log has a gap", e.Seq, last.Seq)
					}
					last = e
				}
				after = last.Seq
			}
			if last.Type != "offer.create" || last.Data["id"] != id {
				t.Errorf("last event = %s %v, want offer.create of %s", last.Type, last.Data["id"], id)
			}
		})
	})
}

// validationStatus are the answers of a request the operation itself
// turned down (rather than its caller).
var validationStatus = map[int]bool{400: true, 404: true, 409: true, 413: true, 422: true}

// sweptOp is one operation of the document.
type sweptOp struct {
	method, path string
	op           *openapi3.Operation
	params       openapi3.Parameters // the path item's and the operation's
}

func (o sweptOp) hasInput() bool { return len(o.params) > 0 || o.op.RequestBody != nil }

// sweptOperations lists the document's operations in a fixed order.
func sweptOperations(t *testing.T, doc *openapi3.T) []sweptOp {
	t.Helper()
	var out []sweptOp
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			params := slices.Concat(item.Parameters, op.Parameters)
			out = append(out, sweptOp{method: method, path: path, op: op, params: params})
		}
	}
	slices.SortFunc(out, func(a, b sweptOp) int {
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.method, b.method))
	})
	if len(out) < 50 {
		t.Fatalf("the document has %d operations, want every one", len(out))
	}
	return out
}

// callerOf picks a caller the operation's x-roles allow: the operator for
// /admin operations it may call, else a trader, admin or viewer of firm 0,
// else the operator; nobody for a public operation.
func callerOf(o sweptOp) who {
	raw, ok := o.op.Extensions["x-roles"]
	if !ok {
		return anon
	}
	var roles []venue.Role
	if b, err := json.Marshal(raw); err != nil || json.Unmarshal(b, &roles) != nil {
		return anon
	}
	if strings.HasPrefix(o.path, "/api/v1/admin/") && slices.Contains(roles, venue.RoleOperator) {
		return operator
	}
	for _, w := range []who{trader(0), admin(0), viewer(0)} {
		if slices.Contains(roles, w.role) {
			return w
		}
	}
	return operator
}

// sweep holds what the probes address: the authorization matrix's fixture
// (records of firm 0, its counterparty firm 1 and the unrelated firm 3) and
// spare records for the operator's writes, so that a bad value accepted
// there cannot change the records the rest of the suite (and the final
// check) trade with.
type sweep struct {
	v           *env
	f           *fixture
	participant string // a firm of its own: the operator's writes change it and its risk limits
	market      string
	instrument  string
	seen        map[any]bool // the shared parameters and schemas probed so far
	// newInstrument is the instrument create body (listed on market).
	newInstrument map[string]any
	// quoteOf is the quote of the list the last portfolioId named, for
	// the quoteId of the same path.
	quoteOf string
}

func newSweep(t *testing.T, v *env) *sweep {
	t.Helper()
	f := newFixture(t, v)
	s := &sweep{v: v, f: f, seen: map[any]bool{}}
	create := func(path string, body any) string {
		r := v.do(t, operator, "POST", path, body, nil)
		id, _ := r.object(t)["id"].(string)
		if r.status != http.StatusOK || id == "" {
			t.Fatalf("POST %s: status %d\n%s", path, r.status, r.body)
		}
		return id
	}
	s.participant = create("/api/v1/admin/participants", map[string]any{"name": f.unique("Sweep"), "lei": f.lei(), "country": "DE"})
	s.market = create("/api/v1/admin/markets", map[string]any{"name": f.unique("Sweep"), "facility_type": "OTC"})
	s.instrument = create("/api/v1/admin/instruments", f.instrumentBody())
	s.newInstrument = f.instrumentBody()
	s.newInstrument["market_ids"] = []string{s.market}
	return s
}

// sweepBodies are valid request bodies per operationId, the start of each
// body probe; each call returns new unique names, LEIs and emails, so a
// probe whose bad value is accepted creates a record rather than colliding
// with the last one. Instruments keep one ISIN: each new instrument makes
// every later write reload them all. An operation missing here is swept
// from an empty object.
func (s *sweep) sweepBodies() map[string]map[string]any {
	f, v := s.f, s.v
	token := v.userCred(viewer(3))
	entity := func(m map[string]any) map[string]any { return map[string]any{"entity": m} }
	// The offer's price under its other name, price, which is read only
	// without price_per_unit: so both names are probed.
	offer := f.offerBody()
	offer["price"] = offer["price_per_unit"]
	delete(offer, "price_per_unit")
	return map[string]map[string]any{
		"issueToken":              {"grant_type": "client_credentials", "client_id": token.ClientID, "client_secret": token.ClientSecret},
		"createBucket":            {"name": f.unique("Sweep"), "instruments": []map[string]string{{"id": f.ins[0]}}},
		"updateBucket":            entity(map[string]any{"name": f.unique("Sweep")}),
		"createOffer":             offer,
		"updateOffer":             entity(map[string]any{"notes": "amended"}),
		"createRFQ":               f.rfqBody(),
		"createPortfolioRFQ":      f.portfolioBody(),
		"adminSetSettlementLinks": {"links": demo.SettlementLinks},
		"allocateTrade":           {"allocations": []map[string]any{{"account_id": v.account(0), "quantity": "1000"}}},
		"quotePortfolioRFQ":       portfolioQuoteBody,
		"updateRFQ":               entity(map[string]any{"notes": "amended"}),
		"createIndicativePrice": {"instrument_id": f.ins[0], "account_id": v.account(0), "bid_price": "99.1",
			"ask_price": "99.3"},
		"updateIndicativePrice":  entity(map[string]any{"bid_price": "99.2"}),
		"computeDayCount":        {"day_count": "ACT/360", "start": "2026-01-15", "end": "2026-07-15"},
		"computeAccruedInterest": bondTerms(nil),
		"computePrice":           bondTerms(map[string]any{"yield": "3.1"}),
		"computeYield":           bondTerms(map[string]any{"clean_price": "99.5"}),
		"adminCreateParticipant": {"name": f.unique("Sweep"), "lei": f.lei(), "country": "DE"},
		"adminUpdateParticipant": entity(map[string]any{"city": "Frankfurt"}),
		"adminCreateAccount":     {"participant_id": s.participant, "number": f.unique("SWEEP")},
		"adminCreateUser": {"participant_id": s.participant, "email": fmt.Sprintf("sweep%d@example.com", f.n.Add(1)),
			"role": "PARTICIPANT_VIEWER"},
		"adminUpdateUser":               entity(map[string]any{"locale": "en"}),
		"adminSetCounterparty":          {"participant_id": s.participant, "counterparty_id": v.participant(3), "enabled": true},
		"adminSetRiskLimit":             {"value": "50000000"},
		"adminCreateSettlementProvider": {"participant_id": s.participant, "provider": f.unique("Sweep")},
		"adminCreateMarket":             {"name": f.unique("Sweep"), "facility_type": "OTC"},
		"adminUpdateMarket":             entity(map[string]any{"is_enabled": true}),
		"adminCreateInstrument":         maps.Clone(s.newInstrument),
		"adminUpdateInstrument":         entity(map[string]any{"note": "reviewed"}),
		"adminCreateBucket":             {"name": f.unique("Sweep"), "instruments": []map[string]string{{"id": f.ins[1]}}},
		"adminCreateNews":               {"title": f.unique("Sweep"), "body": "Market notice."},
		// Off: the sweep's firms keep trading.
		"setKillSwitch":      {"enabled": false},
		"adminSetKillSwitch": {"enabled": false},
		"adminSetHalt":       {"halted": false},
	}
}

// pathValue names, for path parameter name of o, a record of the object's
// firm (ownObject: the caller's; otherObject: the unrelated firm 3's) that
// the caller may act on; each call creates what the operation consumes.
func (s *sweep) pathValue(t *testing.T, o sweptOp, name, obj string) string {
	t.Helper()
	f := s.f
	admin := strings.HasPrefix(o.path, "/api/v1/admin/")
	switch name {
	case "participantId":
		if admin {
			return s.participant
		}
		return f.participant(obj)
	case "accountId":
		return f.account(obj)
	case "userId":
		return f.user(obj)
	case "bucketId":
		return f.newBucket(t, obj)
	case "id":
		if strings.HasSuffix(o.path, "/toggle") {
			return f.toggleProvider(obj)
		}
		return f.defaultProvider(obj)
	case "marketId":
		if strings.HasSuffix(o.path, "/halt") {
			return f.markets[0].ID // where the sweep's instrument is listed
		}
		if admin {
			return s.market
		}
		return f.market(obj)
	case "instrument_id":
		if admin {
			return s.instrument
		}
		return f.instrument(obj)
	case "offerId":
		if strings.HasSuffix(o.path, "/accept") {
			return f.quote(t, obj)
		}
		return f.offer(t, obj)
	case "rfqId":
		if strings.HasSuffix(o.path, "/reject") && obj == ownObject {
			return f.rfq(t, cptyObject) // an RFQ firm 0 was invited to
		}
		return f.rfq(t, obj)
	case "portfolioId":
		switch {
		case strings.HasSuffix(o.path, "/quotes") || (strings.HasSuffix(o.path, "/reject") && !strings.Contains(o.path, "{quoteId}")):
			if obj == ownObject {
				return f.portfolio(t, cptyObject) // a list firm 0 was invited to
			}
		case strings.Contains(o.path, "{quoteId}"):
			p := f.portfolioQuote(t, obj)
			s.quoteOf = strings.TrimPrefix(p[strings.LastIndex(p, "/quotes/"):], "/quotes/")
			return strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/participant/portfolio-rfq/"), "/quotes/"+s.quoteOf)
		}
		return f.portfolio(t, obj)
	case "quoteId":
		return s.quoteOf
	case "tradeId":
		switch {
		case obj == ownObject && o.method == "POST" && strings.HasSuffix(o.path, "/allocations"):
			return f.newTrade(t, 0, 1) // a side allocates once
		case obj == ownObject && strings.HasSuffix(o.path, "/allocations"):
			return f.allocatedTrade(t)
		}
		return f.trade(obj)
	case "indicativePriceId":
		return f.indicative(t, obj)
	case "clientId":
		return f.newCredential(t, obj)
	case "calendar":
		return "TARGET2"
	case "name":
		return "MAX_OFFER"
	case "asset":
		if strings.HasPrefix(o.path, "/assets/") {
			return strings.TrimPrefix(s.f.asset, "/assets/")
		}
		return "swagger-ui.css"
	}
	return missingID
}

// firmScoped are the path parameters that name a firm's record.
var firmScoped = map[string]bool{"participantId": true, "accountId": true, "userId": true, "bucketId": true, "id": true,
	"offerId": true, "rfqId": true, "tradeId": true, "indicativePriceId": true, "clientId": true, "portfolioId": true, "quoteId": true}

// probe is one request of the sweep.
type probe struct {
	what   string
	as     who
	method string
	target string // path and query
	body   any
	header map[string]string
	want   int  // the one acceptable status, when there is one
	base   bool // the valid request the probes start from: must succeed
}

// long is a 10 KiB string.
var long = strings.Repeat("x", 10<<10)

// badIDs are malformed or unknown ids for a path parameter. Not among them:
// invalid UTF-8, which answers 404 but cannot come back byte for byte in
// the Error body's path (JSON text is UTF-8), so the harness's path check
// would refuse the answer.
var badIDs = []string{"x", long, "\x00", "../", "%00", "' OR '1'='1", strings.ToUpper(missingID), missingID}

func (s *sweep) probes(t *testing.T, o sweptOp) []probe {
	t.Helper()
	as := callerOf(o)
	good := map[string]string{}
	var pathNames []string
	for _, p := range o.params {
		if p.Value.In == "path" {
			good[p.Value.Name] = s.pathValue(t, o, p.Value.Name, ownObject)
			pathNames = append(pathNames, p.Value.Name)
		}
	}
	fill := func(values map[string]string) string {
		p := o.path
		for name, val := range values {
			p = strings.ReplaceAll(p, "{"+name+"}", url.PathEscape(val))
		}
		return p
	}
	path := fill(good)
	// The query parameters the operation needs, and a page of one where it
	// has pages: lists answer small, so checking them is quick.
	required := url.Values{}
	for _, p := range o.params {
		switch {
		case p.Value.In == "query" && p.Value.Required:
			required.Set(p.Value.Name, goodQueryValue(p.Value))
		case p.Value.In == "query" && p.Value.Name == "limit":
			required.Set("limit", "1")
		}
	}
	target := func(path string, q url.Values) string {
		if len(q) == 0 {
			return path
		}
		return path + "?" + q.Encode()
	}
	bodySchema := requestSchema(o)
	body := func() map[string]any {
		if b, ok := s.sweepBodies()[o.op.OperationID]; ok {
			return b
		}
		return map[string]any{}
	}
	base := probe{what: "valid", as: as, method: o.method, target: target(path, required)}
	if bodySchema != nil {
		base.body = body()
	}

	out := []probe{base}
	out[0].base = true
	add := func(p probe) { out = append(out, p) }

	// Path parameters. An empty id is sent only as the last segment of an
	// API path: in the middle ServeMux answers the double slash with a
	// redirect to the cleaned path, and /docs/ redirects to /docs.
	for i, name := range pathNames {
		ids := badIDs
		if i == len(pathNames)-1 && strings.HasSuffix(o.path, "}") && strings.HasPrefix(o.path, "/api/v1/") {
			ids = append(slices.Clone(ids), "")
		}
		if as.participant() && firmScoped[name] {
			ids = append(slices.Clone(ids), s.pathValue(t, o, name, otherObject))
		}
		for _, id := range ids {
			values := maps.Clone(good)
			values[name] = id
			p := base
			p.what, p.target = fmt.Sprintf("path %s=%.40q", name, id), target(fill(values), required)
			add(p)
		}
	}

	// Query parameters, one at a time, and an unknown one.
	for _, prm := range o.params {
		if prm.Value.In != "query" {
			continue
		}
		for _, val := range s.badQueryValues(prm) {
			q := maps.Clone(required)
			q.Set(prm.Value.Name, val)
			p := base
			p.what, p.target = fmt.Sprintf("query %s=%.40q", prm.Value.Name, val), target(path, q)
			switch {
			case as.role == "":
			case !venue.ValidText(val):
				p.want = http.StatusBadRequest // not text PostgreSQL can compare
			case isIDFilter(prm.Value):
				p.want = s.idFilterWant(as, val)
			}
			add(p)
		}
		q := maps.Clone(required)
		q[prm.Value.Name] = []string{goodQueryValue(prm.Value), "x", long}
		p := base
		p.what, p.target = fmt.Sprintf("query %s repeated", prm.Value.Name), target(path, q)
		add(p)
	}
	q := maps.Clone(required)
	q.Set("x\x00", "x")
	p := base
	p.what, p.target = "unknown query parameter", target(path, q)
	if as.role != "" {
		p.want = http.StatusBadRequest
	}
	add(p)

	// Request bodies.
	if bodySchema != nil {
		for _, b := range []string{"", "not json", `{"a":`, "null", "[]", "[{}]", `""`, "1", "{}", `{"a":1}{"b":2}`,
			"{\x00}", `{"\u0000":"\u0000"}`, "\xff\xfe"} {
			p := base
			p.what, p.body = fmt.Sprintf("body %.20q", b), raw(b)
			add(p)
		}
		for _, m := range s.bodyMutations(bodySchema, body, map[string]int{}, 0) {
			p := base
			p.what, p.body, p.want = "body "+m.what, m.body, m.want
			if m.nul {
				p.want = http.StatusBadRequest // no field may hold a NUL
			}
			add(p)
		}
		p := base
		p.what, p.body, p.want = "body over 1 MiB", raw(`{"pad":"`+strings.Repeat("x", 1<<20)+`"}`), http.StatusRequestEntityTooLarge
		add(p)
		content := o.op.RequestBody.Value.Content
		if content.Get("text/plain") == nil {
			p := base
			p.what, p.header, p.want = "Content-Type text/plain", map[string]string{"Content-Type": "text/plain"}, http.StatusBadRequest
			add(p)
		}
		if content.Get("application/x-www-form-urlencoded") != nil {
			form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
			for _, name := range slices.Sorted(maps.Keys(bodySchema.Properties)) {
				for _, val := range []string{"\x00", "\xff", long} {
					values := url.Values{}
					for k, v := range body() {
						values.Set(k, fmt.Sprint(v))
					}
					values.Set(name, val)
					p := base
					p.what, p.body, p.header = fmt.Sprintf("form %s=%.40q", name, val), raw(values.Encode()), form
					add(p)
				}
			}
			p := base
			p.what, p.body, p.header = "form %zz", raw("grant_type=%zz"), form
			add(p)
		}
	}
	var security openapi3.SecurityRequirements
	if o.op.Security != nil {
		security = *o.op.Security
	}
	for _, req := range security {
		if _, ok := req["basicAuth"]; !ok {
			continue
		}
		for _, cred := range []string{"\x00:x", "\xff:x", "x:\x00", ":", "x", long + ":" + long} {
			p := base
			p.what = fmt.Sprintf("Basic %.40q", cred)
			p.header = map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(cred))}
			add(p)
		}
		p := base
		p.what, p.header = "Basic not base64", map[string]string{"Authorization": "Basic !!!"}
		add(p)
	}

	// Idempotency-Key on writes. An empty value is sent as a space, which
	// the server reads as "" (do deletes a header given as "").
	if o.method != "GET" && as.role != "" {
		for _, k := range []struct {
			what, key string
			want      int
		}{
			{"empty", " ", 0},
			{"10 KiB", long, http.StatusBadRequest},
			{"non-ASCII", "clé-" + o.op.OperationID + "-€", 0},
			{"not UTF-8", "\xff\xfe-" + o.op.OperationID, http.StatusBadRequest},
		} {
			p := base
			p.what, p.header, p.want = "Idempotency-Key "+k.what, map[string]string{"Idempotency-Key": k.key}, k.want
			add(p)
		}
	}
	return out
}

// requestSchema is the JSON schema of o's request body, if it has one.
func requestSchema(o sweptOp) *openapi3.Schema {
	if o.op.RequestBody == nil {
		return nil
	}
	mt := o.op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return flat(mt.Schema)
}

// flat merges a schema's allOf into one schema: the union of the
// properties, the first type, enum, pattern, format and items found.
func flat(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return &openapi3.Schema{}
	}
	s := *ref.Value
	s.Properties = maps.Clone(s.Properties)
	for _, part := range ref.Value.AllOf {
		p := flat(part)
		if s.Type == nil || s.Type.IsEmpty() {
			s.Type = p.Type
		}
		if s.Enum == nil {
			s.Enum = p.Enum
		}
		s.Pattern = cmp.Or(s.Pattern, p.Pattern)
		s.Format = cmp.Or(s.Format, p.Format)
		if s.Items == nil {
			s.Items = p.Items
		}
		s.AnyOf = append(s.AnyOf, p.AnyOf...)
		for name, prop := range p.Properties {
			if s.Properties == nil {
				s.Properties = openapi3.Schemas{}
			}
			s.Properties[name] = prop
		}
	}
	return &s
}

// kind is what a probe treats a value as.
type kind int

const (
	kindAny kind = iota // no type: an ignored field
	kindString
	kindEnum
	kindDate
	kindDecimal // a JSON number or numeric text
	kindInteger
	kindBool
	kindArray
	kindObject
)

// kindOf classifies a property by its schema, and by its name for the
// dates the document types as plain strings (an offer's settlement_date).
func kindOf(name string, s *openapi3.Schema) kind {
	for _, alt := range s.AnyOf {
		if flat(alt).Type.Is("number") {
			return kindDecimal
		}
	}
	switch {
	case s.Type.Is("number"):
		return kindDecimal
	case s.Type.Is("integer"):
		return kindInteger
	case s.Type.Is("boolean"):
		return kindBool
	case s.Type.Is("array"):
		return kindArray
	case s.Type.Is("object") || len(s.Properties) > 0:
		return kindObject
	case len(s.Enum) > 0:
		return kindEnum
	case s.Type.Is("string") && (strings.HasPrefix(s.Pattern, "^[0-9]{4}-") || s.Format == "date" || s.Format == "date-time" ||
		strings.Contains(name, "date") || name == "valid_until" || name == "maturity" || name == "start" || name == "end"):
		return kindDate
	case s.Type.Is("string"):
		return kindString
	}
	return kindAny
}

// Raw JSON values of each kind of bad input.
var (
	wrongTypes = map[string]string{"string": `"text"`, "number": `1`, "boolean": `true`, "object": `{}`, "array": `[]`, "null": `null`}
	badStrings = []string{`""`, `" "`, `"x\u0000y"`}
	nulLong    = []string{`"\u0000"`, `"` + long + `"`}
	badDates   = []string{`"2026-02-30"`, `"2026-13-01"`, `"tomorrow"`, `"0001-01-01"`, `"9999-12-31"`, `"2026-11-20T25:61:00Z"`, `""`}
	badNumbers = []string{`1e400`, `-0`, `0`, `-1`, `1.0000000000000000000000000001`, `99999999999999999999999999999999999`,
		`1e-400`, `"NaN"`, `"Infinity"`, `"1e400"`, `"99999999999999999999999999999999999"`, `""`}
	badIntegers = []string{`1.5`, `2147483648`, `9223372036854775807`, `-9223372036854775808`}
)

// badValues are the raw JSON values probed for a property of kind k. The
// first property of a shape in an object gets every wrong JSON type and
// every odd string; the others, which the same code reads, one wrong type
// and a NUL. Dates and numbers keep their values each: what a field means
// decides what an extreme date or number does.
func badValues(k kind, first bool) []string {
	own := map[kind]string{kindString: "string", kindEnum: "string", kindDate: "string", kindDecimal: "number",
		kindInteger: "number", kindBool: "boolean", kindArray: "array", kindObject: "object"}[k]
	var out []string
	for _, typ := range []string{"string", "number", "boolean", "object", "array", "null"} {
		if typ != own && (first || typ == "object") {
			out = append(out, wrongTypes[typ])
		}
	}
	switch k {
	case kindString:
		out = append(out, `"\u0000"`)
		if first {
			out = append(out, append(badStrings, `"`+long+`"`)...)
		}
	case kindEnum:
		out = append(out, `"bogus"`)
		if first {
			out = append(out, append(slices.Clone(nulLong), `""`)...)
		}
	case kindDate:
		out = append(out, badDates...)
		if first {
			out = append(out, nulLong...)
		}
	case kindDecimal:
		out = append(out, badNumbers...)
	case kindInteger:
		out = append(out, append(slices.Clone(badNumbers), badIntegers...)...)
	case kindBool:
		if first {
			out = append(out, `"true"`, `0`)
		}
	case kindAny:
		out = []string{`{}`, `"` + long + `"`}
	}
	return out
}

// mutation is a body with one property replaced.
type mutation struct {
	what string
	body map[string]any
	nul  bool // the value holds a NUL character
	want int  // the status the document promises for the value, if one
}

// impossibleDates are the bad dates no calendar has.
var impossibleDates = []string{`"2026-02-30"`, `"2026-13-01"`, `"tomorrow"`, `"2026-11-20T25:61:00Z"`}

// valueWant is the status the document promises for the raw JSON value
// val of a property of kind k and schema sc (0: none in particular): 400
// for a date no calendar has, an amount past its documented maximum and a
// text longer than its maxLength.
func valueWant(k kind, sc *openapi3.Schema, val string) int {
	switch {
	case k == kindDate && slices.Contains(impossibleDates, val):
		return http.StatusBadRequest
	case k == kindDecimal && strings.Trim(val, `"`) == "99999999999999999999999999999999999" && bounded(sc):
		return http.StatusBadRequest
	case k == kindString && sc.MaxLength != nil && val == `"`+long+`"` && uint64(len(long)) > *sc.MaxLength:
		return http.StatusBadRequest
	}
	return 0
}

// bounded reports whether a decimal's number form has a maximum (an
// AmountInput).
func bounded(sc *openapi3.Schema) bool {
	for _, alt := range sc.AnyOf {
		if a := flat(alt); a.Type.Is("number") && a.Max != nil {
			return true
		}
	}
	return false
}

// isIDFilter reports whether a query parameter filters a list by a
// record's id.
func isIDFilter(p *openapi3.Parameter) bool {
	return strings.HasSuffix(p.Name, "_id") || flat(p.Schema).Format == "uuid"
}

// idFilterWant is the answer to a list filtered by the id val: 400 when it
// is not a UUID, 404 when it names no record firm 0 (the participant
// callers' firm) can see; "" does not filter.
func (s *sweep) idFilterWant(as who, val string) int {
	switch {
	case val == "":
		return 0
	case !venue.ValidID(val):
		return http.StatusBadRequest
	case strings.EqualFold(val, missingID), as.participant() && (val == s.v.participant(3) || val == s.v.account(3)):
		return http.StatusNotFound
	}
	return 0
}

// bodyMutations replaces each property of the schema, in a valid body from
// base, by each bad value of its kind; at the top level (depth 0) an
// object property's own properties are replaced the same way, and so are
// the properties of an array's object items. A property gets the full set
// of values the first time the sweep meets its schema (operations share
// schemas) and the first time the operation meets its shape.
func (s *sweep) bodyMutations(schema *openapi3.Schema, base func() map[string]any, shapes map[string]int, depth int) []mutation {
	var out []mutation
	with := func(name string, val any) map[string]any {
		b := maps.Clone(base())
		b[name] = val
		return b
	}
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		ref := schema.Properties[name]
		prop := flat(ref)
		k := kindOf(name, prop)
		shape := fmt.Sprint(k, prop.Pattern, prop.Format, prop.Enum)
		shapes[shape]++
		first := shapes[shape] == 1 && !s.seen[ref]
		s.seen[ref] = true
		for _, val := range badValues(k, first) {
			out = append(out, mutation{fmt.Sprintf("%s=%.40s", name, val), with(name, json.RawMessage(val)), strings.Contains(val, `\u0000`),
				valueWant(k, prop, val)})
		}
		if depth > 0 {
			continue
		}
		switch k {
		case kindObject:
			inner := func() map[string]any {
				if m, ok := base()[name].(map[string]any); ok {
					return m
				}
				return map[string]any{}
			}
			for _, m := range s.bodyMutations(prop, inner, shapes, depth+1) {
				out = append(out, mutation{name + "." + m.what, with(name, m.body), m.nul, m.want})
			}
		case kindArray:
			item := flat(prop.Items)
			for _, val := range []string{`[null]`, `[1]`, `[""]`, `["x"]`, `["\u0000"]`, `[{}]`, `[[]]`,
				`[` + strings.TrimSuffix(strings.Repeat(`"`+missingID+`",`, 1001), ",") + `]`} {
				out = append(out, mutation{fmt.Sprintf("%s=%.40s", name, val), with(name, json.RawMessage(val)), strings.Contains(val, `\u0000`), 0})
			}
			for _, iname := range slices.Sorted(maps.Keys(item.Properties)) {
				iprop := flat(item.Properties[iname])
				ik := kindOf(iname, iprop)
				for _, val := range badValues(ik, true) {
					out = append(out, mutation{fmt.Sprintf("%s[].%s=%.40s", name, iname, val),
						with(name, json.RawMessage(fmt.Sprintf(`[{%q:%s}]`, iname, val))), strings.Contains(val, `\u0000`), valueWant(ik, iprop, val)})
				}
			}
		}
	}
	return out
}

// goodQueryValue is a valid value of a query parameter.
func goodQueryValue(p *openapi3.Parameter) string {
	if p.Example != nil {
		return fmt.Sprint(p.Example)
	}
	s := flat(p.Schema)
	switch {
	case s.Example != nil:
		return fmt.Sprint(s.Example)
	case s.Min != nil:
		return fmt.Sprint(*s.Min)
	case len(s.Enum) > 0:
		return fmt.Sprint(s.Enum[0])
	case kindOf(p.Name, s) == kindDate:
		return "2026-11-24"
	case kindOf(p.Name, s) == kindInteger:
		return "1"
	}
	return "x"
}

// badQueryValues are the bad values probed for a query parameter: all of
// them, or, for a parameter of the document's components that an earlier
// operation was probed with (the same code reads it), the first three of
// its kind and a NUL.
func (s *sweep) badQueryValues(prm *openapi3.ParameterRef) []string {
	p, sc := prm.Value, flat(prm.Value.Schema)
	var special []string
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	switch kind := kindOf(p.Name, sc); {
	case p.Name == "cursor":
		special = []string{"AAAA", enc("\xff"), "!!!", enc(missingID), enc(long[:65]), enc(s.v.participant(3))}
	case sc.Pattern == `^-?[0-9]+(\.[0-9]+)?$`: // decimal text
		special = []string{"NaN", "1e400", "99999999999999999999999999999999999", "Infinity", "-1", "0", "-0",
			"1.0000000000000000000000000001", "abc"}
	case kind == kindInteger:
		special = []string{"abc", "-1", "1e9", "0", "1000000000", "1.5", "99999999999999999999", "-9223372036854775808"}
	case kind == kindDate:
		special = []string{"2026-02-30", "9999-12-31", "tomorrow", "2026-13-01", "0001-01-01", "2026-11-20T25:61:00Z"}
	case kind == kindEnum:
		special = []string{"bogus", strings.ToUpper(fmt.Sprint(sc.Enum[0]))}
	case kind == kindBool:
		special = []string{"yes", "1", "TRUE"}
	case strings.HasSuffix(p.Name, "_id") || sc.Format == "uuid":
		special = []string{"x", missingID, strings.ToUpper(missingID), s.v.participant(3), s.v.account(3)}
	default:
		special = []string{"x", "-1"}
	}
	if prm.Ref != "" && s.seen[prm.Ref] {
		return append(special[:min(3, len(special))], "\x00")
	}
	s.seen[prm.Ref] = true
	return append([]string{"", "\x00", "\xff", long, "' OR '1'='1"}, special...)
}
