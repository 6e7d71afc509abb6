package httpapi

import (
	"regexp"

	"github.com/bondvenue/bondvenue/internal/gcstats"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// runtimeMetrics are the runtime/metrics figures /metrics carries beside
// the Go collector's defaults (go_memstats_*, go_gc_duration_seconds,
// go_goroutines, GOGC, GOMEMLIMIT, GOMAXPROCS): the collector's pauses as
// a histogram, its cycles and CPU time, and the live heap and its goal, so
// a latency tail can be laid against the collector.
var runtimeMetrics = regexp.MustCompile(`^(` +
	`/sched/pauses/total/gc:seconds|` + // go_sched_pauses_total_gc_seconds
	`/gc/cycles/total:gc-cycles|` + // go_gc_cycles_total_gc_cycles_total
	`/gc/heap/live:bytes|` + // go_gc_heap_live_bytes
	`/gc/heap/goal:bytes|` + // go_gc_heap_goal_bytes
	`/cpu/classes/gc/total:cpu-seconds` + // go_cpu_classes_gc_total_cpu_seconds_total
	`)$`)

// runtimeCollectors are the Go runtime's collectors: the Go collector with
// runtimeMetrics, and the longest collector pause since start, which the
// histogram's coarse Prometheus buckets (powers of ten) cannot show.
func runtimeCollectors() []prometheus.Collector {
	return []prometheus.Collector{
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{Matcher: runtimeMetrics})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bondvenue_gc_pause_max_seconds",
			Help: "Longest stop-the-world pause of the garbage collector since start: the upper bound of the runtime's histogram bucket it fell in (at most a quarter over).",
		}, func() float64 { return gcstats.Read().Max().Seconds() }),
	}
}
