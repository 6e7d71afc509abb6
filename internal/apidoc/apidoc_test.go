package apidoc

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// public are the operations that take no bearer token.
var public = map[string]bool{
	"getHealth":           true,
	"getReadiness":        true,
	"getMetrics":          true,
	"getOpenAPIDocument":  true,
	"getAsyncAPIDocument": true,
	"getFixDictionary":    true,
	"getDocs":             true,
	"getDocsAsset":        true,
	"getWebApp":           true,
	"getWebAppAsset":      true,
	"getWebAppIcon":       true,
	"issueToken":          true,
}

var allRoles = []string{"VENUE_OPERATOR", "PARTICIPANT_ADMIN", "PARTICIPANT_TRADER", "PARTICIPANT_VIEWER"}

// apiErrors are the failure statuses every /api/v1 operation lists.
var apiErrors = []string{"400", "401", "403", "404", "413", "429", "502"}

type operation struct {
	method, path string
	op           *openapi3.Operation
}

func operations(t *testing.T, doc *openapi3.T) []operation {
	t.Helper()
	var ops []operation
	for _, p := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		for method, op := range doc.Paths.Value(p).Operations() {
			ops = append(ops, operation{method, p, op})
		}
	}
	if len(ops) == 0 {
		t.Fatal("document has no operations")
	}
	return ops
}

func TestLoad(t *testing.T) {
	doc, err := Load()
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	// Load returns a fresh document each time, so callers may modify theirs.
	doc2, err := Load()
	if err != nil {
		t.Fatalf("Load() again = %v", err)
	}
	if doc == doc2 {
		t.Error("Load() returned the same document twice")
	}
}

func TestOperations(t *testing.T) {
	doc, err := Load()
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	seen := map[string]string{}
	for _, o := range operations(t, doc) {
		name := o.method + " " + o.path
		id := o.op.OperationID
		t.Run(name, func(t *testing.T) {
			if id == "" {
				t.Fatal("no operationId")
			}
			if prev, dup := seen[id]; dup {
				t.Errorf("operationId %s also used by %s", id, prev)
			}
			seen[id] = name

			security := doc.Security
			if o.op.Security != nil {
				security = *o.op.Security
			}
			switch {
			case id == "issueToken":
				// Credentials in the body (no scheme) or as HTTP Basic.
				if len(security) != 2 || len(security[0]) != 0 || security[1]["basicAuth"] == nil {
					t.Errorf("security = %v, want [{} {basicAuth: []}]", security)
				}
			case public[id]:
				if len(security) != 0 {
					t.Errorf("security = %v, want none", security)
				}
			default:
				if len(security) != 1 || security[0]["bearerAuth"] == nil {
					t.Errorf("security = %v, want bearerAuth", security)
				}
				roles := xRoles(t, o.op)
				if len(roles) == 0 {
					t.Error("no x-roles")
				}
				for _, r := range roles {
					if !slices.Contains(allRoles, r) {
						t.Errorf("x-roles has unknown role %q", r)
					}
				}
				if want := "Roles: " + strings.Join(roles, ", ") + "."; !strings.Contains(o.op.Description, want) {
					t.Errorf("description does not say %q", want)
				}
			}

			if strings.HasPrefix(o.path, "/api/v1/") && id != "getOpenAPIDocument" && id != "getAsyncAPIDocument" &&
				id != "getFixDictionary" {
				for _, status := range apiErrors {
					assertErrorResponse(t, o.op, status)
				}
				if ra := o.op.Responses.Value("429"); ra != nil && ra.Value.Headers["Retry-After"] == nil {
					t.Error("429 without Retry-After header")
				}
			}

			write := o.method == http.MethodPost || o.method == http.MethodPut || o.method == http.MethodDelete
			if write && id != "issueToken" && id != "renewToken" { // a token is never kept for a retry
				assertErrorResponse(t, o.op, "409")
				assertErrorResponse(t, o.op, "422")
				if o.op.Parameters.GetByInAndName("header", "Idempotency-Key") == nil {
					t.Error("no Idempotency-Key header parameter")
				}
			}

			// listRiskLimits answers the firm's three limits, a fixed list
			// that is not paged; getInstrumentOHLC a window of at most 1000
			// intervals that from and to move; getTape the latest trades up
			// to limit, a snapshot that the stream extends, never paged back;
			// listExecutionRecords a period of at most 31 days that from and to
			// choose, exported whole (as CSV too); listPositions one row per
			// instrument and account the firm has traded, folded from all its
			// trades at once; getLastTrades one row per book that has traded.
			if o.method == http.MethodGet && returnsArray(o.op) && id != "listRiskLimits" && id != "getInstrumentOHLC" && id != "getTape" &&
				id != "listExecutionRecords" && id != "listPositions" && id != "getLastTrades" {
				cursor := "cursor"
				if id == "listEvents" || id == "adminAuditLog" {
					cursor = "after" // the event log and the audit trail page by sequence number
				}
				for _, q := range []string{"limit", cursor} {
					if o.op.Parameters.GetByInAndName("query", q) == nil {
						t.Errorf("list without %q query parameter", q)
					}
				}
				if o.op.Responses.Value("200").Value.Headers["Link"] == nil {
					t.Error("list without Link header")
				}
			}
		})
	}
}

