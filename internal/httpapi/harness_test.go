package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cmp"

	"github.com/bondvenue/bondvenue/internal/apidoc"
	"github.com/bondvenue/bondvenue/internal/demo"
	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/getkin/kin-openapi/openapi3"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// This file is the harness of the HTTP tests: a demo venue per engine
// behind the real server and transport, a client that gets tokens through
// POST /api/v1/auth/token and checks every response against the OpenAPI
// document, and golden files.

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// pinned is the instant every test venue's clock reads, so timestamps in
// golden files are stable.
var pinned = time.Date(2026, 11, 20, 14, 48, 0, 0, time.UTC)

// who names a caller: a demo firm's user of a role, the operator, or
// nobody (no token).
type who struct {
	firm int // participant index in the demo credentials; -1 for the operator
	role venue.Role
}

var (
	operator = who{firm: -1, role: venue.RoleOperator}
	anon     = who{firm: -1}
)

func admin(i int) who  { return who{i, venue.RoleAdmin} }
func trader(i int) who { return who{i, venue.RoleTrader} }
func viewer(i int) who { return who{i, venue.RoleViewer} }

func (w who) String() string {
	switch {
	case w.role == "":
		return "anonymous"
	case w.firm < 0:
		return "operator"
	}
	return fmt.Sprintf("p%d-%s", w.firm, strings.ToLower(strings.TrimPrefix(string(w.role), "PARTICIPANT_")))
}

func (w who) participant() bool { return w.role != "" && w.firm >= 0 }

// options tune a test venue's server.
type options struct {
	rateLimit      float64 // the service's requests per second per credential; default effectively unlimited
	rateBurst      int
	tokenRateLimit float64 // token grants per second per address; default effectively unlimited
	tokenRateBurst int
	tokenTTL       time.Duration
	clock          httpapi.Clock        // the clock's part of /healthz (none by default)
	latency        httpapi.Latency      // the order-entry latency's recorder (none by default)
	registry       *prometheus.Registry // /metrics (a private one by default)
}

func (o options) server(now func() time.Time) httpapi.Config {
	if o.tokenRateLimit == 0 {
		o.tokenRateLimit, o.tokenRateBurst = 1e9, 1e9
	}
	return httpapi.Config{Logger: slog.New(slog.DiscardHandler), Now: now, Registry: o.registry,
		TokenRateLimit: o.tokenRateLimit, TokenRateBurst: o.tokenRateBurst}
}

// service is the part of o that configures the service.
func (o options) service(now func() time.Time) testenv.Config {
	if o.rateLimit == 0 {
		o.rateLimit, o.rateBurst = 1e9, 1e9
	}
	return testenv.Config{Trading: trading.Config{Now: now, Logger: slog.New(slog.DiscardHandler),
		RateLimit: o.rateLimit, RateBurst: o.rateBurst}, TokenTTL: o.tokenTTL}
}

// env is a demo venue on one engine served over real HTTP.
type env struct {
	engine store.Engine
	core   *testenv.Venue
	svc    *trading.Service
	srv    *httptest.Server
	clock  *testenv.Clock
	creds  demo.Credentials
	http   *http.Client
	db     *store.DB

	mu     sync.Mutex
	tokens map[who]string
	owners map[string]owner // id → its owner, see ownerOf
}

// newEnv builds a fresh demo venue on engine e.
func newEnv(t *testing.T, e store.Engine, o options) *env {
	t.Helper()
	clk := testenv.NewClock(pinned)
	db := testenv.Open(t, e)
	core, creds := testenv.Demo(t, db, o.service(clk.Now))
	v := &env{engine: e, core: core, svc: core.Svc, db: db, clock: clk, creds: creds, tokens: map[who]string{}, owners: map[string]owner{}}
	v.serve(t, o)
	// Every demo user signs in first, so last_active reads the same
	// whatever order the tests run in.
	for _, w := range everyone {
		v.token(t, w)
	}
	return v
}

// serve starts the HTTP server of v.
func (v *env) serve(t *testing.T, o options) {
	t.Helper()
	ts := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: v.svc, Live: v.core.Live, Cluster: v.core.Cluster, Engine: v.core.Sequencer, Keys: v.core.Keys, Access: v.core.Access, Records: v.core.Records, Positions: v.core.Positions,
		Clock: o.clock, Latency: o.latency}, o.server(v.clock.Now)).Handler())
	t.Cleanup(ts.Close)
	v.srv = ts
	v.http = ts.Client()
	v.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
}

