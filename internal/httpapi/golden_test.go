package httpapi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// noGolden are the routes whose success body is not a JSON wire format:
// their tests assert on the body directly.
var noGolden = map[string]string{
	"GET /readyz":                "names the engine, which differs between runs",
	"GET /metrics":               "Prometheus text",
	"GET /api/v1/openapi.json":   "the document itself",
	"GET /api/v1/asyncapi.json":  "a document, checked by TestAsyncAPI",
	"GET /api/v1/fix/dictionary": "a document, checked by internal/fix/spec's tests and TestFIXDictionary",
	"GET /docs":                  "HTML",
	"POST /internal/v1/commands": "between instances, tested by internal/fix's TestStandbySession",
	"GET /docs/":                 "static assets",
	"GET /{$}":                   "the web app's page, tested by internal/webui",
	"GET /assets/":               "the web app's files, tested by internal/webui",
	"GET /favicon.svg":           "the web app's icon",
	"/":                          "has no success",
}

// TestGoldenCoverage fails when a route of routes.go has no golden file of
// a successful answer, so a new route cannot go without its wire format
// pinned down.
func TestGoldenCoverage(t *testing.T) {
	if *update {
		t.Skip("golden files are being rewritten")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files (%v)", err)
	}
	type golden struct {
		Request string `json:"request"`
		Status  int    `json:"status"`
	}
	var goldens []golden
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		goldens = append(goldens, g)
	}
	param := regexp.MustCompile(`\\\{[^}]+\\\}`) // a {name} after QuoteMeta
	for _, rt := range routes(t) {
		key := strings.TrimSpace(rt.method + " " + rt.path)
		if _, skip := noGolden[key]; skip {
			continue
		}
		// A path parameter matches one segment of the recorded request.
		re := regexp.MustCompile("^" + rt.method + " " + param.ReplaceAllString(regexp.QuoteMeta(rt.path), `[^/?]+`) + `(\?.*)?$`)
		ok := false
		for _, g := range goldens {
			ok = ok || (g.Status < 300 && re.MatchString(g.Request))
		}
		if !ok {
			t.Errorf("route %s has no golden file of a successful answer", key)
		}
	}
}
