package clock

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultInterval is how often a started Monitor checks the clock.
const DefaultInterval = 10 * time.Second

// Config tunes a Monitor.
type Config struct {
	// Interval is the time between checks once started (DefaultInterval).
	Interval time.Duration
	Logger   *slog.Logger
}

// Status is one check of the clock.
type Status struct {
	// Known is false when the clock's state could not be read: on a
	// system other than Linux (not degraded: unknown), or because the read
	// failed (degraded).
	Known bool
	// State is the kernel's clock state, when Known.
	State State
	// Tolerance is the divergence the latency allows, Basis why.
	Tolerance time.Duration
	Basis     string
	// LatencyP99 is the gateway-to-gateway latency's 99th percentile over
	// LatencySamples recent samples (none: 0).
	LatencyP99     time.Duration
	LatencySamples int
	// Degraded is true when the clock is unsynchronised, its maximum
	// error exceeds Tolerance, or its state could not be read on Linux;
	// Reason says which (and, when the state is unknown, why).
	Degraded bool
	Reason   string
}

// Health is the status in a word: ok, degraded or unknown.
func (s Status) Health() string {
	switch {
	case s.Degraded:
		return "degraded"
	case !s.Known:
		return "unknown"
	}
	return "ok"
}

// Monitor checks the clock at every interval once started, or when asked
// (Check), and keeps the last status for the health answer and /metrics
// (it is a prometheus.Collector). The log gets an error when the clock
// becomes degraded and a line when it recovers, once per change.
type Monitor struct {
	src Source
	lat *Latency
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	status  Status
	checked bool

	quit chan struct{}
	done chan struct{}
}

// NewMonitor returns a monitor of the clock src reads, with the tier set
// by lat; nothing runs until Start or Check.
func NewMonitor(src Source, lat *Latency, cfg Config) *Monitor {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	tol, basis := Tier(0, 0)
	return &Monitor{src: src, lat: lat, cfg: cfg, log: cfg.Logger.With("component", "clock"),
		status: Status{Tolerance: tol, Basis: basis, Reason: "not checked yet"}}
}

// Status returns the last check's status.
func (m *Monitor) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Check reads the clock and the latency now, keeps and returns the
// status, and logs a change of it.
func (m *Monitor) Check() Status {
	p99, n := m.lat.P99()
	st := Status{LatencyP99: p99, LatencySamples: n}
	st.Tolerance, st.Basis = Tier(p99, n)
	state, err := m.src.State()
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		st.Reason = err.Error()
	case err != nil:
		st.Degraded, st.Reason = true, fmt.Sprintf("the clock's state cannot be read: %v", err)
	case !state.Synchronised:
		st.Known, st.State = true, state
		st.Degraded, st.Reason = true, "the kernel reports the clock unsynchronised"
	case state.MaxError > st.Tolerance:
		st.Known, st.State = true, state
		st.Degraded, st.Reason = true, fmt.Sprintf("maximum error %v exceeds the %v tolerance (%s)", state.MaxError, st.Tolerance, st.Basis)
	default:
		st.Known, st.State = true, state
	}
	m.mu.Lock()
	prev, first := m.status, !m.checked
	m.status, m.checked = st, true
	m.mu.Unlock()
	m.report(prev, st, first)
	return st
}

// report logs the change from prev to st: an error when the clock becomes
// degraded, a line when it recovers, a warning when its state becomes
// unknown.
func (m *Monitor) report(prev, st Status, first bool) {
	attrs := []any{"tolerance_us", st.Tolerance.Microseconds(), "basis", st.Basis,
		"gateway_latency_p99_us", st.LatencyP99.Microseconds(), "latency_samples", st.LatencySamples}
	if st.Reason != "" {
		attrs = append(attrs, "reason", st.Reason)
	}
	if st.Known {
		attrs = append(attrs, "synchronised", st.State.Synchronised,
			"estimated_error_us", st.State.EstimatedError.Microseconds(), "max_error_us", st.State.MaxError.Microseconds())
	}
	switch {
	case st.Degraded:
		if first || !prev.Degraded {
			m.log.Error("clock degraded", attrs...)
		}
	case !st.Known:
		if first || prev.Known || prev.Degraded {
			m.log.Warn("clock state unknown", attrs...)
		}
	case prev.Degraded:
		m.log.Info("clock recovered", attrs...)
	}
}

// Start checks the clock now and then at every interval until Stop.
func (m *Monitor) Start() {
	m.Check()
	m.quit, m.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(m.cfg.Interval)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				m.Check()
			}
		}
	}()
}

// Stop ends the checks Start began and waits for the last to finish.
func (m *Monitor) Stop() {
	if m.quit == nil {
		return
	}
	close(m.quit)
	<-m.done
	m.quit = nil
}
