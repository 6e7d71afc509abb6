package sequencer

import (
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/gcstats"
)

// CPU wait. The queue budget bounds the wait for the sequencer, but a
// request waits for a CPU first: to have its connection read, and again to
// be answered. Offered more than the process's CPUs can serve, the
// requests pile up as runnable goroutines before any of them reaches the
// sequencer, whose queue then stays short and refuses nothing, while every
// request waits seconds. So the engine also watches how long goroutines
// wait for a CPU (the runtime's scheduling latencies): while the recent
// wait, counted twice, exceeds the queue budget, new business is refused
// at once, as busy, like a command the sequencer could not start in time.
// Each refusal costs a fraction of an accepted request, so the CPUs go to
// the requests admitted and the wait falls back under the budget.

// cpuSample is how often the scheduling latencies are read.
const cpuSample = 10 * time.Millisecond

// cpuMinWaits is how many waits the figure needs: the runtime samples
// one wait in eight, and a few slow ones on an idle process say nothing of
// saturation. An interval with fewer is pooled with the next, for up to
// cpuWindow; a window that still has fewer gives no figure (0).
const cpuMinWaits = 64

// cpuWindow bounds how long waits are pooled to reach cpuMinWaits.
const cpuWindow = 100 * time.Millisecond

// cpuQuantile is the share of the waits the figure covers.
const cpuQuantile = 0.99

// cpuWatch follows the runtime's scheduling latencies; sample runs on one
// goroutine, wait on any.
type cpuWatch struct {
	last   []uint64     // the histogram at the previous sample
	pooled []uint64     // the waits since the last figure, by bucket
	since  time.Time    // when pooling began
	value  atomic.Int64 // ns: the last figure, 0 when none
	off    atomic.Bool  // tests of the queue alone: report no wait
}

const schedLatencies = "/sched/latencies:seconds"

// sample reads the histogram and, once enough waits are pooled, keeps the
// quantile of them.
func (w *cpuWatch) sample() {
	s := []metrics.Sample{{Name: schedLatencies}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return
	}
	h := s[0].Value.Float64Histogram()
	now := time.Now()
	if len(w.last) != len(h.Counts) {
		w.last, w.pooled, w.since = make([]uint64, len(h.Counts)), make([]uint64, len(h.Counts)), now
		copy(w.last, h.Counts)
		return
	}
	var n uint64
	for i, c := range h.Counts {
		w.pooled[i] += c - w.last[i]
		n += w.pooled[i]
	}
	copy(w.last, h.Counts)
	if n < cpuMinWaits && now.Sub(w.since) < cpuWindow {
		return // pool on
	}
	w.value.Store(int64(quantileOf(w.pooled, n, h.Buckets)))
	clear(w.pooled)
	w.since = now
}

// quantileOf is the cpuQuantile of n waits counted by bucket (the upper
// bound of the bucket that holds it), or 0 under cpuMinWaits.
func quantileOf(counts []uint64, n uint64, buckets []float64) time.Duration {
	if n < cpuMinWaits {
		return 0
	}
	return gcstats.HistogramQuantile(counts, buckets, cpuQuantile)
}

// wait is the recent wait for a CPU.
func (w *cpuWatch) wait() time.Duration {
	if w.off.Load() {
		return 0
	}
	return time.Duration(w.value.Load())
}
