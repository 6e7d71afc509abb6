package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Several instances (docs/architecture.md, "Several instances"): a standby
// passes every write request of the API to the leader as it came — the
// client's credentials, its Idempotency-Key and body — under the standby's
// request id, through internal/cluster, the one transport every channel
// uses, and relays the leader's answer. The leader verifies the signature
// in observe (a request that claims to be passed on and is not signed
// right is refused) and answers under the same request id. Reads, the
// token endpoint and the live streams are served by every instance itself.
// The FIX sessions of a standby pass their trading commands to the leader's
// POST /internal/v1/commands (runCommand).

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
// request id and verified a passed request's signature).
func (s *Server) forward(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cluster.Claims(r) {
			// Passed on by another instance: served here, never passed
			// on again.
			next.ServeHTTP(w, r)
			return
		}
		if s.cl.Role() != cluster.RoleStandby || !passesToLeader(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.fwd.Proxy(w, r, requestID(r.Context()), s.writeForwardError)
	})
}

// writeForwardError answers a request the leader did not serve; one it
// was not found for or that it did not answer is worth a retry in a
// second.
func (s *Server) writeForwardError(w http.ResponseWriter, r *http.Request, err error) {
	var re *cluster.RetryError
	if errors.As(err, &re) {
		err = &retryAfter{error: re.Err, after: time.Second}
	}
	s.writeError(w, r, err)
}

// passedID returns the request id a signed, passed-on request carries;
// ok is false when r does not claim to be passed on. A claim whose
// signature does not verify is an error.
func (s *Server) passedID(ctx context.Context, r *http.Request) (id string, ok bool, err error) {
	if !cluster.Claims(r) {
		return "", false, nil
	}
	id, err = cluster.Verify(ctx, s.cl, r)
	return id, true, err
}

// passedOn reports whether the request of ctx was passed on by another
// instance and its signature verified.
func passedOn(ctx context.Context) bool {
	ok, _ := ctx.Value(passedKey).(bool)
	return ok
}

// errUnsignedCommand refuses a command that no instance passed on.
var errUnsignedCommand = venue.Forbidden("a command not signed by an instance of this venue")

// runCommand serves POST /internal/v1/commands on the leader: a trading
// command another instance's FIX session passed on (trading.Command),
// run by trading.Service.Run. The venue's answer, an error included, is a
// cluster.CommandAnswer with status 200; a command not passed on by an
// instance is refused (403), and an instance that does not lead answers
// 503 (the sender looks the leader up again).
func (s *Server) runCommand(w http.ResponseWriter, r *http.Request) error {
	if !passedOn(r.Context()) {
		return errUnsignedCommand
	}
	if s.cl.Role() != cluster.RoleLeader {
		return &venue.Error{Kind: venue.KindNotReady, Message: "this instance does not lead"}
	}
	var cmd trading.Command
	if err := decode(r, &cmd); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	id, err := s.svc.Run(ctx, cmd)
	if err != nil && venue.KindOf(err) == venue.KindInternal {
		s.log.ErrorContext(ctx, "passed command failed", "id", requestID(ctx), "op", cmd.Op, "err", err.Error())
	}
	writeJSON(w, http.StatusOK, cluster.AnswerOf(id, err))
	return nil
}
