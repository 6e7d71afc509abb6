package webui_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bondvenue/bondvenue/internal/httpapi"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/webui"
)

// get sends one request to webui.Handler.
func get(t *testing.T, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	webui.Handler().ServeHTTP(rec, req)
	return rec
}

// checkSecurityHeaders asserts the headers every answer carries.
func checkSecurityHeaders(t *testing.T, path string, h http.Header) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
			"font-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("GET %s: %s = %q, want %q", path, name, got, want)
		}
	}
}

// builtFile reads a file of the committed build.
func builtFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("dist", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assets lists the built files under dist/assets as URL paths.
func assets(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("dist", "assets", "*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no built assets in dist/assets (%v): npm run build --prefix web", err)
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, "/assets/"+filepath.Base(n))
	}
	return out
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip.NewReader: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

func TestIndex(t *testing.T) {
	rec := get(t, "/", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", rec.Code)
	}
	h := rec.Header()
	checkSecurityHeaders(t, "/", h)
	if got := h.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q, want text/html; charset=utf-8", got)
	}
	if got := h.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control = %q, want no-cache", got)
	}
	if h.Get("ETag") == "" {
		t.Error("no ETag")
	}
	if h.Get("Content-Encoding") != "" {
		t.Errorf("Content-Encoding = %q without Accept-Encoding", h.Get("Content-Encoding"))
	}
	if !bytes.Equal(rec.Body.Bytes(), builtFile(t, "index.html")) {
		t.Error("GET / is not dist/index.html")
	}
}

// TestIndexReferencesBuiltFiles: every file the page loads is served.
func TestIndexReferencesBuiltFiles(t *testing.T) {
	refs := regexp.MustCompile(`(?:src|href)="(/[^"]*)"`).FindAllStringSubmatch(string(builtFile(t, "index.html")), -1)
	if len(refs) == 0 {
		t.Fatal("index.html references no file")
	}
	for _, m := range refs {
		if rec := get(t, m[1], nil); rec.Code != http.StatusOK {
			t.Errorf("index.html loads %s, which answers %d", m[1], rec.Code)
		}
	}
}

func TestAssets(t *testing.T) {
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
	for _, p := range assets(t) {
		t.Run(p, func(t *testing.T) {
			want := builtFile(t, strings.TrimPrefix(p, "/"))
			plain := get(t, p, nil)
			if plain.Code != http.StatusOK {
				t.Fatalf("GET %s = %d, want 200", p, plain.Code)
			}
			h := plain.Header()
			checkSecurityHeaders(t, p, h)
			if ct, ok := types[filepath.Ext(p)]; ok && h.Get("Content-Type") != ct {
				t.Errorf("Content-Type = %q, want %q", h.Get("Content-Type"), ct)
			}
			if got := h.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control = %q, want public, max-age=31536000, immutable", got)
			}
			if !bytes.Equal(plain.Body.Bytes(), want) {
				t.Errorf("GET %s without gzip: body differs from the built file", p)
			}

			zipped := get(t, p, map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
			zh := zipped.Header()
			if zipped.Code != http.StatusOK || zh.Get("Content-Encoding") != "gzip" {
				t.Fatalf("GET %s accepting gzip = %d, Content-Encoding %q, want 200 gzip", p, zipped.Code, zh.Get("Content-Encoding"))
			}
			if zh.Get("Vary") != "Accept-Encoding" || h.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary = %q (gzip), %q (plain), want Accept-Encoding on both", zh.Get("Vary"), h.Get("Vary"))
			}
			if zh.Get("Content-Type") != h.Get("Content-Type") || zh.Get("Cache-Control") != h.Get("Cache-Control") {
				t.Errorf("gzip answer: Content-Type %q, Cache-Control %q; want those of the plain answer", zh.Get("Content-Type"), zh.Get("Cache-Control"))
			}
			if zh.Get("ETag") == h.Get("ETag") {
				t.Error("the gzip copy has the plain file's ETag; another representation needs its own")
			}
			if zipped.Body.Len() >= len(want) {
				t.Errorf("gzip copy is %d bytes, the file %d", zipped.Body.Len(), len(want))
			}
			if !bytes.Equal(gunzip(t, zipped.Body.Bytes()), want) {
				t.Error("the gzip copy does not gunzip to the built file")
			}
			// Compressed once: every answer is the same bytes.
			if again := get(t, p, map[string]string{"Accept-Encoding": "gzip"}); !bytes.Equal(again.Body.Bytes(), zipped.Body.Bytes()) {
				t.Error("two gzip answers differ")
			}
			if refused := get(t, p, map[string]string{"Accept-Encoding": "gzip;q=0, identity"}); refused.Header().Get("Content-Encoding") != "" {
				t.Error("gzip;q=0 got a gzip answer")
			}
		})
	}
}

func TestFavicon(t *testing.T) {
	rec := get(t, "/favicon.svg", map[string]string{"Accept-Encoding": "gzip"})
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /favicon.svg = %d, want 200", rec.Code)
	}
	h := rec.Header()
	checkSecurityHeaders(t, "/favicon.svg", h)
	if h.Get("Content-Type") != "image/svg+xml" || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("Content-Type %q, Cache-Control %q, want image/svg+xml, no-cache", h.Get("Content-Type"), h.Get("Cache-Control"))
	}
	body := rec.Body.Bytes()
	if h.Get("Content-Encoding") == "gzip" {
		body = gunzip(t, body)
	}
	if !bytes.Equal(body, builtFile(t, "favicon.svg")) {
		t.Error("GET /favicon.svg is not dist/favicon.svg")
	}
}

