package httpapi

import (
	"github.com/bondvenue/bondvenue/internal/wire"
	"github.com/quagmt/udecimal"
)

// The records' JSON shapes live in internal/wire, shared by every channel;
// this file keeps the formats the HTTP-only answers (error bodies, analytics)
// write with, and the helper that maps a list.

// str writes an exact decimal as a JSON string.
func str(d udecimal.Decimal) string { return d.String() }

// ts formats an instant as ISO 8601 UTC with milliseconds (wire's format).
var ts = wire.Time

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}