func xRoles(t *testing.T, op *openapi3.Operation) []string {
	t.Helper()
	raw, ok := op.Extensions["x-roles"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatalf("x-roles: %v", err)
	}
	var roles []string
	if err := json.Unmarshal(b, &roles); err != nil {
		t.Fatalf("x-roles = %s, want a list of strings", b)
	}
	return roles
}

func assertErrorResponse(t *testing.T, op *openapi3.Operation, status string) {
	t.Helper()
	r := op.Responses.Value(status)
	if r == nil {
		t.Errorf("no %s response", status)
		return
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/Error" {
		t.Errorf("%s response does not use the Error schema", status)
	}
}

func returnsArray(op *openapi3.Operation) bool {
	r := op.Responses.Value("200")
	if r == nil {
		return false
	}
	mt := r.Value.Content.Get("application/json")
	return mt != nil && mt.Schema != nil && mt.Schema.Value.Type.Is("array")
}

// TestNoClosedRequestBodies keeps the promise that unknown fields in a
// request body are ignored: no request schema may forbid additional
// properties.
func TestNoClosedRequestBodies(t *testing.T) {
	doc, err := Load()
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	seen := map[*openapi3.Schema]bool{}
	var walk func(name string, s *openapi3.SchemaRef)
	walk = func(name string, s *openapi3.SchemaRef) {
		if s == nil || s.Value == nil || seen[s.Value] {
			return
		}
		v := s.Value
		seen[v] = true
		if v.AdditionalProperties.Has != nil && !*v.AdditionalProperties.Has {
			t.Errorf("%s sets additionalProperties: false", name)
		}
		for _, p := range slices.Sorted(maps.Keys(v.Properties)) {
			walk(name+"."+p, v.Properties[p])
		}
		for _, group := range [][]*openapi3.SchemaRef{v.AllOf, v.AnyOf, v.OneOf} {
			for _, ps := range group {
				walk(name, ps)
			}
		}
		walk(name+"[]", v.Items)
	}
	for _, o := range operations(t, doc) {
		if o.op.RequestBody == nil {
			continue
		}
		for ct, mt := range o.op.RequestBody.Value.Content {
			walk(o.op.OperationID+" "+ct, mt.Schema)
		}
	}
}

// TestNoOutsideURLs keeps /docs free of outside calls.
func TestNoOutsideURLs(t *testing.T) {
	url := regexp.MustCompile(`(?i)https?://`)
	for _, name := range []string{"swaggerui/index.html", "swaggerui/swagger-initializer.js"} {
		b, err := assets.ReadFile(name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if m := url.Find(b); m != nil {
			t.Errorf("%s contains an outside URL (%q)", name, m)
		}
	}
	js, err := assets.ReadFile("swaggerui/swagger-initializer.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`url: "/api/v1/openapi.json"`, `validatorUrl: "none"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("swagger-initializer.js does not contain %s", want)
		}
	}
}

