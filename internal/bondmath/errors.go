package bondmath

import (
	"errors"
	"fmt"
)

// ErrInvalid is the kind of every error this package returns for bad input: an unknown
// convention name, a malformed date or number, dates in the wrong order, a yield or price
// outside the range the maths can handle. Callers test for it with errors.Is and map it to
// a validation failure (HTTP 400); errors.As with *FieldError gives the offending field.
var ErrInvalid = errors.New("invalid")

// FieldError says which input field is wrong and why. Field uses the bond calculator's
// request field names (day_count, settlement_date, clean_price, …) so that the HTTP layer can
// put it in the error body's details unchanged. It unwraps to ErrInvalid.
type FieldError struct {
	Field string
	Issue string
}

// Error returns "field: issue".
func (e *FieldError) Error() string { return e.Field + ": " + e.Issue }

// Unwrap returns ErrInvalid so that errors.Is(err, ErrInvalid) holds.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Issue: fmt.Sprintf(format, args...)}
}
