// Package httpapi is the venue's REST adapter: routes.go lists every
// route; handlers decode and validate, call one use case, and encode; one
// table maps domain errors to statuses (errors.go).
package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/positions"
	"github.com/bondvenue/bondvenue/internal/ratelimit"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// Config tunes the HTTP adapter.
type Config struct {
	Logger *slog.Logger
	// Registry receives the HTTP metrics; nil creates a private one.
	Registry *prometheus.Registry
	// TokenRateLimit bounds token requests per client address (default 5/s,
	// burst 20): the token endpoint checks secrets and is a guessing target.
	TokenRateLimit float64
	TokenRateBurst int
	// Now is the clock for error timestamps (default time.Now).
	Now func() time.Time
}

// Server is the HTTP adapter over a trading.Service.
type Server struct {
	svc      *trading.Service
	live     Live
	cl       Cluster
	eng      Engine
	keys     *idempotency.Keys
	access   *access.Tokens
	records  *orderrecords.Service
	posns    *positions.Service
	log      *slog.Logger
	now      func() time.Time
	registry *prometheus.Registry
	metrics  *metrics
	perAddr  *ratelimit.Limiters
	mux      *http.ServeMux
	// fwd passes a standby's writes to the leader.
	fwd *cluster.Forwarder
	// nested holds the JSON of the instruments offer answers nest.
	nested nestedInstruments

	clock   Clock
	latency Latency
	// entries are the route patterns of order entry, whose latency
	// observe records (routes).
	entries map[string]bool
}

// New returns the adapter over d; Handler serves it.
func New(d Deps, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.TokenRateLimit <= 0 {
		cfg.TokenRateLimit, cfg.TokenRateBurst = 5, 20
	}
	if cfg.TokenRateBurst <= 0 {
		cfg.TokenRateBurst = int(cfg.TokenRateLimit) * 4
	}
	s := &Server{svc: d.Trading, live: d.Live, cl: d.Cluster, eng: d.Engine, keys: d.Keys, access: d.Access, records: d.Records, posns: d.Positions, log: cfg.Logger, now: cfg.Now, registry: cfg.Registry,
		metrics: newMetrics(cfg.Registry, d.Engine, d.Cluster),
		perAddr: ratelimit.New(cfg.TokenRateLimit, cfg.TokenRateBurst),
		mux:     http.NewServeMux(),
		fwd:     cluster.NewForwarder(d.Cluster, d.Cluster.InstanceID(), cfg.Logger),
		clock:   d.Clock, latency: d.Latency, entries: map[string]bool{}}
	s.routes()
	return s
}

// Handler returns the whole HTTP handler with its middleware.
func (s *Server) Handler() http.Handler {
	return s.observe(s.recoverer(s.forward(s.mux)))
}

// handlerFunc is a handler that returns its error for the adapter to
// answer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// authedFunc is a handler for an authenticated caller.
type authedFunc func(w http.ResponseWriter, r *http.Request, p venue.Principal) error

