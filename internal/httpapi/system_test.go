package httpapi_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// testSystem covers the operational routes, the documentation, unmatched
// routes and the request size limit.
func testSystem(t *testing.T, v *env) {
	v.runAll(t, []call{
		{name: "healthz", as: anon, method: "GET", path: "/healthz", want: 200},
		{name: "unknown_route", as: viewer(0), method: "GET", path: "/api/v1/nowhere", want: 404},
		{as: anon, method: "GET", path: "/api/v1/nowhere", want: 404},
		{name: "method_not_allowed", as: viewer(0), method: "DELETE", path: "/api/v1/markets", want: 405},
		{as: anon, method: "PUT", path: "/api/v1/auth/token", want: 405},
		{as: admin(0), method: "POST", path: "/api/v1/participants/" + v.participant(0), want: 405},
		{as: anon, method: "GET", path: "/docs/missing.js", want: 404}, // real-time timestamp: no golden
	})

	t.Run("readyz", func(t *testing.T) {
		r := v.get(t, anon, "/readyz", http.StatusOK)
		if got := r.object(t); got["status"] != "ok" || got["engine"] != string(v.engine) {
			t.Errorf("readyz = %v, want status ok on %s", got, v.engine)
		}
	})

	t.Run("405 lists the allowed methods", func(t *testing.T) {
		r := v.do(t, admin(0), "PATCH", "/api/v1/participant/buckets/"+missingID, raw(`{}`), nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, PUT, DELETE" {
			t.Errorf("PATCH bucket: %d, Allow %q, want 405 with GET, PUT, DELETE", r.status, r.header.Get("Allow"))
		}
	})

	t.Run("metrics", func(t *testing.T) {
		v.get(t, viewer(0), "/api/v1/participants", http.StatusOK)
		r := v.get(t, anon, "/metrics", http.StatusOK)
		if !strings.Contains(string(r.body), "bondvenue_http_requests_total") {
			t.Errorf("metrics lack bondvenue_http_requests_total:\n%.500s", r.body)
		}
		if !strings.Contains(string(r.body), `route="GET /api/v1/participants"`) {
			t.Error("metrics do not label requests by route pattern")
		}
	})

	t.Run("openapi document", func(t *testing.T) {
		r := v.get(t, anon, "/api/v1/openapi.json", http.StatusOK)
		var doc struct {
			OpenAPI string                    `json:"openapi"`
			Paths   map[string]map[string]any `json:"paths"`
		}
		r.decode(t, &doc)
		if doc.OpenAPI != "3.0.3" {
			t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
		}
		for _, rt := range routes(t) {
			if rt.path == "/" {
				continue
			}
			p := documentedPath(rt.path)
			if _, ok := doc.Paths[p][strings.ToLower(rt.method)]; !ok && !undocumented[rt.method+" "+rt.path] {
				t.Errorf("route %s %s is not in the served document", rt.method, rt.path)
			}
		}
	})

	t.Run("docs", func(t *testing.T) {
		r := v.get(t, anon, "/docs", http.StatusOK)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("docs Content-Type = %q, want text/html", ct)
		}
		if strings.Contains(string(r.body), "https://") && strings.Contains(string(r.body), "<script src=\"http") {
			t.Error("docs page loads scripts from outside")
		}
		v.get(t, anon, "/docs/swagger-ui.css", http.StatusOK)
		v.get(t, anon, "/docs/swagger-initializer.js", http.StatusOK)
	})

	t.Run("web app", func(t *testing.T) {
		page := v.get(t, viewer(0), "/", http.StatusOK)
		if ct := page.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET /: Content-Type = %q, want text/html", ct)
		}
		if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET /: Content-Security-Policy = %q, want this origin only", csp)
		}
		script := appAsset(t, v)
		r := v.get(t, anon, script, http.StatusOK)
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("GET %s: Content-Type = %q, want text/javascript", script, ct)
		}
		v.get(t, anon, "/favicon.svg", http.StatusOK)
		// A file the build lacks, and any other path, get the API's 404
		// (the harness checks the error body).
		v.get(t, anon, "/assets/missing.js", http.StatusNotFound)
		v.get(t, anon, "/assets/", http.StatusNotFound)
		v.get(t, anon, "/index.html", http.StatusNotFound)
		v.get(t, viewer(0), "/nowhere", http.StatusNotFound)
		v.run(t, call{as: anon, method: "POST", path: "/", want: http.StatusMethodNotAllowed})
		metrics := v.get(t, anon, "/metrics", http.StatusOK)
		if !strings.Contains(string(metrics.body), `route="GET /assets/"`) {
			t.Error("metrics do not count the web app's files under their route pattern")
		}
	})

	t.Run("request id on every answer", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/api/v1/markets", "/api/v1/nowhere"} {
			r := v.do(t, viewer(0), "GET", p, nil, nil)
			if r.header.Get("X-Request-Id") == "" {
				t.Errorf("GET %s: no X-Request-Id", p)
			}
		}
	})
}