// withServer returns v behind a second server with other options (its own
// rate limits); tokens are the venue's and carry over.
func (v *env) withServer(t *testing.T, o options) *env {
	t.Helper()
	v.mu.Lock()
	tokens := maps.Clone(v.tokens)
	v.mu.Unlock()
	w := &env{engine: v.engine, core: v.core, svc: v.svc, db: v.db, clock: v.clock, creds: v.creds, tokens: tokens, owners: map[string]owner{}}
	w.serve(t, o)
	return w
}

// everyone lists every demo user.
var everyone = func() []who {
	out := []who{operator}
	for i := range 4 {
		out = append(out, admin(i), trader(i), viewer(i))
	}
	return out
}()

// shared runs fn once per engine on one demo venue that fn must not change.
// The engines run in parallel; so do the tests that call shared or fresh.
func shared(t *testing.T, fn func(t *testing.T, v *env)) {
	t.Parallel()
	testenv.ForEach(t, func(t *testing.T, e store.Engine) {
		t.Parallel()
		fn(t, newEnv(t, e, options{}))
	})
}

// fresh runs fn per engine on a new demo venue that fn may change.
func fresh(t *testing.T, fn func(t *testing.T, v *env)) { shared(t, fn) }

// --- demo ids ---

func (v *env) participant(i int) string { return v.creds.Participants[i].ID }
func (v *env) account(i int) string     { return v.creds.Participants[i].AccountIDs[0] }

// accountsListed are firm i's accounts as lists show them, newest first.
func (v *env) accountsListed(i int) []string {
	out := slices.Clone(v.creds.Participants[i].AccountIDs)
	slices.Reverse(out)
	return out
}

func (v *env) userCred(w who) demo.UserCred {
	if w.firm < 0 {
		return v.creds.Operator
	}
	for _, u := range v.creds.Participants[w.firm].Users {
		if u.Role == string(w.role) {
			return u
		}
	}
	panic("no demo user " + w.String())
}

func (v *env) user(w who) string { return v.userCred(w).UserID }

// principal is w as the service sees it, for setting up state directly.
func (v *env) principal(w who) venue.Principal {
	if w.firm < 0 {
		return trading.System
	}
	return venue.Principal{UserID: v.user(w), ParticipantID: v.participant(w.firm), Role: w.role}
}

// provider returns firm i's demo settlement provider (its default).
func (v *env) provider(t *testing.T, i int) string {
	t.Helper()
	l, err := v.svc.SettlementProviders(context.Background(), v.principal(admin(i)), trading.ProviderFilter{}, venue.Page{})
	if err != nil || len(l.Items) == 0 {
		t.Fatalf("SettlementProviders(%d) = %v, %v", i, l, err)
	}
	return l.Items[len(l.Items)-1].ID // the oldest: the demo's
}

