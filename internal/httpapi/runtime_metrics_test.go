package httpapi_test

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestRuntimeMetrics checks that /metrics carries the collector's pauses,
// cycles and CPU, the heap's live size and goal, and GOGC.
func TestRuntimeMetrics(t *testing.T) {
	shared(t, func(t *testing.T, v *env) {
		runtime.GC() // at least one cycle, two pauses
		body := string(v.get(t, anon, "/metrics", http.StatusOK).body)
		value := func(series string) float64 {
			t.Helper()
			for line := range strings.Lines(body) {
				if rest, ok := strings.CutPrefix(line, series+" "); ok {
					f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
					if err != nil {
						t.Fatalf("%s = %q: %v", series, rest, err)
					}
					return f
				}
			}
			t.Errorf("metrics lack %s", series)
			return 0
		}
		for _, series := range []string{
			"go_sched_pauses_total_gc_seconds_count",
			"go_gc_cycles_total_gc_cycles_total",
			"go_gc_heap_live_bytes",
			"go_gc_heap_goal_bytes",
			"go_cpu_classes_gc_total_cpu_seconds_total",
			"bondvenue_gc_pause_max_seconds",
		} {
			if got := value(series); got <= 0 {
				t.Errorf("%s = %v after a collection, want > 0", series, got)
			}
		}
		if !strings.Contains(body, `go_sched_pauses_total_gc_seconds_bucket{le="+Inf"}`) {
			t.Error("metrics lack the GC pause histogram's buckets")
		}
		if got := value("go_gc_gogc_percent"); got == 0 {
			t.Error("go_gc_gogc_percent = 0, want the collector's target")
		}
		if value("go_gc_heap_goal_bytes") < value("go_gc_heap_live_bytes") {
			t.Error("the heap goal is below the live heap")
		}
	})
}
