package httpapi

import (
	"strconv"
	"time"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// engineStats is where the sequencer's counters come from.
type engineStats interface {
	EngineStats() trading.EngineStats
	Role() string
	Takeovers() int64
}

func newMetrics(reg *prometheus.Registry, eng engineStats) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bondvenue_http_requests_total", Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "bondvenue_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.duration,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_engine_batches_total", Help: "Batches the sequencer ran (group commit: one transaction each).",
		}, func() float64 { return float64(eng.EngineStats().Batches) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_engine_commands_total", Help: "Commands the sequencer applied; divided by the batches, the mean batch size.",
		}, func() float64 { return float64(eng.EngineStats().Commands) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_engine_batch_seconds_total", Help: "Time the sequencer spent in its batches: applying commands and committing them.",
		}, func() float64 { return eng.EngineStats().BatchTime.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_leader", Help: "1 while this instance leads (runs the sequencer), 0 while it stands by.",
		}, func() float64 {
			if eng.Role() == trading.RoleLeader {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_takeovers_total", Help: "Times this instance became the leader after standing by (failovers it took).",
		}, func() float64 { return float64(eng.Takeovers()) }))
	for _, c := range runtimeCollectors() {
		_ = reg.Register(c)
	}
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
}