func (v *env) publicBucket(t *testing.T) string {
	t.Helper()
	l, err := v.svc.Buckets(context.Background(), trading.System, trading.BucketFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range l.Items {
		if b.Type == venue.BucketPublic {
			return b.ID
		}
	}
	t.Fatal("no public bucket")
	return ""
}

func (v *env) markets(t *testing.T) []venue.Market {
	t.Helper()
	l, err := v.svc.Markets(context.Background(), trading.System, trading.MarketFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// instruments returns the demo instrument ids, oldest first.
func (v *env) instruments(t *testing.T) []string {
	t.Helper()
	l, err := v.svc.Instruments(context.Background(), trading.System, trading.InstrumentFilter{}, venue.Page{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := len(l.Items) - 1; i >= 0; i-- {
		ids = append(ids, l.Items[i].ID)
	}
	return ids
}

// privateBucket creates a private bucket of w's firm directly through the
// service.
func (v *env) privateBucket(t *testing.T, w who, name string) string {
	t.Helper()
	ids := v.instruments(t)[:2]
	b, err := v.svc.CreateBucket(context.Background(), v.principal(w), trading.BucketInput{Name: &name, InstrumentIDs: &ids})
	if err != nil {
		t.Fatalf("CreateBucket(%s) = %v", w, err)
	}
	return b.ID
}

// --- tokens ---

// signInAgain forgets w's access token: the next request signs in anew
// (after the clock moved past the token's expiry).
func (v *env) signInAgain(w who) {
	v.mu.Lock()
	delete(v.tokens, w)
	v.mu.Unlock()
}

// token returns an access token for w, obtained once through the token
// endpoint.
func (v *env) token(t *testing.T, w who) string {
	t.Helper()
	v.mu.Lock()
	tok, ok := v.tokens[w]
	v.mu.Unlock()
	if ok {
		return tok
	}
	u := v.userCred(w)
	r := v.do(t, anon, "POST", "/api/v1/auth/token", map[string]string{
		"grant_type": "client_credentials", "client_id": u.ClientID, "client_secret": u.ClientSecret}, nil)
	if r.status != http.StatusOK {
		t.Fatalf("token for %s: status %d: %s", w, r.status, r.body)
	}
	var body struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(t, &body)
	v.mu.Lock()
	v.tokens[w] = body.AccessToken
	v.mu.Unlock()
	return body.AccessToken
}

// --- requests ---

// response is one answer as the client saw it.
type response struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

func (r *response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%s %s: decode %T: %v\n%s", r.req.Method, r.req.URL, v, err, r.body)
	}
}

// object decodes a JSON object body.
func (r *response) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// array decodes a JSON array-of-objects body.
func (r *response) array(t *testing.T) []map[string]any {
	t.Helper()
	var a []map[string]any
	r.decode(t, &a)
	return a
}

// raw is a request body sent as is.
type raw string

// do sends one request as w through the real transport and checks the
// answer: against the OpenAPI document, the error-body contract, and that a
// participant never receives another firm's ids. body is nil, raw, or a
// value encoded as JSON.
func (v *env) do(t *testing.T, w who, method, path string, body any, header map[string]string) *response {
	t.Helper()
	var b []byte
	switch x := body.(type) {
	case nil:
	case raw:
		b = []byte(x)
	case []byte:
		b = x
	default:
		var err error
		if b, err = json.Marshal(x); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, v.srv.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if w.role != "" {
		req.Header.Set("Authorization", "Bearer "+v.token(t, w))
	}
	for k, val := range header {
		if val == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, val)
		}
	}
	res, err := v.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	r := &response{req: req, status: res.StatusCode, header: res.Header, body: got}
	checkDocument(t, r)
	if r.status >= 400 {
		checkErrorBody(t, r)
	}
	if w.participant() {
		v.checkNoForeignIDs(t, w, r, b)
	}
	return r
}

// --- checks every response goes through ---

var (
	validator = sync.OnceValues(apidoc.NewValidator)
	document  = sync.OnceValues(apidoc.Load)
)

// undocumented lists the routes of routes.go the OpenAPI document does not
// describe yet. Their answers skip the document check (error answers still
// must carry the Error body); everything else about them is tested. A
// route listed here that the document gains fails TestDocumentCoverage, so
// the list only shrinks. The endpoint between instances is not part of the
// API and stays out of the document.
var undocumented = map[string]bool{"POST /internal/v1/commands": true}

// undocumentedRoute reports whether req is for a route in undocumented.
func undocumentedRoute(req *http.Request) bool {
	for key := range undocumented {
		method, pattern, _ := strings.Cut(key, " ")
		re := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(pattern), `[^/]+`) + "$"
		if method == req.Method && regexp.MustCompile(re).MatchString(req.URL.Path) {
			return true
		}
	}
	return false
}

// checkDocument validates the answer against the OpenAPI document. An
// answer to a path the document does not have (the unmatched-route 404 and
// 405, the routes in undocumented) must still carry the documented Error
// body when it is an error.
func checkDocument(t *testing.T, r *response) {
	t.Helper()
	val, err := validator()
	if err != nil {
		t.Fatalf("apidoc.NewValidator() = %v", err)
	}
	err = val.Check(r.req, r.status, r.header, r.body)
	if err == nil {
		return
	}
	if strings.Contains(err.Error(), "undocumented operation") &&
		(r.status == http.StatusNotFound || r.status == http.StatusMethodNotAllowed || undocumentedRoute(r.req)) {
		if r.status >= 400 {
			checkSchema(t, r, "Error")
		}
		return
	}
	t.Errorf("response does not match the OpenAPI document: %v\nbody: %.2000s", err, r.body)
}

// checkSchema validates the body against one component schema.
func checkSchema(t *testing.T, r *response, name string) {
	t.Helper()
	doc, err := document()
	if err != nil {
		t.Fatal(err)
	}
	var body any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Errorf("%s %s: body is not JSON: %v", r.req.Method, r.req.URL.Path, err)
		return
	}
	if err := doc.Components.Schemas[name].Value.VisitJSON(body, openapi3.VisitAsResponse(),
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562))); err != nil {
		t.Errorf("%s %s: body does not match schema %s: %v", r.req.Method, r.req.URL.Path, name, err)
	}
}