func TestNotModified(t *testing.T) {
	for _, p := range append([]string{"/", "/favicon.svg"}, assets(t)...) {
		for _, enc := range []string{"", "gzip"} {
			first := get(t, p, map[string]string{"Accept-Encoding": enc})
			etag := first.Header().Get("ETag")
			if !regexp.MustCompile(`^"[0-9a-f]{32}(-gzip)?"$`).MatchString(etag) {
				t.Errorf("GET %s (%q): ETag = %q, want a strong content hash", p, enc, etag)
				continue
			}
			for _, inm := range []string{etag, "W/" + etag, `"stale", ` + etag, "*"} {
				rec := get(t, p, map[string]string{"Accept-Encoding": enc, "If-None-Match": inm})
				if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
					t.Errorf("GET %s (%q) If-None-Match %s = %d with %d bytes, want 304 and none", p, enc, inm, rec.Code, rec.Body.Len())
				}
				if rec.Header().Get("ETag") != etag || rec.Header().Get("Cache-Control") != first.Header().Get("Cache-Control") {
					t.Errorf("304 of %s: ETag %q, Cache-Control %q, want those of the 200", p, rec.Header().Get("ETag"), rec.Header().Get("Cache-Control"))
				}
				checkSecurityHeaders(t, p, rec.Header())
			}
			if rec := get(t, p, map[string]string{"Accept-Encoding": enc, "If-None-Match": `"stale"`}); rec.Code != http.StatusOK {
				t.Errorf("GET %s If-None-Match of another version = %d, want 200", p, rec.Code)
			}
		}
	}
}

func TestNotFound(t *testing.T) {
	for _, p := range []string{"/assets/nope.js", "/assets/", "/assets/../index.html", "/index.html", "/nope", "/assets/sub/x.js"} {
		rec := get(t, p, nil)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("GET %s: Content-Type %q, want a plain-text 404", p, ct)
		}
		if rec.Header().Get("Cache-Control") != "" {
			t.Errorf("GET %s: a 404 answer says Cache-Control %q", p, rec.Header().Get("Cache-Control"))
		}
		checkSecurityHeaders(t, p, rec.Header())
	}

	rec := httptest.NewRecorder()
	webui.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/assets/nope.js", nil))
	if rec.Code != http.StatusTeapot {
		t.Errorf("NewHandler(notFound): an unknown file answers %d, want notFound's %d", rec.Code, http.StatusTeapot)
	}
	checkSecurityHeaders(t, "/assets/nope.js", rec.Header())

	rec = httptest.NewRecorder()
	webui.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST / = %d, Allow %q, want 405 with GET, HEAD", rec.Code, rec.Header().Get("Allow"))
	}
}

func TestHead(t *testing.T) {
	rec := httptest.NewRecorder()
	webui.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/", nil))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD / = %d with %d bytes, want 200 and none", rec.Code, rec.Body.Len())
	}
	if rec.Header().Get("Content-Length") != strconv.Itoa(len(builtFile(t, "index.html"))) {
		t.Errorf("HEAD /: Content-Length %q, want the page's", rec.Header().Get("Content-Length"))
	}
}

// TestServedByTheVenue goes through the REST adapter's whole handler: the
// app is at /, its files beside it, and every other unknown path still
// gets the API's JSON 404.
func TestServedByTheVenue(t *testing.T) {
	core := testenv.Service(t, store.SQLite, testenv.Config{Trading: trading.Config{Logger: slog.New(slog.DiscardHandler)}})
	svc := core.Svc
	srv := httptest.NewServer(httpapi.New(httpapi.Deps{Trading: svc, Live: core.Live, Cluster: core.Cluster, Engine: core.Sequencer, Keys: core.Keys, Access: core.Access, Records: core.Records}, httpapi.Config{Logger: slog.New(slog.DiscardHandler)}).Handler())
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	fetch := func(method, path string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, body
	}

	res, body := fetch("GET", "/", nil)
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, builtFile(t, "index.html")) {
		t.Errorf("GET / = %d, want 200 with dist/index.html", res.StatusCode)
	}
	checkSecurityHeaders(t, "/", res.Header)
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("GET /: no X-Request-Id; the app's answers go through the adapter's middleware")
	}
	res, body = fetch("GET", "/", map[string]string{"Accept-Encoding": "gzip"})
	if res.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, body), builtFile(t, "index.html")) {
		t.Errorf("GET / accepting gzip: Content-Encoding %q, want gzip of dist/index.html", res.Header.Get("Content-Encoding"))
	}
	for _, p := range append([]string{"/favicon.svg"}, assets(t)...) {
		if res, _ := fetch("GET", p, nil); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", p, res.StatusCode)
		}
	}

	// Everything else is the API's: its JSON error body.
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/api/v1/nope", 404},
		{"GET", "/nope", 404},
		{"GET", "/index.html", 404},
		{"GET", "/assets/nope.js", 404},
		{"GET", "/favicon.ico", 404},
		{"DELETE", "/api/v1/markets", 405},
		{"POST", "/", 405},
	} {
		res, body := fetch(tc.method, tc.path, nil)
		var e struct {
			ID         string `json:"id"`
			StatusCode int    `json:"statusCode"`
			Path       string `json:"path"`
		}
		if res.StatusCode != tc.want || res.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil ||
			e.StatusCode != tc.want || e.Path != tc.path || e.ID != res.Header.Get("X-Request-Id") {
			t.Errorf("%s %s = %d %s %s, want %d with the API's error body", tc.method, tc.path, res.StatusCode,
				res.Header.Get("Content-Type"), body, tc.want)
		}
	}
}
