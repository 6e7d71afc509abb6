// Package clock watches the venue's clock as RTS 25 asks of a trading
// venue: the kernel's clock must be synchronised to UTC, and its maximum
// error must stay within the divergence the venue's gateway-to-gateway
// latency allows (a 99th percentile of at most 1 ms: 100 µs; otherwise
// 1 ms). A Monitor reads the kernel's clock state (Kernel), the latency
// the channels record (Latency), and says whether the clock is degraded:
// in /metrics, in GET /healthz and, once per change, in the log.
// docs/operations.md, "Clock synchronisation", is the operator's side.
package clock

import (
	"fmt"
	"time"
)

// State is the kernel's clock state as adjtimex reports it.
type State struct {
	// Synchronised is false when the kernel holds the clock
	// unsynchronised (STA_UNSYNC, or adjtimex's TIME_ERROR).
	Synchronised bool
	// EstimatedError and MaxError are the kernel's estimated and maximum
	// error (esterror, maxerror), as the time daemon last set them; the
	// kernel adds 500 µs a second to the maximum error until it is set
	// again.
	EstimatedError, MaxError time.Duration
}

// Source reads the clock's state: Kernel on the running system, a fake in
// tests. An error that wraps errors.ErrUnsupported says the state cannot
// be known here (not Linux), which is not a fault of the clock.
type Source interface {
	State() (State, error)
}

// The divergences from UTC RTS 25 allows a venue, by its gateway-to-gateway
// latency (Annex, Table 1).
const (
	// FastTolerance applies to a venue whose latency p99 is at most
	// FastLatency.
	FastTolerance = 100 * time.Microsecond
	// Tolerance applies otherwise.
	Tolerance = time.Millisecond
	// FastLatency is the latency p99 at or under which FastTolerance
	// applies.
	FastLatency = time.Millisecond
)

// Tier returns the divergence allowed with a gateway-to-gateway latency p99
// over samples, and the basis of that choice in words. With no samples
// the venue cannot show it is fast: the wider tolerance applies.
func Tier(p99 time.Duration, samples int) (time.Duration, string) {
	switch {
	case samples == 0:
		return Tolerance, "no gateway latency samples yet"
	case p99 <= FastLatency:
		return FastTolerance, fmt.Sprintf("gateway latency p99 at most %v", FastLatency)
	}
	return Tolerance, fmt.Sprintf("gateway latency p99 over %v", FastLatency)
}