// checkErrorBody asserts the error contract of docs/guide.md, "Conventions", directly: JSON, an id
// that is a UUID equal to X-Request-Id, statusCode equal to the status, and
// the request path.
func checkErrorBody(t *testing.T, r *response) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s -> %d: Content-Type = %q, want application/json", r.req.Method, r.req.URL.Path, r.status, ct)
	}
	var e struct {
		ID         string `json:"id"`
		Timestamp  string `json:"timestamp"`
		StatusCode int    `json:"statusCode"`
		Message    string `json:"message"`
		Error      string `json:"error"`
		Path       string `json:"path"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Errorf("%s %s -> %d: error body: %v", r.req.Method, r.req.URL.Path, r.status, err)
		return
	}
	if _, err := uuid.Parse(e.ID); err != nil || e.ID != r.header.Get("X-Request-Id") {
		t.Errorf("error id = %q, want a UUID equal to X-Request-Id %q", e.ID, r.header.Get("X-Request-Id"))
	}
	if e.StatusCode != r.status {
		t.Errorf("error statusCode = %d, want %d", e.StatusCode, r.status)
	}
	if e.Path != r.req.URL.Path {
		t.Errorf("error path = %q, want %q", e.Path, r.req.URL.Path)
	}
	if e.Message == "" || e.Error == "" {
		t.Errorf("error message = %q, error = %q, want both set", e.Message, e.Error)
	}
	if _, err := time.Parse(venue.TimestampLayout, e.Timestamp); err != nil {
		t.Errorf("error timestamp = %q, want ISO 8601 UTC with milliseconds", e.Timestamp)
	}
}

// owner says who owns a record an id names.
type owner struct {
	participant bool   // the id is a participant's own id
	firm        string // the owning participant; "" for shared records, "operator" for the operator's
}

// ownerOf classifies an id (a UUID or a client id) once; ownership never
// changes, so the answer is kept.
func (v *env) ownerOf(t *testing.T, id string) owner {
	t.Helper()
	v.mu.Lock()
	o, ok := v.owners[id]
	v.mu.Unlock()
	if ok {
		return o
	}
	ctx := context.Background()
	err := v.db.View(ctx, func(tx *store.Tx) error {
		if strings.HasPrefix(id, "bv_") {
			c, err := tx.Credential(ctx, id)
			if err != nil {
				return nil
			}
			u, err := tx.User(ctx, c.UserID)
			if err != nil {
				return err
			}
			o = owner{firm: cmp.Or(u.ParticipantID, "operator")}
			return nil
		}
		if _, err := tx.Participant(ctx, id); err == nil {
			o = owner{participant: true, firm: id}
		} else if a, err := tx.Account(ctx, id); err == nil {
			o = owner{firm: a.ParticipantID}
		} else if u, err := tx.User(ctx, id); err == nil {
			o = owner{firm: cmp.Or(u.ParticipantID, "operator")}
		} else if b, err := tx.Bucket(ctx, id); err == nil {
			o = owner{firm: b.ParticipantID}
		} else if sp, err := tx.SettlementProvider(ctx, id); err == nil {
			o = owner{firm: sp.ParticipantID}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("classify %s: %v", id, err)
	}
	v.mu.Lock()
	v.owners[id] = o
	v.mu.Unlock()
	return o
}

// foreignIDs returns the ids in a participant's answer that it must never
// receive: ids of another firm's private records (accounts, users, private
// buckets, settlement providers, credentials), of the operator's, and of
// firms that are not its counterparties. Ids the caller sent itself (echoed
// in error paths) and the request id do not count.
func (v *env) foreignIDs(t *testing.T, w who, r *response, reqBody []byte) []string {
	t.Helper()
	sent := r.req.URL.String() + string(reqBody) + r.header.Get("X-Request-Id")
	self := v.participant(w.firm)
	var cpty map[string]bool
	var out []string
	asked := askedFirms(r.body, self)
	found := append(uuidRE.FindAllString(string(r.body), -1), clientIDRE.FindAllString(string(r.body), -1)...)
	for _, id := range found {
		if strings.Contains(sent, id) || asked[id] {
			continue
		}
		o := v.ownerOf(t, id)
		switch {
		case o.firm == "" || o.firm == self:
			continue
		case o.participant:
			if cpty == nil {
				cpty = v.counterparties(t, self)
			}
			if cpty[id] {
				continue
			}
		}
		out = append(out, id)
	}
	return out
}

// askedFirms returns the recipients of the caller's own RFQs in an answer:
// the firms it sent them to stay in the record after a relation is
// disabled.
func askedFirms(body []byte, self string) map[string]bool {
	out := map[string]bool{}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if cs, ok := x["counterparties"].([]any); ok && x["participant_id"] == self {
				for _, c := range cs {
					if id, ok := c.(string); ok {
						out[id] = true
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	var doc any
	if json.Unmarshal(body, &doc) == nil {
		walk(doc)
	}
	return out
}

// checkNoForeignIDs fails when a participant's answer carries a foreign id.
func (v *env) checkNoForeignIDs(t *testing.T, w who, r *response, reqBody []byte) {
	t.Helper()
	for _, id := range v.foreignIDs(t, w, r, reqBody) {
		t.Errorf("%s %s as %s: answer carries foreign id %s (of %s)\n%.1000s", r.req.Method, r.req.URL.Path, w, id, v.ownerOf(t, id).firm, r.body)
	}
}

func (v *env) counterparties(t *testing.T, participant string) map[string]bool {
	t.Helper()
	var ids []string
	ctx := context.Background()
	if err := v.db.View(ctx, func(tx *store.Tx) error {
		var err error
		ids, err = tx.Counterparties(ctx, participant)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// --- golden files ---

var (
	uuidRE     = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	clientIDRE = regexp.MustCompile(`bv_[A-Za-z0-9_-]{16}`)
	secretRE   = regexp.MustCompile(`"(access_token|client_secret)":"[^"]*"`)
	cursorRE   = regexp.MustCompile(`cursor=([A-Za-z0-9_-]+)`)
	ticRE      = regexp.MustCompile(`BV[0-9A-F]{32}`) // a transaction identification code: BV + the trade id's hex
)

