package clock_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/clock"
)

// fakeSource is a clock whose state the test sets.
type fakeSource struct {
	mu    sync.Mutex
	state clock.State
	err   error
}

func (f *fakeSource) set(s clock.State, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state, f.err = s, err
}

func (f *fakeSource) State() (clock.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state, f.err
}

// logLines collects a JSON log and hands out the lines written since
// the last call, as "LEVEL message".
type logLines struct {
	buf  bytes.Buffer
	seen int
}

func (l *logLines) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(&l.buf, nil)) }

func (l *logLines) since(t *testing.T) []string {
	t.Helper()
	var out []string
	lines := strings.SplitAfter(l.buf.String(), "\n")
	for _, line := range lines[l.seen : len(lines)-1] { // the last is the unfinished rest
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec.Level+" "+rec.Msg)
	}
	l.seen = len(lines) - 1
	return out
}

// gauges gathers reg's gauges by name.
func gauges(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			out[mf.GetName()] = m.GetGauge().GetValue()
		}
	}
	return out
}

const us = time.Microsecond

func synced(maxErr time.Duration) clock.State {
	return clock.State{Synchronised: true, EstimatedError: 20 * us, MaxError: maxErr}
}

// TestMonitor: a clock that is fine, unsynchronised, over its tolerance,
// unreadable, fine again and over it again is degraded exactly when it
// should be; the metrics say so at every step, and the log has one error
// per fall and one line per recovery.
func TestMonitor(t *testing.T) {
	src, logs, reg := &fakeSource{}, &logLines{}, prometheus.NewPedanticRegistry()
	mon := clock.NewMonitor(src, clock.NewLatency(0), clock.Config{Logger: logs.logger()})
	reg.MustRegister(mon)
	if got := mon.Status(); got.Health() != "unknown" || got.Reason != "not checked yet" {
		t.Errorf("before the first check: %s (%s), want unknown (not checked yet)", got.Health(), got.Reason)
	}
	kernel := func(synchronised, maxErr float64, degraded float64) map[string]float64 {
		return map[string]float64{"bondvenue_clock_synchronised": synchronised, "bondvenue_clock_estimated_error_seconds": 20e-6,
			"bondvenue_clock_max_error_seconds": maxErr, "bondvenue_clock_tolerance_seconds": 1e-3,
			"bondvenue_gateway_latency_samples": 0, "bondvenue_clock_degraded": degraded}
	}
	unreadable := map[string]float64{"bondvenue_clock_tolerance_seconds": 1e-3, "bondvenue_gateway_latency_samples": 0,
		"bondvenue_clock_degraded": 1}
	for _, step := range []struct {
		name    string
		state   clock.State
		err     error
		health  string
		reason  string // a part of it
		metrics map[string]float64
		logs    []string
	}{
		{"fine", synced(400 * us), nil, "ok", "", kernel(1, 400e-6, 0), nil},
		{"unsynchronised", clock.State{MaxError: 16 * time.Second, EstimatedError: 20 * us}, nil, "degraded", "unsynchronised",
			kernel(0, 16, 1), []string{"ERROR clock degraded"}},
		{"still unsynchronised", clock.State{MaxError: 16 * time.Second, EstimatedError: 20 * us}, nil, "degraded", "unsynchronised",
			kernel(0, 16, 1), nil},
		{"over the tier", synced(1500 * us), nil, "degraded", "maximum error 1.5ms exceeds the 1ms tolerance (no gateway latency samples yet)",
			kernel(1, 1500e-6, 1), nil},
		{"back within it", synced(900 * us), nil, "ok", "", kernel(1, 900e-6, 0), []string{"INFO clock recovered"}},
		{"over it again", synced(1001 * us), nil, "degraded", "exceeds", kernel(1, 1001e-6, 1), []string{"ERROR clock degraded"}},
		{"fine again", synced(1000 * us), nil, "ok", "", kernel(1, 1e-3, 0), []string{"INFO clock recovered"}},
		{"unreadable", clock.State{}, errors.New("adjtimex: operation not permitted"), "degraded", "cannot be read: adjtimex",
			unreadable, []string{"ERROR clock degraded"}},
		{"unknown here", clock.State{}, fmt.Errorf("not read on plan9: %w", errors.ErrUnsupported), "unknown", "plan9",
			map[string]float64{"bondvenue_clock_tolerance_seconds": 1e-3, "bondvenue_gateway_latency_samples": 0, "bondvenue_clock_degraded": 0},
			[]string{"WARN clock state unknown"}},
	} {
		src.set(step.state, step.err)
		got := mon.Check()
		if got.Health() != step.health || !strings.Contains(got.Reason, step.reason) || (step.reason == "") != (got.Reason == "") {
			t.Errorf("%s: Check() = %s (%q), want %s (%q)", step.name, got.Health(), got.Reason, step.health, step.reason)
		}
		if got != mon.Status() {
			t.Errorf("%s: Status() = %+v, want the last check's %+v", step.name, mon.Status(), got)
		}
		if diff := cmp.Diff(step.metrics, gauges(t, reg)); diff != "" {
			t.Errorf("%s: metrics (-want +got):\n%s", step.name, diff)
		}
		if diff := cmp.Diff(step.logs, logs.since(t)); diff != "" {
			t.Errorf("%s: log (-want +got):\n%s", step.name, diff)
		}
	}
	// The error says why, with the figures.
	for _, want := range []string{`"level":"ERROR","msg":"clock degraded","component":"clock","tolerance_us":1000,` +
		`"basis":"no gateway latency samples yet","gateway_latency_p99_us":0,"latency_samples":0,` +
		`"reason":"the kernel reports the clock unsynchronised","synchronised":false,"estimated_error_us":20,"max_error_us":16000000}`} {
		if !strings.Contains(logs.buf.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.buf.String())
		}
	}
}

