package httpapi

import (
	"strconv"
	"time"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry, eng Engine, cl Cluster) *metrics {
	counters := func(i int) float64 {
		batches, commands, t := eng.Counters()
		return [...]float64{float64(batches), float64(commands), t.Seconds()}[i]
	}
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
		}, func() float64 { return counters(0) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_engine_commands_total", Help: "Commands the sequencer applied; divided by the batches, the mean batch size.",
		}, func() float64 { return counters(1) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_engine_batch_seconds_total", Help: "Time the sequencer spent in its batches: applying commands and committing them.",
		}, func() float64 { return counters(2) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_leader", Help: "1 while this instance leads (runs the sequencer), 0 while it stands by.",
		}, func() float64 {
			if cl.Role() == cluster.RoleLeader {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_engine_queue_length", Help: "Commands waiting for the sequencer, both lanes.",
		}, func() float64 { return float64(eng.AdmissionStats().Queued) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_engine_queue_budget_seconds", Help: "How long an ordinary command may wait for the sequencer before it is refused as busy (0: no bound).",
		}, func() float64 { return eng.AdmissionStats().Budget.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_engine_cpu_wait_seconds", Help: "How long goroutines recently waited for a CPU (99th percentile of at least 64 sampled waits, over 10–100 ms; 0 when too few waited to say): new business is refused while twice this exceeds the queue budget.",
		}, func() float64 { return eng.AdmissionStats().CPUWait.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_engine_command_cost_seconds", Help: "The sequencer's recent time per command: running it and its part of the commit (the cost model the expected queue wait rests on).",
		}, func() float64 { return eng.AdmissionStats().CostPerCommand.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_engine_commit_cost_seconds", Help: "The fixed part of a sequencer batch's commit, whatever its size (the cost model the expected queue wait rests on).",
		}, func() float64 { return eng.AdmissionStats().CommitCost.Seconds() }),
		refusals(eng),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "bondvenue_takeovers_total", Help: "Times this instance became the leader after standing by (failovers it took).",
		}, func() float64 { return float64(cl.Takeovers()) }))
	for _, c := range runtimeCollectors() {
		_ = reg.Register(c)
	}
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// refusals is bondvenue_engine_refused_total by reason.
func refusals(eng Engine) prometheus.Collector {
	desc := prometheus.NewDesc("bondvenue_engine_refused_total",
		"Commands refused as busy before they were applied, by reason: expected (the expected queue wait exceeded the budget), waited (it waited past the budget), full (the queue was full), cpu (requests waited too long for a CPU).",
		[]string{"reason"}, nil)
	return collectorFunc{desc: desc, collect: func(ch chan<- prometheus.Metric) {
		a := eng.AdmissionStats()
		for _, r := range []struct {
			name string
			n    int64
		}{{"expected", a.Expected}, {"waited", a.Waited}, {"full", a.Full}, {"cpu", a.CPU}} {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(r.n), r.name)
		}
	}}
}

// collectorFunc is a collector of one metric family computed on scrape.
type collectorFunc struct {
	desc    *prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

func (m *metrics) observe(method, route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
}