// normalizer replaces volatile values with placeholders numbered by first
// appearance.
// sha256RE matches a SHA-256 in hex (the audit trail's hashes, which
// hash the random ids).
var sha256RE = regexp.MustCompile(`\b[0-9a-f]{64}\b`)

type normalizer struct {
	seen map[string]string
	n    map[string]int
}

func (n *normalizer) placeholder(kind, v string) string {
	if p, ok := n.seen[v]; ok {
		return p
	}
	n.n[kind]++
	p := fmt.Sprintf("<%s-%d>", kind, n.n[kind])
	n.seen[v] = p
	return p
}

func (n *normalizer) text(s string) string {
	s = secretRE.ReplaceAllString(s, `"$1":"<$1>"`)
	s = ticRE.ReplaceAllStringFunc(s, func(m string) string {
		h := strings.ToLower(m[2:])
		return "BV" + n.placeholder("uuid", h[:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:])
	})
	s = uuidRE.ReplaceAllStringFunc(s, func(m string) string { return n.placeholder("uuid", strings.ToLower(m)) })
	s = sha256RE.ReplaceAllStringFunc(s, func(m string) string { return n.placeholder("sha256", m) })
	return clientIDRE.ReplaceAllStringFunc(s, func(m string) string { return n.placeholder("client-id", m) })
}

// link normalises a Link header, whose cursor encodes a record id.
func (n *normalizer) link(s string) string {
	s = cursorRE.ReplaceAllStringFunc(s, func(m string) string {
		c := strings.TrimPrefix(m, "cursor=")
		if id, err := base64.RawURLEncoding.DecodeString(c); err == nil && uuidRE.Match(id) {
			return "cursor=" + n.text(string(id))
		}
		return "cursor=<cursor>"
	})
	return n.text(s)
}

// goldenHeaders are the response headers recorded in golden files.
var goldenHeaders = []string{"Allow", "Cache-Control", "Content-Type", "Link", "Retry-After", "WWW-Authenticate"}

