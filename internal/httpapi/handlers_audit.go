package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// The operator's audit trail: the reason an administrative write gives,
// and the trail's list.

// reasoned runs an administrative write on the service bound to the
// reason the request gives (trading.Service.WithReason), which its audit
// entry records: the body's "reason" field, or, for a request without one
// (a DELETE, a route that takes no body), the reason query parameter.
func (s *Server) reasoned(fn authedFunc) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
		reason, err := reasonOf(r)
		if err != nil {
			return err
		}
		bound := context.WithValue(r.Context(), serviceKey, s.use(r).WithReason(reason))
		return fn(w, r.WithContext(bound), p)
	}
}

// reasonOf reads the reason of r, leaving its body for the handler. A body
// that is not a JSON object is the handler's to refuse.
func reasonOf(r *http.Request) (string, error) {
	body, err := readBody(r)
	if err != nil {
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var b struct {
		Reason any `json:"reason"`
	}
	if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &b) == nil && b.Reason != nil {
		text, ok := b.Reason.(string)
		if !ok {
			return "", venue.InvalidField("reason", "must be a string")
		}
		return text, nil
	}
	return r.URL.Query().Get("reason"), nil
}

// auditLog lists the audit trail in sequence order, a page at a time: from
// and to bound the entries' time, entity names a type of entity (market)
// or one entity (market:<id>), after and limit page through it, and the
// Link header names the next page.
func (s *Server) auditLog(w http.ResponseWriter, r *http.Request, p venue.Principal) error {
	q := query{Values: r.URL.Query()}
	page := q.page()
	f := trading.AuditFilter{From: page.From, To: page.To, Limit: page.Limit}
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		q.v.Check(err == nil && n >= 0, "after", "must be a non-negative sequence number")
		f.After = n
	}
	f.EntityType, f.EntityID, _ = strings.Cut(q.Get("entity"), ":")
	if err := q.v.Err(); err != nil {
		return err
	}
	entries, err := s.use(r).AuditLog(r.Context(), p, f)
	if err != nil {
		return err
	}
	if len(entries) == f.Limit {
		next := r.URL.Query()
		next.Set("after", strconv.FormatInt(entries[len(entries)-1].Seq, 10))
		next.Set("limit", strconv.Itoa(f.Limit))
		w.Header().Set("Link", fmt.Sprintf(`<%s?%s>; rel="next"`, r.URL.Path, next.Encode()))
	}
	writeJSON(w, http.StatusOK, mapSlice(entries, wire.AuditEntryOf))
	return nil
}
