package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Several instances (docs/architecture.md, "Several instances"): a standby passes every write
// request of the API to the leader as it came — the client's credentials,
// its Idempotency-Key and body — under the standby's request id, signed
// with the instances' shared secret, and relays the leader's answer. The
// leader authenticates the signature (a request that claims to be passed
// on and is not signed right is refused) and answers under the same
// request id. Reads, the token endpoint and the live streams are served by
// every instance itself.
const (
	headerForwardedBy = "X-Bondvenue-Forwarded-By"
	headerForwardSig  = "X-Bondvenue-Forward-Signature"
)

// forwardSignature signs a passed request: its id, method and path.
func forwardSignature(secret []byte, id, method, path string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id + "\n" + method + "\n" + path))
	return hex.EncodeToString(m.Sum(nil))
}

// passesToLeader reports whether a standby passes r on: a write of the
// API other than a token request, or a read whose answer is the
// sequencer's (the risk use of GET /participant/risk-limits, a kill
// switch, a price collar).
func passesToLeader(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		p := r.URL.Path
		return p == "/api/v1/participant/risk-limits" || (strings.HasPrefix(p, "/api/v1/") &&
			(strings.HasSuffix(p, "/kill-switch") || strings.HasSuffix(p, "/price-collar")))
	case http.MethodOptions:
		return false
	}
	return strings.HasPrefix(r.URL.Path, "/api/v1/") && r.URL.Path != "/api/v1/auth/token"
}

// forward is the middleware of both sides (inside observe, which set the
// request id).
func (s *Server) forward(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerForwardSig) != "" || r.Header.Get(headerForwardedBy) != "" {
			// Passed on by another instance: served here, never passed
			// on again.
			next.ServeHTTP(w, r)
			return
		}
		if s.svc.Role() != trading.RoleStandby || !passesToLeader(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.passOn(w, r)
	})
}

// passOn relays r to the leader.
func (s *Server) passOn(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	leader, err := s.svc.LeaderURL(ctx)
	if err != nil {
		s.writeError(w, r, &retryAfter{error: err, after: time.Second})
		return
	}
	secret, err := s.svc.ClusterSecret(ctx)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	target, err := url.Parse(leader)
	if err != nil {
		s.writeError(w, r, &retryAfter{error: &venue.Error{Kind: venue.KindNotReady, Message: "the leader's address is not a URL"},
			after: time.Second})
		return
	}
	id := requestID(ctx)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			pr.Out.Header.Set("X-Request-Id", id)
			pr.Out.Header.Set(headerForwardedBy, s.svc.InstanceID())
			pr.Out.Header.Set(headerForwardSig, forwardSignature(secret, id, r.Method, r.URL.Path))
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Del("X-Request-Id") // observe set this instance's, the same id
			if resp.StatusCode == http.StatusServiceUnavailable {
				s.svc.ForgetLeader(leader) // it may no longer lead: read the rows again next time
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.svc.ForgetLeader(leader)
			s.log.WarnContext(r.Context(), "passing a request to the leader failed", "id", id, "leader", leader, "err", err.Error())
			s.writeError(w, r, &retryAfter{error: &venue.Error{Kind: venue.KindNotReady,
				Message: "the leader did not answer (a takeover may be under way); retry"}, after: time.Second})
		},
	}
	proxy.ServeHTTP(w, r)
}

// passedID returns the request id a signed, passed-on request carries;
// ok is false when r does not claim to be passed on. A claim whose
// signature does not verify is an error.
func (s *Server) passedID(ctx context.Context, r *http.Request) (id string, ok bool, err error) {
	sig := r.Header.Get(headerForwardSig)
	if sig == "" && r.Header.Get(headerForwardedBy) == "" {
		return "", false, nil
	}
	id = r.Header.Get("X-Request-Id")
	secret, err := s.svc.ClusterSecret(ctx)
	if err != nil {
		return "", true, err
	}
	want := forwardSignature(secret, id, r.Method, r.URL.Path)
	if id == "" || !hmac.Equal([]byte(sig), []byte(want)) {
		return "", true, venue.Forbidden("the request claims to be passed on by another instance and is not signed by one")
	}
	return id, true, nil
}