// render turns a response into its golden text.
func render(t *testing.T, r *response) []byte {
	t.Helper()
	n := &normalizer{seen: map[string]string{}, n: map[string]int{}}
	target := r.req.URL.Path
	if r.req.URL.RawQuery != "" {
		target += "?" + r.req.URL.RawQuery
	}
	request := n.text(r.req.Method + " " + target)
	var body bytes.Buffer
	ct := r.header.Get("Content-Type")
	switch {
	case len(r.body) > 0 && (strings.HasPrefix(ct, "text/csv") || strings.HasPrefix(ct, "application/x-ndjson")):
		// A text body is kept as its lines, normalized like the rest.
		lines, err := json.MarshalIndent(strings.Split(n.text(string(r.body)), "\n"), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		body.Write(lines)
	case len(r.body) > 0:
		if err := json.Indent(&body, []byte(n.text(string(r.body))), "", "  "); err != nil {
			t.Fatalf("golden body is not JSON: %v\n%s", err, r.body)
		}
	default:
		body.WriteString("null")
	}
	headers := map[string]string{}
	for _, h := range goldenHeaders {
		if val := r.header.Get(h); val != "" {
			if h == "Link" {
				val = n.link(val)
			}
			headers[h] = val
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Request string            `json:"request"`
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	}{request, r.status, headers, body.Bytes()}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// updated records the golden files written in this run, so that with
// -update the first engine writes a file and the second is compared with
// it: one golden per name must hold on both engines.
var (
	updatedMu sync.Mutex
	updated   = map[string]store.Engine{}
)

// golden compares r with testdata/<name>.golden.
func (v *env) golden(t *testing.T, name string, r *response) {
	t.Helper()
	got := render(t, r)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		// Held until the file is written, so the other engine reads it whole.
		updatedMu.Lock()
		e, done := updated[name]
		if done && e == v.engine {
			updatedMu.Unlock()
			t.Fatalf("golden %s written twice on %s: names must be unique", name, e)
		}
		if !done {
			updated[name] = v.engine
			err := os.MkdirAll("testdata", 0o755)
			if err == nil {
				err = os.WriteFile(path, got, 0o644)
			}
			updatedMu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		updatedMu.Unlock()
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/httpapi -update)", err)
	}
	if diff := gocmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s on %s differs from %s (-want +got):\n%s", r.req.Method+" "+r.req.URL.Path, v.engine, path, diff)
	}
}

// call is one request with its expected status and, when name is set, its
// golden file.
type call struct {
	name   string
	as     who
	method string
	path   string
	body   any
	header map[string]string
	want   int
}

// run sends c, asserts its status and compares its golden file.
func (v *env) run(t *testing.T, c call) *response {
	t.Helper()
	r := v.do(t, c.as, c.method, c.path, c.body, c.header)
	if r.status != c.want {
		t.Errorf("%s %s as %s: status %d, want %d\n%.1500s", c.method, c.path, c.as, r.status, c.want, r.body)
	}
	if c.name != "" {
		v.golden(t, c.name, r)
	}
	return r
}

// runAll runs each call as a subtest named after its golden file (or its
// request).
func (v *env) runAll(t *testing.T, calls []call) {
	t.Helper()
	for _, c := range calls {
		name := c.name
		if name == "" {
			name = c.method + " " + c.path + " as " + c.as.String()
		}
		t.Run(name, func(t *testing.T) { v.run(t, c) })
	}
}

// get is shorthand for a GET expected to answer want.
func (v *env) get(t *testing.T, w who, path string, want int) *response {
	t.Helper()
	return v.run(t, call{as: w, method: "GET", path: path, want: want})
}

// walk follows the Link rel="next" headers from path and returns every
// page's items, checking each page holds at most limit items.
func (v *env) walk(t *testing.T, w who, path string, limit int) (items []map[string]any, pages int) {
	t.Helper()
	next := path
	for next != "" {
		r := v.get(t, w, next, http.StatusOK)
		page := r.array(t)
		if len(page) > limit {
			t.Errorf("GET %s: %d items, want at most %d", next, len(page), limit)
		}
		items = append(items, page...)
		pages++
		next = ""
		if link := r.header.Get("Link"); link != "" {
			m := regexp.MustCompile(`^<([^>]+)>; rel="next"$`).FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("Link = %q, want <…>; rel=\"next\"", link)
			}
			u, err := url.Parse(m[1])
			if err != nil || u.Query().Get("cursor") == "" || u.Query().Get("limit") == "" {
				t.Fatalf("Link target %q lacks cursor and limit", m[1])
			}
			next = m[1]
		}
		if pages > 1000 {
			t.Fatal("pagination does not end")
		}
	}
	return items, pages
}

// ids returns the "id" of each item.
func ids(items []map[string]any) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, _ := it["id"].(string)
		out = append(out, s)
	}
	return out
}

// missingID is a well-formed id no record has.
const missingID = "0192f1a4-8c3e-7a51-9b2d-3f4e5a6b7c8d"

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
