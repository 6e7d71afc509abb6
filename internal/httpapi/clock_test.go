package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/clock"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// fakeClock is a kernel clock whose state the test sets.
type fakeClock struct {
	mu    sync.Mutex
	state clock.State
}

func (f *fakeClock) set(s clock.State) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = s
}

func (f *fakeClock) State() (clock.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state, nil
}

// heardLatency is the venue's latency recorder that also tells the test
// of each sample, which observe records once the answer is written: the
// client may have it before.
type heardLatency struct {
	*clock.Latency
	heard chan struct{}
}

func (h heardLatency) Observe(d time.Duration) {
	h.Latency.Observe(d)
	h.heard <- struct{}{}
}

// syncLog is a log sink safe for the server's goroutines.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestClockHealth: with the clock fine, unsynchronised, and synchronised
// but over its tolerance, GET /healthz answers 200 with the clock's state
// and an overall status of degraded when it is, /metrics carries the
// same, and the log has an error when the clock falls and a line when it
// recovers. Order entry over REST records its latency, which sets the
// tolerance.
func TestClockHealth(t *testing.T) {
	t.Parallel()
	src, logs, reg := &fakeClock{}, &syncLog{}, prometheus.NewRegistry()
	lat := heardLatency{clock.NewLatency(0), make(chan struct{}, 16)}
	mon := clock.NewMonitor(src, lat.Latency, clock.Config{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	reg.MustRegister(mon)
	v := newEnv(t, store.SQLite, options{clock: mon, latency: lat, registry: reg})

	for _, step := range []struct {
		name    string
		state   clock.State
		health  string // the overall status
		metrics []string
		log     string // the line the step adds, if any
	}{
		{"healthz_clock_ok", clock.State{Synchronised: true, EstimatedError: 35 * time.Microsecond, MaxError: 640 * time.Microsecond}, "ok",
			[]string{"bondvenue_clock_degraded 0", "bondvenue_clock_synchronised 1", "bondvenue_clock_max_error_seconds 0.00064",
				"bondvenue_clock_estimated_error_seconds 3.5e-05", "bondvenue_clock_tolerance_seconds 0.001", "bondvenue_gateway_latency_samples 0"}, ""},
		{"healthz_clock_unsynchronised", clock.State{EstimatedError: 16 * time.Second, MaxError: 16 * time.Second}, "degraded",
			[]string{"bondvenue_clock_degraded 1", "bondvenue_clock_synchronised 0", "bondvenue_clock_max_error_seconds 16"},
			`"level":"ERROR","msg":"clock degraded"`},
		{"healthz_clock_over_tolerance", clock.State{Synchronised: true, EstimatedError: 200 * time.Microsecond, MaxError: 1500 * time.Microsecond}, "degraded",
			[]string{"bondvenue_clock_degraded 1", "bondvenue_clock_synchronised 1", "bondvenue_clock_max_error_seconds 0.0015"}, ""},
		{"healthz_clock_recovered", clock.State{Synchronised: true, EstimatedError: 35 * time.Microsecond, MaxError: 640 * time.Microsecond}, "ok",
			[]string{"bondvenue_clock_degraded 0"}, `"level":"INFO","msg":"clock recovered"`},
	} {
		t.Run(step.name, func(t *testing.T) {
			src.set(step.state)
			before := logs.String()
			mon.Check()
			r := v.run(t, call{name: step.name, as: anon, method: "GET", path: "/healthz", want: http.StatusOK})
			if got := r.object(t); got["status"] != step.health {
				t.Errorf("GET /healthz: status %v, want %s", got["status"], step.health)
			}
			metrics := string(v.get(t, anon, "/metrics", http.StatusOK).body)
			for _, want := range step.metrics {
				if !strings.Contains(metrics, "\n"+want+"\n") {
					t.Errorf("/metrics lacks %q", want)
				}
			}
			added := strings.TrimPrefix(logs.String(), before)
			if step.log == "" && added != "" || !strings.Contains(added, step.log) {
				t.Errorf("log added %q, want a line with %s", added, step.log)
			}
		})
	}

	t.Run("order entry latency sets the tier", func(t *testing.T) {
		if _, n := lat.P99(); n != 0 {
			t.Fatalf("%d latency samples before any order, want none", n)
		}
		var book string
		for _, m := range v.markets(t) {
			if m.FacilityType != venue.FacilityOTC && m.IsPartialFillAllowed {
				book = m.ID
			}
		}
		body := map[string]any{"instrument_id": v.instruments(t)[0], "market_id": book, "direction": "bid", "price_per_unit": "95", "quantity": "1000"}
		offer := v.run(t, call{as: trader(0), method: "POST", path: "/api/v1/participant/offers", body: body, want: http.StatusOK})
		hear(t, lat)
		v.get(t, trader(0), "/api/v1/participant/offers", http.StatusOK) // a read: not order entry
		v.run(t, call{as: trader(0), method: "DELETE", path: "/api/v1/participant/offers/" + offer.object(t)["id"].(string), want: http.StatusOK})
		hear(t, lat)
		st := mon.Check()
		if st.LatencySamples != 2 {
			t.Errorf("after an offer and its cancel: %d latency samples, want 2", st.LatencySamples)
		}
		want, basis := clock.Tier(st.LatencyP99, 2)
		got := v.get(t, anon, "/healthz", http.StatusOK).object(t)["clock"].(map[string]any)
		if got["latency_samples"] != 2.0 || got["gateway_latency_p99_us"] != float64(st.LatencyP99.Microseconds()) ||
			got["tolerance_us"] != float64(want.Microseconds()) || got["tier"] != basis {
			t.Errorf("GET /healthz: clock %v, want 2 samples, p99 %v, tolerance %v (%s)", got, st.LatencyP99, want, basis)
		}
	})
}

// hear waits for the next latency sample.
func hear(t *testing.T, lat heardLatency) {
	t.Helper()
	select {
	case <-lat.heard:
	case <-testenv.Expired(t):
		t.Fatal("no latency sample recorded")
	}
}
