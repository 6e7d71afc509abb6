package fix

import (
	"errors"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// reject is how one kind of domain error is answered on FIX: the reason
// code of each reject message (docs/fix-rules-of-engagement.md, "Errors").
type reject struct {
	// OrdRejReason (103) of an ExecutionReport 150=8.
	OrdRejReason string
	// CxlRejReason (102) of an OrderCancelReject.
	CxlRejReason string
	// BusinessRejectReason (380) of a BusinessMessageReject.
	BusinessReason string
	// QuoteRequestRejectReason (658) of a QuoteRequestReject.
	QuoteRejectReason string
}

// rejects is the one table from error kinds to reject codes.
var rejects = map[venue.Kind]reject{
	venue.KindInvalid:         {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "0", QuoteRejectReason: "99"},
	venue.KindUnauthenticated: {OrdRejReason: "99", CxlRejReason: "2", BusinessReason: "6", QuoteRejectReason: "6"},
	venue.KindForbidden:       {OrdRejReason: "99", CxlRejReason: "2", BusinessReason: "6", QuoteRejectReason: "6"},
	venue.KindNotFound:        {OrdRejReason: "5", CxlRejReason: "1", BusinessReason: "0", QuoteRejectReason: "1"},
	venue.KindConflict:        {OrdRejReason: "99", CxlRejReason: "0", BusinessReason: "0", QuoteRejectReason: "4"},
	venue.KindLimit:           {OrdRejReason: "3", CxlRejReason: "99", BusinessReason: "0", QuoteRejectReason: "3"},
	venue.KindMismatch:        {OrdRejReason: "6", CxlRejReason: "6", BusinessReason: "0", QuoteRejectReason: "99"},
	venue.KindRateLimited:     {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "4", QuoteRejectReason: "99"},
	venue.KindUnavailable:     {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "4", QuoteRejectReason: "99"},
	venue.KindTooLarge:        {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "0", QuoteRejectReason: "99"},
	venue.KindNotReady:        {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "4", QuoteRejectReason: "99"},
	venue.KindInternal:        {OrdRejReason: "99", CxlRejReason: "99", BusinessReason: "0", QuoteRejectReason: "99"},
}

// rejectOf returns an error's codes and the text (58) to send: the domain
// error's own message, never an internal error's detail.
func rejectOf(err error) (reject, string) {
	var e *venue.Error
	if !errors.As(err, &e) {
		return rejects[venue.KindInternal], "internal error"
	}
	r, ok := rejects[e.Kind]
	if !ok {
		r = rejects[venue.KindInternal]
	}
	if e.Kind == venue.KindInternal {
		return r, "internal error"
	}
	return r, e.Error()
}

// errDuplicate refuses a ClOrdID the firm used already today.
var errDuplicate = &venue.Error{Kind: venue.KindMismatch, Message: "duplicate ClOrdID: this firm used it already today; it is not applied twice"}

// duplicate is errDuplicate for a ClOrdID whose first request was applied:
// it names the order that request made or changed, as the first answer did.
type duplicate struct{ orderID string }

func (d *duplicate) Error() string { return errDuplicate.Error() }
func (d *duplicate) Unwrap() error { return errDuplicate }

// duplicateOrderID is the order a duplicate ClOrdID's first request made or
// changed, "NONE" when there is none (it was refused, or is in flight).
func duplicateOrderID(err error) string {
	var d *duplicate
	if errors.As(err, &d) && d.orderID != "" {
		return d.orderID
	}
	return "NONE"
}
