package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// statusOf is the one table from domain error kind to HTTP status.
var statusOf = map[venue.Kind]int{
	venue.KindInternal:        http.StatusInternalServerError,
	venue.KindInvalid:         http.StatusBadRequest,
	venue.KindUnauthenticated: http.StatusUnauthorized,
	venue.KindForbidden:       http.StatusForbidden,
	venue.KindNotFound:        http.StatusNotFound,
	venue.KindConflict:        http.StatusConflict,
	venue.KindLimit:           http.StatusBadRequest,
	venue.KindMismatch:        http.StatusUnprocessableEntity,
	venue.KindRateLimited:     http.StatusTooManyRequests,
	venue.KindUnavailable:     http.StatusBadGateway,
	venue.KindTooLarge:        http.StatusRequestEntityTooLarge,
	venue.KindNotReady:        http.StatusServiceUnavailable,
	venue.KindNotAcceptable:   http.StatusNotAcceptable,
}

// notReadyRetry is the Retry-After of a 503: the engine is starting or
// restarting.
const notReadyRetry = time.Second

// errorBody is the error shape of docs/guide.md, "Conventions".
type errorBody struct {
	ID         string             `json:"id"`
	Timestamp  string             `json:"timestamp"`
	StatusCode int                `json:"statusCode"`
	Message    string             `json:"message"`
	Error      string             `json:"error"`
	Path       string             `json:"path"`
	Details    []venue.FieldIssue `json:"details,omitempty"`
}

// retryAfter marks an error answered with a Retry-After header.
type retryAfter struct {
	error
	after time.Duration
}

// Unwrap exposes the wrapped error, so its kind picks the status.
func (r *retryAfter) Unwrap() error { return r.error }

// writeError answers err in the error body. Client-safe text comes only
// from *venue.Error; anything else is logged under the request id and
// answered as a generic 500.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, body := s.errorResponse(w, r, err)
	writeJSON(w, status, body)
}

// errorResponse is writeError but for writing the body: it logs err, sets
// Retry-After, and returns the status and the error body.
func (s *Server) errorResponse(w http.ResponseWriter, r *http.Request, err error) (int, errorBody) {
	id := requestID(r.Context())
	kind := venue.KindOf(err)
	status := statusOf[kind]
	body := errorBody{ID: id, Timestamp: ts(s.now()), StatusCode: status, Message: http.StatusText(status), Path: r.URL.Path}
	if status == http.StatusNotFound {
		body.Message = "Record Not Found" // the spec's label (§7)
	}
	var ve *venue.Error
	if kind != venue.KindInternal && errors.As(err, &ve) {
		body.Error = ve.Message
		body.Details = ve.Details
		if kind == venue.KindInvalid {
			body.Message = "Validation Error"
		}
	} else {
		body.Error = "internal error; quote id " + id + " to the venue operator"
	}
	switch {
	case status == http.StatusServiceUnavailable:
		// Not ready or busy: the venue refusing work it cannot do in time
		// is routine under load, not a failure to log at error level.
		s.log.WarnContext(r.Context(), "request refused", "id", id, "method", r.Method, "path", r.URL.Path,
			"status", status, "err", err.Error())
	case status >= 500:
		s.log.ErrorContext(r.Context(), "request failed", "id", id, "method", r.Method, "path", r.URL.Path,
			"status", status, "err", err.Error())
	default:
		s.log.DebugContext(r.Context(), "request rejected", "id", id, "status", status, "err", err.Error())
	}
	var ra *retryAfter
	if ve != nil && ve.RetryAfter > 0 {
		ra = &retryAfter{error: err, after: ve.RetryAfter}
	}
	if ra == nil && !errors.As(err, &ra) && status == http.StatusServiceUnavailable {
		ra = &retryAfter{error: err, after: notReadyRetry}
	}
	if ra != nil {
		secs := int(ra.after.Seconds() + 0.999)
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	return status, body
}