func TestHandler(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("NewValidator() = %v", err)
	}
	h := Handler()
	tests := []struct {
		path        string
		wantStatus  int
		wantType    string
		wantContain []string
	}{
		{"/api/v1/openapi.json", 200, "application/json", []string{`"openapi":"3.0.3"`, `"/api/v1/participants"`}},
		{"/api/v1/asyncapi.json", 200, "application/json", []string{`"asyncapi":"3.0.0"`, `"address":"/offers"`}},
		{"/docs", 200, "text/html; charset=utf-8", []string{`src="/docs/swagger-ui-bundle.js"`, `src="/docs/swagger-initializer.js"`, `href="/docs/swagger-ui.css"`}},
		{"/docs/swagger-ui.css", 200, "text/css; charset=utf-8", []string{".swagger-ui"}},
		{"/docs/swagger-ui-bundle.js", 200, "text/javascript; charset=utf-8", []string{"SwaggerUIBundle"}},
		{"/docs/swagger-initializer.js", 200, "text/javascript; charset=utf-8", []string{"/api/v1/openapi.json"}},
		{"/docs/nope.js", 404, "application/json", []string{`"statusCode":404`}},
		{"/docs/LICENSE", 404, "application/json", []string{`"statusCode":404`}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("GET %s status = %d, want %d", tt.path, res.StatusCode, tt.wantStatus)
			}
			if got := res.Header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("GET %s Content-Type = %q, want %q", tt.path, got, tt.wantType)
			}
			for _, want := range tt.wantContain {
				if !strings.Contains(string(body), want) {
					t.Errorf("GET %s body does not contain %s", tt.path, want)
				}
			}
			if err := v.Check(req, res.StatusCode, res.Header, body); err != nil {
				t.Errorf("Check() = %v", err)
			}
		})
	}

	t.Run("document is valid JSON", func(t *testing.T) {
		b, err := JSON()
		if err != nil {
			t.Fatalf("JSON() = %v", err)
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(b)
		if err != nil {
			t.Fatalf("load JSON(): %v", err)
		}
		if err := doc.Validate(loader.Context); err != nil {
			t.Errorf("JSON() does not validate: %v", err)
		}
	})

	t.Run("not modified", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, DocumentPath, nil))
		etag := rec.Header().Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		req := httptest.NewRequest(http.MethodGet, DocumentPath, nil)
		req.Header.Set("If-None-Match", etag)
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified {
			t.Errorf("conditional GET status = %d, want 304", rec.Code)
		}
	})

	t.Run("trailing slash", func(t *testing.T) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/docs/", nil))
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/docs" {
			t.Errorf("GET /docs/ = %d to %q, want 301 to /docs", rec.Code, rec.Header().Get("Location"))
		}
	})
}

const (
	uuid1 = "0192f1a4-8c3e-7a51-9b2d-3f4e5a6b7c8d"
	uuid2 = "0192f1a4-8c3e-7a51-9b2d-3f4e5a6b7c8e"
	ts    = "2026-11-20T14:48:00.000Z"
)

var market = `{"id":"` + uuid1 + `","name":"Continuous EUR","type":"secondary",
	"facility_type":"continues-matching","timezone":"UTC","is_enabled":true,
	"is_partial_fill_allowed":true,"settlement_lag":2,"settlement_lags":[{"from":"2027-10-11","lag":1}],"calendar":"TARGET2",
	"price_collar_percent":"10","max_price_percent":"200",
	"createdAt":"` + ts + `","updatedAt":"` + ts + `"}`

var errorBody = `{"id":"` + uuid1 + `","timestamp":"` + ts + `","statusCode":404,
	"message":"Record Not Found","error":"market not found","path":"/api/v1/markets/x"}`