// TestTierSwitch: the latency samples choose the tolerance. With none the
// wider one applies; a fast venue (p99 ≤ 1 ms) must keep within 100 µs,
// so a maximum error of 300 µs, fine before, degrades the clock; when the
// recent samples are slow the wider tolerance applies again.
func TestTierSwitch(t *testing.T) {
	src, logs, reg := &fakeSource{}, &logLines{}, prometheus.NewPedanticRegistry()
	src.set(synced(300*us), nil)
	lat := clock.NewLatency(100)
	mon := clock.NewMonitor(src, lat, clock.Config{Logger: logs.logger()})
	reg.MustRegister(mon)
	observe := func(n int, d time.Duration) {
		for range n {
			lat.Observe(d)
		}
	}
	for _, step := range []struct {
		name      string
		samples   func()
		tolerance time.Duration
		basis     string
		p99       time.Duration
		health    string
		logs      []string
	}{
		{"no samples", func() {}, time.Millisecond, "no gateway latency samples yet", 0, "ok", nil},
		{"fast", func() { observe(99, 200*us); observe(1, 5*time.Millisecond) }, 100 * us, "gateway latency p99 at most 1ms", 200 * us,
			"degraded", []string{"ERROR clock degraded"}},
		{"exactly 1 ms", func() { observe(100, time.Millisecond) }, 100 * us, "gateway latency p99 at most 1ms", time.Millisecond, "degraded", nil},
		{"slow", func() { observe(98, 400*us); observe(2, 1001*us) }, time.Millisecond, "gateway latency p99 over 1ms", 1001 * us,
			"ok", []string{"INFO clock recovered"}},
	} {
		step.samples()
		got := mon.Check()
		if got.Tolerance != step.tolerance || got.Basis != step.basis || got.LatencyP99 != step.p99 || got.Health() != step.health {
			t.Errorf("%s: Check() = tolerance %v (%s), p99 %v, %s; want %v (%s), %v, %s", step.name, got.Tolerance, got.Basis,
				got.LatencyP99, got.Health(), step.tolerance, step.basis, step.p99, step.health)
		}
		g := gauges(t, reg)
		if g["bondvenue_clock_tolerance_seconds"] != step.tolerance.Seconds() || g["bondvenue_gateway_latency_p99_seconds"] != step.p99.Seconds() {
			t.Errorf("%s: metrics tolerance %v, p99 %v; want %v, %v", step.name, g["bondvenue_clock_tolerance_seconds"],
				g["bondvenue_gateway_latency_p99_seconds"], step.tolerance.Seconds(), step.p99.Seconds())
		}
		if diff := cmp.Diff(step.logs, logs.since(t)); diff != "" {
			t.Errorf("%s: log (-want +got):\n%s", step.name, diff)
		}
	}
}

func TestTier(t *testing.T) {
	for _, tc := range []struct {
		p99     time.Duration
		samples int
		want    time.Duration
	}{
		{0, 0, time.Millisecond},
		{time.Second, 0, time.Millisecond},
		{0, 1, 100 * us},
		{time.Millisecond, 10, 100 * us},
		{time.Millisecond + 1, 10, time.Millisecond},
	} {
		if got, _ := clock.Tier(tc.p99, tc.samples); got != tc.want {
			t.Errorf("Tier(%v, %d) = %v, want %v", tc.p99, tc.samples, got, tc.want)
		}
	}
}

// TestLatencyWindow: the p99 is the nearest rank over the latest samples
// only.
func TestLatencyWindow(t *testing.T) {
	lat := clock.NewLatency(100)
	if p, n := lat.P99(); p != 0 || n != 0 {
		t.Errorf("P99() of none = %v, %d; want 0, 0", p, n)
	}
	lat.Observe(7 * us)
	if p, n := lat.P99(); p != 7*us || n != 1 {
		t.Errorf("P99() of one = %v, %d; want 7µs, 1", p, n)
	}
	for i := range 100 {
		lat.Observe(time.Duration(100-i) * us) // 100 µs down to 1 µs
	}
	if p, n := lat.P99(); p != 99*us || n != 100 {
		t.Errorf("P99() of 1–100 µs = %v, %d; want 99µs, 100", p, n)
	}
	for range 50 {
		lat.Observe(time.Second) // half the window
	}
	if p, n := lat.P99(); p != time.Second || n != 100 {
		t.Errorf("P99() after 50 slow = %v, %d; want 1s, 100", p, n)
	}
}

// TestStartStop: Start checks at once, so the status is there before the
// first tick; Stop ends the checks.
func TestStartStop(t *testing.T) {
	src, logs := &fakeSource{}, &logLines{}
	mon := clock.NewMonitor(src, clock.NewLatency(0), clock.Config{Interval: time.Hour, Logger: logs.logger()})
	mon.Start()
	mon.Stop()
	mon.Stop() // twice: nothing
	if got := mon.Status(); got.Health() != "degraded" || got.Reason != "the kernel reports the clock unsynchronised" {
		t.Errorf("after Start: %s (%s), want degraded by the first check", got.Health(), got.Reason)
	}
}
