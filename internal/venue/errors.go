package venue

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Kind classifies a domain error. The HTTP edge (and later the FIX gateway)
// maps each kind to exactly one status; nothing else inspects errors.
type Kind int

// The error kinds of the venue.
const (
	KindInternal        Kind = iota // a bug or an infrastructure failure; detail never leaves the process
	KindInvalid                     // malformed or invalid input
	KindUnauthenticated             // missing, invalid, expired or revoked credentials
	KindForbidden                   // the caller's role may not perform the operation
	KindNotFound                    // the object does not exist or is not visible to the caller
	KindConflict                    // the object's state does not allow the operation
	KindLimit                       // a risk limit would be breached
	KindMismatch                    // an idempotency key reused with another request
	KindRateLimited                 // too many requests
	KindUnavailable                 // the database failed or could not serve the request
	KindTooLarge                    // the request body exceeds the size limit
	KindNotReady                    // the trading engine is not running (starting or stopped); retry later
	KindNotAcceptable               // no representation the client accepts
)

// FieldIssue names one invalid input field and what is wrong with it.
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// Error is the one error type the domain returns to adapters. Message is
// safe to show to a client; Details is set for validation errors.
type Error struct {
	Kind    Kind
	Message string
	Details []FieldIssue
	// RetryAfter is how long the caller should wait before trying again
	// (a rate limit), when known.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if len(e.Details) == 0 {
		return e.Message
	}
	s := e.Message
	for _, d := range e.Details {
		s += fmt.Sprintf("; %s: %s", d.Field, d.Issue)
	}
	return s
}

// Is reports whether target is a sentinel of the same kind, so callers can
// write errors.Is(err, venue.ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Message == "" && t.Details == nil
}

// Sentinels for errors.Is checks. They carry no message.
var (
	ErrInvalid         = &Error{Kind: KindInvalid}
	ErrUnauthenticated = &Error{Kind: KindUnauthenticated}
	ErrForbidden       = &Error{Kind: KindForbidden}
	ErrNotFound        = &Error{Kind: KindNotFound}
	ErrConflict        = &Error{Kind: KindConflict}
	ErrLimit           = &Error{Kind: KindLimit}
	ErrMismatch        = &Error{Kind: KindMismatch}
	ErrUnavailable     = &Error{Kind: KindUnavailable}
)

// Invalid returns a validation error with field details.
func Invalid(msg string, details ...FieldIssue) *Error {
	return &Error{Kind: KindInvalid, Message: msg, Details: details}
}

// InvalidField is shorthand for a validation error on one field.
func InvalidField(field, issue string) *Error {
	return Invalid("Validation Error", FieldIssue{Field: field, Issue: issue})
}

// NotFound returns a not-found error naming what was looked up.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Message: what + " not found"}
}

// Conflict returns a state-conflict error.
func Conflict(format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Message: fmt.Sprintf(format, args...)}
}

// Forbidden returns a role error.
func Forbidden(format string, args ...any) *Error {
	return &Error{Kind: KindForbidden, Message: fmt.Sprintf(format, args...)}
}

// Unauthenticated returns a credentials error.
func Unauthenticated(msg string) *Error {
	return &Error{Kind: KindUnauthenticated, Message: msg}
}

// KindOf returns the kind of err, KindInternal for anything that is not a
// *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// Validator collects field issues so a request reports every bad field at
// once.
type Validator struct {
	issues []FieldIssue
}

// Addf records an issue for field.
func (v *Validator) Addf(field, format string, args ...any) {
	v.issues = append(v.issues, FieldIssue{Field: field, Issue: fmt.Sprintf(format, args...)})
}

// Check records issue for field when ok is false.
func (v *Validator) Check(ok bool, field, issue string) {
	if !ok {
		v.issues = append(v.issues, FieldIssue{Field: field, Issue: issue})
	}
}

// CheckLength records an issue for field when s has more than max
// characters.
func (v *Validator) CheckLength(field, s string, max int) {
	if utf8.RuneCountInString(s) > max {
		v.Addf(field, "must be at most %d characters", max)
	}
}

// Err returns the collected validation error, or nil.
func (v *Validator) Err() error {
	if len(v.issues) == 0 {
		return nil
	}
	return Invalid("Validation Error", v.issues...)
}

// MergeUnreported is Merge for the issues on fields v has none for yet: a
// field that could not even be read needs no second issue from the rules
// its missing value then fails.
func (v *Validator) MergeUnreported(err error) error {
	var e *Error
	if err == nil || !errors.As(err, &e) || e.Kind != KindInvalid {
		return v.Merge(err)
	}
	reported := map[string]bool{}
	for _, is := range v.issues {
		reported[is.Field] = true
	}
	var fresh Validator
	if err := fresh.Merge(err); err != nil {
		return err
	}
	for _, is := range fresh.issues {
		if !reported[is.Field] {
			v.issues = append(v.issues, is)
		}
	}
	return nil
}

// Merge adds the details of a validation error to v and returns nil; any
// other error is returned unchanged for the caller to pass on.
func (v *Validator) Merge(err error) error {
	var e *Error
	if err == nil {
		return nil
	}
	if errors.As(err, &e) && e.Kind == KindInvalid {
		if len(e.Details) == 0 {
			v.issues = append(v.issues, FieldIssue{Field: "", Issue: e.Message})
		}
		v.issues = append(v.issues, e.Details...)
		return nil
	}
	return err
}