// public adapts a handler that needs no token.
func (s *Server) public(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// authed adapts a handler that needs a bearer token, and applies the
// caller's rate limit.
func (s *Server) authed(fn authedFunc) http.Handler { return s.authedWith(false, fn) }

// queued is authed for new business, which goes to the sequencer's
// ordinary lane: when the sequencer cannot start it within its queue
// budget it is refused before its body is read or an Idempotency-Key
// claimed (the sequencer's admission control), so refusing costs next to nothing
// under overload.
func (s *Server) queued(fn authedFunc) http.Handler { return s.authedWith(true, fn) }

func (s *Server) authedWith(queued bool, fn authedFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="bondvenue"`)
			s.writeError(w, r, err)
			return
		}
		if err := s.svc.Admit(p); err != nil {
			s.writeError(w, r, err)
			return
		}
		if queued {
			if err := s.eng.CheckQueue(); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		if err := checkQuery(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		if key := r.Header.Get("Idempotency-Key"); key != "" && r.Method != http.MethodGet {
			s.idempotent(w, r, p, key, fn)
			return
		}
		if err := fn(w, r, p); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// idempotent runs a write under an Idempotency-Key: a retry gets the first
// answer again (with Idempotent-Replayed: true); the same key with another
// method, path or body is a 422; a retry while the first is running is a
// 409. The claim is settled by the one rule (idempotency.SettlementOf): the
// answer to a failure on the venue's side is not kept, so its retries run
// again, unless the request was applied before the error. A retry of a
// request applied whose answer was not kept (its process died after the
// commit) runs the handler on the replayed claim: the use case applies
// nothing and answers with the result the first run committed, so the
// retry gets the answer the first request would have got, which is kept
// (see idempotency.Keys.Claim).
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, p venue.Principal, key string, fn authedFunc) {
	body, err := readBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	h := sha256.New()
	fmt.Fprintf(h, "%s %s?%s\n", r.Method, r.URL.Path, r.URL.RawQuery)
	h.Write(body)
	hash := hex.EncodeToString(h.Sum(nil))
	claim, stored, err := s.keys.Claim(r.Context(), p, key, hash)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if stored != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(stored.Code)
		_, _ = w.Write(replayBody(r.Context(), stored))
		return
	}
	if claim.Replayed() {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	rec := &captureWriter{ResponseWriter: w}
	ctx := context.WithoutCancel(r.Context())
	defer func() {
		// A handler that panicked kept nothing: release the claim (an
		// applied request's claim stays) before the recoverer answers.
		if p := recover(); p != nil {
			if err := s.keys.Settle(ctx, claim, panicError{p}, idempotency.Answer{}); err != nil {
				s.log.ErrorContext(ctx, "idempotency claim not released", "id", requestID(ctx), "err", err.Error())
			}
			panic(p)
		}
	}()
	bound := context.WithValue(r.Context(), serviceKey, s.svc.WithClaim(claim))
	runErr := fn(rec, r.WithContext(bound), p)
	if runErr != nil {
		s.writeError(rec, r, runErr)
	}
	if err := s.keys.Settle(ctx, claim, runErr, idempotency.Answer{Code: rec.status, Body: rec.buf.Bytes()}); err != nil {
		s.log.ErrorContext(ctx, "idempotency record not saved", "id", requestID(ctx), "err", err.Error())
	}
}

// replayBody is a kept answer as a retry receives it: an error keeps its
// message and time, but its id becomes the retry's X-Request-Id, as every
// error's id is its request's.
func replayBody(ctx context.Context, stored *idempotency.Answer) []byte {
	if stored.Code < 400 {
		return stored.Body
	}
	var e struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(stored.Body, &e) != nil || e.ID == "" {
		return stored.Body
	}
	return bytes.Replace(stored.Body, []byte(`"id":"`+e.ID+`"`), []byte(`"id":"`+requestID(ctx)+`"`), 1)
}

// captureWriter writes through and keeps a copy of the status and body.
type captureWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.buf.Write(b)
	return c.ResponseWriter.Write(b)
}

func (s *Server) authenticate(r *http.Request) (venue.Principal, error) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return venue.Principal{}, venue.Unauthenticated("missing bearer token: send Authorization: Bearer <access_token>")
	}
	p, err := s.access.Authenticate(r.Context(), strings.TrimSpace(token))
	p.Channel = venue.ChannelREST // the web app's changes too: it calls this API
	return p, err
}

type ctxKey int

const (
	requestIDKey ctxKey = iota
	// serviceKey holds the service a request under an Idempotency-Key
	// runs on: the one bound to its claim (trading.Service.WithClaim).
	serviceKey
	// passedKey marks a request passed on by another instance whose
	// signature verified.
	passedKey
)

// use returns the service r's handler calls: bound to r's idempotency
// claim when it has one, else the adapter's.
func (s *Server) use(r *http.Request) *trading.Service {
	if svc, ok := r.Context().Value(serviceKey).(*trading.Service); ok {
		return svc
	}
	return s.svc
}

// requestID returns the id given to the request, used as the error id and
// in the log.
func requestID(ctx context.Context) string {
	if id, ok := ctx.Value(requestIDKey).(string); ok {
		return id
	}
	return uuid.NewString()
}

// recoverer turns a panic into a logged 500 with the error body. It runs
// inside observe, so the answer carries the request's id (the one in
// X-Request-Id and the log) and is counted like any other.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic", "id", requestID(r.Context()), "panic", p)
				s.writeError(w, r, panicError{p})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type panicError struct{ v any }

func (p panicError) Error() string { return "panic" }

// statusRecorder remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// observe gives each request an id, logs it, and records metrics by route
// pattern and, for order entry, the gateway-to-gateway latency: from here,
// where the request enters the adapter, to its answer written.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := uuid.Must(uuid.NewV7()).String()
		passed, isPassed, passErr := s.passedID(r.Context(), r)
		if isPassed && passErr == nil {
			id = passed // one request id across the instances that served it
		}
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		if isPassed && passErr == nil {
			ctx = context.WithValue(ctx, passedKey, true)
		}
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		rec := &statusRecorder{ResponseWriter: w}
		if passErr != nil {
			s.writeError(rec, r, passErr)
		} else {
			next.ServeHTTP(rec, r)
		}
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		elapsed := time.Since(start)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		s.metrics.observe(r.Method, route, rec.status, elapsed)
		if s.latency != nil && s.entries[route] {
			s.latency.Observe(elapsed)
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "http", slog.String("id", id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", rec.status), slog.Duration("elapsed", elapsed))
	})
}