// instrument returns an instrument record with the fields common to every
// variant, the ones given in extra added or replaced.
func instrument(t *testing.T, extra map[string]any) string {
	t.Helper()
	m := map[string]any{
		"id": uuid1, "name": "Bundesrepublik Deutschland 2.5% 2035", "type": "Fixed",
		"precision": 4, "subunits_config": 0, "enabled": true, "visibility": true,
		"transaction_fees_approved": false, "withdraw_fee": 0, "min_withdraw_fee": 0,
		"max_withdraw_fee": 0, "state": "BLANK", "isin": "DE0001102580", "coupon": "2.5",
		"coupon_frequency": "Annual", "day_count": "ACT/ACT ICMA", "maturity": "Invalid date",
		"currency": "EUR", "rank": "Senior", "lei": nil,
		"interest_accrual_date": "2025-02-15", "first_coupon_date": "2026-02-15",
		"createdAt": ts, "updatedAt": ts,
		"instrument_limits": map[string]any{
			"ask": []any{map[string]any{
				"limit": 99.5, "quantity": 1000000, "participant_id": uuid2,
				"participant_name": "Nordbank AG", "participant_lei": "529900T8BM49AURSDO55",
				"offer_id": uuid1, "is_counterparty_enabled": true, "is_executable": true,
				"is_market_order": false, "is_offer": true,
			}},
			"bid": []any{map[string]any{
				"limit": "-", "quantity": "-", "participant_id": nil, "participant_name": nil,
				"participant_lei": nil, "offer_id": nil, "is_counterparty_enabled": false,
				"is_executable": false, "is_market_order": false, "is_offer": false,
			}},
		},
	}
	for _, f := range []string{"icon_url", "contract_config", "fee_limit_config",
		"minimal_collection_amount", "max_withdrawal_amount", "balance", "buyer_primary_fee",
		"buyer_secondary_fee", "seller_primary_fee", "seller_secondary_fee", "product_page_url",
		"repayment_enabled", "terms_url", "issuer_participant_id"} {
		m[f] = nil
	}
	for _, f := range []string{"industry", "mkt_iss", "country_region", "secured", "repayment",
		"series", "coupon_type", "issue_price", "bid_limit", "ask_limit", "ask_quantity", "reoffer",
		"iss_sprd", "benchmark_ref_px", "benchmark_ref_yield", "irs_yield", "iss_sprd_vs_irs",
		"amt_issue", "amt_outstanding", "book_runner", "exchange", "note", "issuer",
		"unit_quotation", "pricing_date", "first_settle_date"} {
		m[f] = "Undisclosed"
	}
	maps.Copy(m, extra)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func staticData() map[string]any {
	m := map[string]any{}
	for _, f := range []string{"ticker", "iss_type", "collateral_type", "pay_rank", "day_type",
		"maturity_type", "security_type", "figi", "estimated_ratings", "issue_amt", "per_amt",
		"min_piece_increment", "refunding_date", "tax_rate", "settlement_days",
		"settlement_calendar", "issuer_name", "original_par_amt"} {
		m[f] = "Undisclosed"
	}
	for _, f := range []string{"unit_traded", "flat_traded", "cash_priced", "bval_enabled", "allow_negative_cashflow"} {
		m[f] = false
	}
	return m
}

// participant returns a full participant record, the fields in extra added
// or replaced.
func participant(t *testing.T, extra map[string]any) string {
	t.Helper()
	m := map[string]any{
		"id": uuid1, "lei": "529900T8BM49AURSDO55", "type": "legal_entity",
		"category_name": "professional", "name": "Nordbank AG", "address": "Am Hafen 1",
		"postal_code": "20457", "city": "Hamburg", "state": "", "country": "DE",
		"legal_form": "AG", "registration_number": "HRB 1", "tax_number": "", "status": "active",
		"kyc_status": "successful", "csd": "Clearstream", "csd_bic_11": "DAKVDEFFXXX",
		"custody_account_number": "7001", "custody_account_beneficiary_bic_8": "NORBDEHH",
		"default_settlement_provider_id": nil, "createdAt": ts, "updatedAt": ts,
	}
	maps.Copy(m, extra)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidatorCheck(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("NewValidator() = %v", err)
	}
	jsonHeader := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	listItem := instrument(t, map[string]any{"min_piece": "1000", "min_increment": "1000", "par_amount": "1000"})
	bucket := `{"id":"` + uuid2 + `","name":"EUR govies","type":"private","participant_id":"` + uuid1 + `",
		"is_enabled":true,"createdAt":"` + ts + `","updatedAt":"` + ts + `","instruments":[` + listItem + `]}`
	detail := func(extra map[string]any) string {
		m := map[string]any{"min_piece": 1000, "min_increment": 1000, "par_amount": 1000,
			"static_data": staticData(), "buckets": []any{}, "markets": []any{json.RawMessage(market)}}
		maps.Copy(m, extra)
		return instrument(t, m)
	}
	account := `{"id":"` + uuid2 + `","number":"ACC-1","status":"active","type":"agent","participant":null,
		"participant_id":"` + uuid1 + `","default_settlement_provider_id":null,
		"createdAt":"` + ts + `","updatedAt":"` + ts + `"}`
	user := `{"id":"` + uuid2 + `","email":"trader@nordbank.example","role":"PARTICIPANT_TRADER",
		"is_email_verified":true,"identification_status":"successful","is_login_two_fa_enabled":false,
		"terms_conditions_signed":false,"terms_conditions_signed_at":null,"last_active":"` + ts + `",
		"status":"active","locale":"en","participant_id":"` + uuid1 + `","createdAt":"` + ts + `",
		"updatedAt":"` + ts + `","profiles":[],"phones":[],"accounts":[` + account + `],"participant":null}`
	withRelations := participant(t, map[string]any{
		"accounts": []any{json.RawMessage(account)}, "users": []any{json.RawMessage(user)},
		"buckets": []any{}, "markets": []any{json.RawMessage(market)}, "serviceaccounts": []any{},
		"risk_limits": []any{map[string]any{"id": uuid2, "name": "MAX_OFFER", "value": 5e6, "createdAt": ts, "updatedAt": ts}},
		"counterparties": []any{map[string]any{"id": uuid2, "lei": "5299000J2N45DDNE4Y28", "name": "Südbank AG",
			"type": "legal_entity", "category_name": "wholesale", "country": "DE", "status": "active"}},
	})
	tests := []struct {
		name    string
		method  string
		path    string
		status  int
		header  http.Header
		body    string
		wantErr string // substring of the error; empty: valid
	}{
		{name: "market list", method: "GET", path: "/api/v1/markets?limit=10", status: 200,
			header: jsonHeader, body: `[` + market + `]`},
		{name: "market missing required field", method: "GET", path: "/api/v1/markets", status: 200,
			header: jsonHeader, body: `[` + strings.Replace(market, `"facility_type":"continues-matching",`, "", 1) + `]`,
			wantErr: `property "facility_type" is missing`},
		{name: "market with unknown enum value", method: "GET", path: "/api/v1/markets/" + uuid1, status: 200,
			header: jsonHeader, body: strings.Replace(market, `"continues-matching"`, `"auction"`, 1),
			wantErr: "not one of the allowed values"},
		{name: "timestamp without milliseconds", method: "GET", path: "/api/v1/markets/" + uuid1, status: 200,
			header: jsonHeader, body: strings.Replace(market, `"createdAt":"`+ts, `"createdAt":"2026-11-20T14:48:00Z`, 1),
			wantErr: "createdAt"},
		{name: "undocumented status", method: "GET", path: "/api/v1/markets", status: 418,
			header: jsonHeader, body: `[]`, wantErr: "status is not supported"},
		{name: "unknown path", method: "GET", path: "/api/v1/nope", status: 200,
			header: jsonHeader, body: `{}`, wantErr: "undocumented operation"},
		{name: "undocumented method", method: "DELETE", path: "/api/v1/markets", status: 200,
			header: jsonHeader, body: `[]`, wantErr: "undocumented operation"},
		{name: "wrong content type", method: "GET", path: "/api/v1/markets", status: 200,
			header: http.Header{"Content-Type": {"text/plain"}}, body: `[]`, wantErr: "Content-Type"},
		{name: "error body", method: "GET", path: "/api/v1/markets/" + uuid1, status: 404,
			header: jsonHeader, body: errorBody},
		{name: "error body with malformed id", method: "GET", path: "/api/v1/markets/" + uuid1, status: 404,
			header: jsonHeader, body: strings.Replace(errorBody, uuid1, "42", 1), wantErr: "uuid"},
		{name: "429 with Retry-After", method: "GET", path: "/api/v1/news", status: 429,
			header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"3"}},
			body:   strings.Replace(errorBody, "404", "429", 1)},
		{name: "429 without Retry-After", method: "GET", path: "/api/v1/news", status: 429,
			header: jsonHeader, body: strings.Replace(errorBody, "404", "429", 1), wantErr: "Retry-After"},
		{name: "token", method: "POST", path: "/api/v1/auth/token", status: 200, header: jsonHeader,
			body: `{"access_token":"dGhpcyBpcyBvcGFxdWU","token_type":"Bearer","expires_in":900}`},
		{name: "token with string expiry", method: "POST", path: "/api/v1/auth/token", status: 200, header: jsonHeader,
			body: `{"access_token":"x","token_type":"Bearer","expires_in":"900"}`, wantErr: "expires_in"},
		{name: "counterparty view of a participant", method: "GET", path: "/api/v1/participants/" + uuid2,
			status: 200, header: jsonHeader,
			body: `{"id":"` + uuid2 + `","lei":"529900T8BM49AURSDO55","name":"Nordbank AG","type":"legal_entity",
				"category_name":"professional","country":"DE","status":"active"}`},
		{name: "own participant", method: "GET", path: "/api/v1/participants/" + uuid1,
			status: 200, header: jsonHeader, body: participant(t, nil)},
		{name: "own participant missing a field", method: "GET", path: "/api/v1/participants/" + uuid1,
			status: 200, header: jsonHeader, body: strings.Replace(participant(t, nil), `"tax_number":"",`, "", 1),
			wantErr: "doesn't match"},
		{name: "participants list", method: "GET", path: "/api/v1/participants", status: 200,
			header: jsonHeader, body: "[" + withRelations + "]"},
		{name: "participants list without nested arrays", method: "GET", path: "/api/v1/participants", status: 200,
			header: jsonHeader, body: "[" + participant(t, nil) + "]", wantErr: "accounts"},
		{name: "account with its participant", method: "GET", path: "/api/v1/accounts/" + uuid2, status: 200,
			header: jsonHeader, body: strings.Replace(account, `"participant":null`, `"participant":`+participant(t, nil), 1)},
		{name: "user with a bad role", method: "GET", path: "/api/v1/users/" + uuid2, status: 200,
			header: jsonHeader, body: strings.Replace(user, "PARTICIPANT_TRADER", "TRADER", 1), wantErr: "role"},
		{name: "counterparty view leaking a private field", method: "GET", path: "/api/v1/participants/" + uuid2,
			status: 200, header: jsonHeader,
			body: `{"id":"` + uuid2 + `","lei":"529900T8BM49AURSDO55","name":"Nordbank AG","type":"legal_entity",
				"category_name":"professional","country":"DE","status":"active","tax_number":"DE123"}`,
			wantErr: "doesn't match"},
		{name: "credentials issued", method: "POST", path: "/api/v1/admin/users/" + uuid1 + "/credentials",
			status: 200, header: jsonHeader,
			body: `{"client_id":"bv_abc","client_secret":"s3cr3t","user_id":"` + uuid1 + `","createdAt":"` + ts + `","revoked_at":null}`},
		{name: "credentials listed", method: "GET", path: "/api/v1/admin/users/" + uuid1 + "/credentials",
			status: 200, header: jsonHeader,
			body: `[{"client_id":"bv_abc","user_id":"` + uuid1 + `","createdAt":"` + ts + `","revoked_at":"` + ts + `"}]`},
		{name: "credentials listed with the secret", method: "GET", path: "/api/v1/admin/users/" + uuid1 + "/credentials",
			status: 200, header: jsonHeader,
			body:    `[{"client_id":"bv_abc","client_secret":"s3cr3t","user_id":"` + uuid1 + `","createdAt":"` + ts + `","revoked_at":null}]`,
			wantErr: "doesn't match"},
		{name: "bucket created", method: "POST", path: "/api/v1/participant/buckets", status: 202,
			header: jsonHeader, body: bucket},
		{name: "bucket created answers 200", method: "POST", path: "/api/v1/participant/buckets", status: 200,
			header: jsonHeader, body: bucket, wantErr: "status is not supported"},
		{name: "bucket instrument with numeric sizes", method: "GET", path: "/api/v1/participant/buckets/" + uuid2,
			status: 200, header: jsonHeader, body: strings.Replace(bucket, `"min_piece":"1000"`, `"min_piece":1000`, 1),
			wantErr: "min_piece"},
		{name: "instrument detail", method: "GET", path: "/api/v1/instruments/" + uuid1 + "?market_depth=5",
			status: 200, header: jsonHeader, body: detail(nil)},
		{name: "instrument detail with text sizes", method: "GET", path: "/api/v1/instruments/" + uuid1,
			status: 200, header: jsonHeader, body: detail(map[string]any{"par_amount": "1000"}), wantErr: "par_amount"},
		{name: "instrument detail without static data", method: "GET", path: "/api/v1/instruments/" + uuid1,
			status: 200, header: jsonHeader, body: detail(map[string]any{"static_data": nil}), wantErr: "static_data"},
		{name: "settlement date", method: "GET", path: "/api/v1/calendars/TARGET2/settlement-date?trade_date=2026-11-20",
			status: 200, header: jsonHeader,
			body: `{"calendar":"TARGET2","trade_date":"2026-11-20","lag":2,"settlement_date":"2026-11-24"}`},
		{name: "accrued interest as a number", method: "POST", path: "/api/v1/analytics/accrued-interest",
			status: 200, header: jsonHeader,
			body: `{"accrued_days":278,"year_fraction":"0.7616438356","previous_coupon_date":"2026-02-15",
				"next_coupon_date":"2027-02-15","accrued_interest_per_100":1.904,"accrued_interest":"1.904"}`,
			wantErr: "accrued_interest_per_100"},
		{name: "readiness failing", method: "GET", path: "/readyz", status: 503, header: jsonHeader,
			body: `{"id":"01a1fe7d-ae9e-74e2-809c-e2bd221cc63a","timestamp":"2026-11-20T14:48:00.000Z","statusCode":503,
				"message":"Service Unavailable","error":"not ready: database unavailable, engine running","path":"/readyz",
				"status":"unavailable","engine":"sqlite","checks":{"database":"unavailable","engine":"running"}}`},
		{name: "readiness failing without the error body", method: "GET", path: "/readyz", status: 503, header: jsonHeader,
			body: `{"status":"unavailable","checks":{"database":"unavailable"}}`, wantErr: "id"},
		{name: "metrics", method: "GET", path: "/metrics", status: 200,
			header: http.Header{"Content-Type": {"text/plain; version=0.0.4; charset=utf-8"}},
			body:   "# HELP up 1\nup 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			err := v.Check(req, tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("Check() = nil, want an error containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Check() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestValidatorCheckRequest(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("NewValidator() = %v", err)
	}
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		wantErr     bool
	}{
		{"bucket as clients send it", "POST", "/api/v1/participant/buckets", "application/json",
			`{"id":null,"name":"Mine","type":"private","is_enabled":true,"unknown_field":1,
			"instruments":[{"id":"` + uuid1 + `","book_runner":"Undisclosed","exchange":null,"instrument_limits":{"ask":[],"bid":[]}}]}`, false},
		{"bucket without name", "POST", "/api/v1/participant/buckets", "application/json",
			`{"instruments":[{"id":"` + uuid1 + `"}]}`, true},
		{"bucket update", "PUT", "/api/v1/participant/buckets/" + uuid1, "application/json",
			`{"entity":{"instruments":[{"id":"` + uuid1 + `"}]}}`, false},
		{"token, form-encoded", "POST", "/api/v1/auth/token", "application/x-www-form-urlencoded",
			`grant_type=client_credentials&client_id=abc&client_secret=def`, false},
		{"token, wrong grant", "POST", "/api/v1/auth/token", "application/json",
			`{"grant_type":"password"}`, true},
		{"price with numeric strings", "POST", "/api/v1/analytics/price", "application/json",
			`{"day_count":"30E/360","coupon":"4.25","frequency":"Annual","accrual_start":"2025-03-01",
			"maturity":"2030-03-01","settlement_date":"2026-11-24 00:00:00","yield":3.1}`, false},
		{"price with a bad decimal", "POST", "/api/v1/analytics/price", "application/json",
			`{"day_count":"30E/360","coupon":"4,25","frequency":"Annual","accrual_start":"2025-03-01",
			"maturity":"2030-03-01","settlement_date":"2026-11-24","yield":3.1}`, true},
		{"list with a limit too large", "GET", "/api/v1/markets?limit=5000", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			err := v.CheckRequest(req, []byte(tt.body))
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Errorf("CheckRequest() = %v, want error: %v", err, tt.wantErr)
			}
		})
	}
}
