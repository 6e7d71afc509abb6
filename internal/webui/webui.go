// Package webui serves the venue's web trading screen (web/README.md)
// from the binary: the files Vite builds from web/ into dist, embedded, so
// the venue shows it with no Node, CDN or outside call at run time.
//
// The app is an ordinary client of the venue: it signs in with client
// credentials at POST /api/v1/auth/token, reads and trades through the
// public REST API and follows the live Socket.IO stream at /socket.io/,
// exactly as any other client does. There is no private back door: this
// package serves static files only, and the server gives the app no
// session, cookie or route the API does not document.
//
// The assets are built from the sources in web/ with
//
//	npm ci --prefix web && npm run build --prefix web
//
// which writes dist (index.html, favicon.svg and assets/index-<hash>.js
// and .css); the build is committed with the sources that made it. The
// build is reproducible from web/package-lock.json, and CI rebuilds it and
// checks that the result matches the committed dist byte for byte
// (TestEmbeddedBuildMatchesSources), so the embedded app is always the one
// its sources describe.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// dist is Vite's output; "all:" keeps files whose names start with a dot
// or an underscore, which Vite may emit.
//
//go:embed all:dist
var dist embed.FS

// ContentSecurityPolicy is the policy every answer of the app carries. It
// allows this origin only: the app's own scripts (no inline script, no
// eval) and style sheets (inline styles too, which components set), images
// and fonts of its own or images as data: URLs, and requests to the API and
// the stream (ws: and wss: for the WebSocket, which 'self' does not cover
// in every browser). The page may not be framed, change its base URL or
// post a form elsewhere.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'; " +
	"base-uri 'none'; form-action 'self'"

// Cache policies: the page and the icon keep their names from build to
// build, so a browser asks again each time (and gets a 304 while they are
// unchanged); the assets carry their content hash in their names, so a
// name never changes meaning and a browser keeps them.
const (
	cacheRevalidate = "no-cache"
	cacheImmutable  = "public, max-age=31536000, immutable"
)

// contentTypes names the types of the files Vite emits; others fall back
// to the mime package.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".svg":   "image/svg+xml",
	".json":  "application/json",
	".txt":   "text/plain; charset=utf-8",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
}

// compressible are the extensions served gzip-compressed to a client that
// accepts it.
var compressible = map[string]bool{".html": true, ".js": true, ".mjs": true, ".css": true, ".svg": true,
	".json": true, ".txt": true}

// file is one servable file with its compressed copy.
type file struct {
	contentType  string
	cacheControl string
	body         []byte
	etag         string
	gzip         []byte // nil when not compressible or not smaller
	gzipETag     string
}

// files maps each URL path the app serves to its file: index.html at /,
// the other files at their path under dist. It is built once, on the
// first request, and shared.
var files = sync.OnceValues(func() (map[string]*file, error) { return load(dist) })

// load reads every file of the embedded build and compresses what pays.
func load(embedded fs.FS) (map[string]*file, error) {
	root, err := fs.Sub(embedded, "dist")
	if err != nil {
		return nil, fmt.Errorf("web app build: %w", err)
	}
	out := map[string]*file{}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		ext := path.Ext(name)
		f := &file{contentType: contentTypeOf(ext), cacheControl: cacheRevalidate, body: body, etag: etagOf(body, "")}
		if strings.HasPrefix(name, "assets/") {
			f.cacheControl = cacheImmutable
		}
		if compressible[ext] {
			gz, err := gzipped(body)
			if err != nil {
				return fmt.Errorf("compress %s: %w", name, err)
			}
			if len(gz) < len(body) {
				f.gzip, f.gzipETag = gz, etagOf(body, "-gzip")
			}
		}
		urlPath := "/" + name
		if name == "index.html" {
			urlPath = "/"
		}
		out[urlPath] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web app build: %w", err)
	}
	if out["/"] == nil {
		return nil, fmt.Errorf("web app build: no index.html (npm run build --prefix web)")
	}
	return out, nil
}

func contentTypeOf(ext string) string {
	if ct, ok := contentTypes[ext]; ok {
		return ct
	}
	if ct := mime.TypeByExtension(ext); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// etagOf is a strong validator of body's representation: its content
// hash, with a suffix for the compressed copy (another representation of
// the same file).
func etagOf(body []byte, suffix string) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + suffix + `"`
}

// gzipped compresses b; the output depends on b only (no name, no time).
func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Handler serves the app: GET / (the page), /favicon.svg and
// /assets/<name>, as NewHandler(nil) does. A path the build lacks answers
// a plain-text 404.
func Handler() http.Handler { return NewHandler(nil) }

// NewHandler is Handler with notFound answering a path the build lacks:
// the REST adapter passes its own, so that every error of the server
// carries the API's error body. A nil notFound answers a plain-text 404.
// Every answer, notFound's too, carries the security headers.
func NewHandler(notFound http.Handler) http.Handler {
	if notFound == nil {
		notFound = http.HandlerFunc(http.NotFound)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		all, err := files()
		if err != nil {
			// Unreachable with a build that passes the package's tests.
			http.Error(w, "the web app is not available", http.StatusInternalServerError)
			return
		}
		f, ok := all[r.URL.Path]
		if !ok {
			notFound.ServeHTTP(w, r)
			return
		}
		serve(w, r, f)
	})
}

// serve answers f: compressed when the client takes gzip, 304 when the
// client's copy is current.
func serve(w http.ResponseWriter, r *http.Request, f *file) {
	h := w.Header()
	body, etag := f.body, f.etag
	if f.gzip != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Values("Accept-Encoding")) {
			body, etag = f.gzip, f.gzipETag
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	h.Set("Cache-Control", f.cacheControl)
	if noneMatch(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reports whether Accept-Encoding lists gzip (or *) with a
// non-zero quality (RFC 9110 §12.5.3).
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(item, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" && coding != "*" {
				continue
			}
			if q, ok := quality(params); !ok || q > 0 {
				return true
			}
		}
	}
	return false
}

// quality reads q= from an Accept-Encoding item's parameters; ok is false
// when there is none (which means 1).
func quality(params string) (q float64, ok bool) {
	for p := range strings.SplitSeq(params, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(name, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			return q, err == nil
		}
	}
	return 0, false
}

// noneMatch reports whether an If-None-Match header names etag: a list of
// entity tags compared weakly, as RFC 9110 §13.1.2 has it, or *.
func noneMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
