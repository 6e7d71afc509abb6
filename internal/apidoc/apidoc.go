// Package apidoc owns the OpenAPI document of the bondvenue REST API: the
// embedded source of truth the handlers are written against, the HTTP handler
// that publishes it (JSON and an embedded Swagger UI), and a response
// validator that tests run every handler response through. It also owns
// the AsyncAPI document of the live streams (asyncapi.go), which shares
// the OpenAPI document's record schemas.
//
// The REST reference, docs/rest-interface.md, is rendered from the document
// by package refgen; a test fails when the committed reference is not what
// it makes.
package apidoc

//go:generate go run ./gen

import (
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// specYAML is the OpenAPI 3.0.3 document, edited by hand.
//
//go:embed openapi.yaml
var specYAML []byte

// assets are the files of the /docs page: Swagger UI (swagger-ui-dist
// 5.35.0, Apache-2.0, see swaggerui/LICENSE) plus our own page and
// initializer, which point at /api/v1/openapi.json and make no outside calls.
//
//go:embed swaggerui/index.html swaggerui/swagger-initializer.js swaggerui/swagger-ui-bundle.js swaggerui/swagger-ui.css
var assets embed.FS

// Paths served by Handler.
const (
	DocumentPath = "/api/v1/openapi.json"
	DocsPath     = "/docs"
)

// Load parses the embedded document and validates it. Each call returns a
// fresh document, so callers may modify theirs.
func Load() (*openapi3.T, error) {
	loader := openapi3.NewLoader() // external references stay disallowed
	doc, err := loader.LoadFromData(specYAML)
	if err != nil {
		return nil, fmt.Errorf("load openapi document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate openapi document: %w", err)
	}
	return doc, nil
}

// jsonDoc computes the JSON form of the document once per process.
var jsonDoc = sync.OnceValues(func() ([]byte, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode openapi document: %w", err)
	}
	return b, nil
})

// JSON returns the document as JSON, as served at DocumentPath. The result
// is computed once and shared: callers must not modify it.
func JSON() ([]byte, error) {
	return jsonDoc()
}

// Handler serves the document and its rendered reference:
//
//	GET /api/v1/openapi.json   the document as JSON
//	GET /api/v1/asyncapi.json  the AsyncAPI document of the live streams
//	GET /docs                  the Swagger UI page
//	GET /docs/{asset}          the page's script and style sheet
//
// Mount it on those patterns (for example mux.Handle("GET /docs/", h)). The
// responses need no authentication and are described in the document itself.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DocumentPath, serveDocument)
	mux.HandleFunc("GET "+AsyncAPIPath, serveAsyncAPI)
	mux.HandleFunc("GET "+DocsPath, serveAsset("index.html"))
	mux.HandleFunc("GET "+DocsPath+"/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, DocsPath, http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET "+DocsPath+"/{asset}", func(w http.ResponseWriter, r *http.Request) {
		serveAsset(r.PathValue("asset"))(w, r)
	})
	return mux
}

func serveDocument(w http.ResponseWriter, r *http.Request) {
	b, err := JSON()
	if err != nil {
		// Unreachable with a document that passes the package tests.
		http.Error(w, "openapi document unavailable", http.StatusInternalServerError)
		return
	}
	writeStatic(w, r, "application/json", b)
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

func serveAsset(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ct, known := contentTypes[path.Ext(name)]
		b, err := assets.ReadFile("swaggerui/" + name)
		if !known || err != nil {
			writeNotFound(w, r)
			return
		}
		// Everything the page loads comes from this server.
		w.Header().Set("Content-Security-Policy",
			"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		writeStatic(w, r, ct, b)
	}
}

// writeStatic writes an immutable-per-build body with a strong ETag.
func writeStatic(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeNotFound answers an unknown asset with the API's error body, so the
// response matches the document. It is the only error this package writes.
// The error id is the request id the server's middleware set, if any.
func writeNotFound(w http.ResponseWriter, r *http.Request) {
	id := w.Header().Get("X-Request-Id")
	if id == "" {
		id = newUUID()
	}
	body, _ := json.Marshal(struct {
		ID         string `json:"id"`
		Timestamp  string `json:"timestamp"`
		StatusCode int    `json:"statusCode"`
		Message    string `json:"message"`
		Error      string `json:"error"`
		Path       string `json:"path"`
	}{
		ID:         id,
		Timestamp:  time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		StatusCode: http.StatusNotFound,
		Message:    "Record Not Found",
		Error:      "no such documentation asset",
		Path:       r.URL.Path,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write(body)
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