// TestBodyLimit: a body over 1 MiB answers 413 on every route that reads
// one.
func testBodyLimit(t *testing.T, v *env) {
	big := raw(`{"name":"` + strings.Repeat("x", 1<<20) + `"}`)
	ins := v.instruments(t)
	v.runAll(t, []call{
		{name: "body_too_large", as: trader(0), method: "POST", path: "/api/v1/participant/buckets", body: big, want: 413},
		{as: trader(0), method: "PUT", path: "/api/v1/participant/buckets/" + missingID, body: big, want: 413},
		{as: anon, method: "POST", path: "/api/v1/auth/token", body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/participants", body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0), body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/accounts", body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/users", body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/users/" + v.user(admin(0)), body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/counterparties", body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/participants/" + v.participant(0) + "/risk-limits/MAX_OFFER", body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/settlement-providers", body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/markets", body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/markets/" + v.markets(t)[0].ID, body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/instruments", body: big, want: 413},
		{as: operator, method: "PUT", path: "/api/v1/admin/instruments/" + ins[0], body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/buckets", body: big, want: 413},
		{as: operator, method: "POST", path: "/api/v1/admin/news", body: big, want: 413},
	})
	t.Run("just under the limit is read", func(t *testing.T) {
		// 1 MiB of JSON whose only field is unknown: read, then rejected
		// for what it lacks, not for its size.
		pad := strings.Repeat("x", 1<<20-len(`{"pad":""}`))
		r := v.do(t, trader(0), "POST", "/api/v1/participant/buckets", raw(`{"pad":"`+pad+`"}`), nil)
		if r.status != http.StatusBadRequest {
			t.Errorf("1 MiB body: status %d, want 400", r.status)
		}
	})
}

// route is one route of routes.go.
type route struct{ method, path string }

// documentedPath turns a ServeMux pattern path into the document's path.
func documentedPath(p string) string {
	switch p {
	case "/docs/":
		return "/docs/{asset}"
	case "/assets/":
		return "/assets/{asset}"
	case "/{$}":
		return "/"
	}
	return p
}

// appAsset is the path of the web app's script, as its page loads it.
func appAsset(t *testing.T, v *env) string {
	t.Helper()
	page := v.get(t, anon, "/", http.StatusOK)
	m := regexp.MustCompile(`src="(/assets/[^"]+\.js)"`).FindStringSubmatch(string(page.body))
	if m == nil {
		t.Fatalf("the web app's page loads no script from /assets/:\n%s", page.body)
	}
	return m[1]
}

// TestEngineMetrics checks that /metrics counts the sequencer's batches,
// commands and commit time.
func TestEngineMetrics(t *testing.T) {
	fresh(t, func(t *testing.T, v *env) {
		counter := func(body []byte, name string) float64 {
			for line := range strings.Lines(string(body)) {
				if v, ok := strings.CutPrefix(line, name+" "); ok {
					f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					if err != nil {
						t.Fatalf("%s = %q: %v", name, v, err)
					}
					return f
				}
			}
			t.Fatalf("metrics lack %s", name)
			return 0
		}
		before := v.get(t, anon, "/metrics", http.StatusOK).body
		book := ""
		for _, m := range v.markets(t) {
			if m.FacilityType == venue.FacilityContinuous && m.Hours == nil {
				book = m.ID
			}
		}
		v.do(t, trader(0), "POST", "/api/v1/participant/offers", map[string]any{"instrument_id": v.instruments(t)[0],
			"market_id": book, "direction": "bid", "price_per_unit": "1.5", "quantity": 1000000, "validity": "gtc"}, nil)
		after := v.get(t, anon, "/metrics", http.StatusOK).body
		for _, name := range []string{"bondvenue_engine_commands_total", "bondvenue_engine_batches_total"} {
			if b, a := counter(before, name), counter(after, name); a < b+1 {
				t.Errorf("%s went from %v to %v over an offer entry, want +1 or more", name, b, a)
			}
		}
		if counter(after, "bondvenue_engine_batches_total") > counter(after, "bondvenue_engine_commands_total") {
			t.Error("more engine batches than commands")
		}
		if counter(after, "bondvenue_engine_batch_seconds_total") <= 0 {
			t.Error("bondvenue_engine_batch_seconds_total is not positive after a batch")
		}
	})
}
