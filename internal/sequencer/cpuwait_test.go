package sequencer

import (
	"math"
	"testing"
	"time"
)

// TestCPUWaitQuantile: the wait is the upper bound of the bucket that holds
// the 99th percentile of the interval's waits, and nothing while too few
// goroutines waited to say.
func TestCPUWaitQuantile(t *testing.T) {
	buckets := []float64{0, 0.001, 0.002, 0.004, 0.008, math.Inf(1)}
	for _, c := range []struct {
		counts []uint64
		want   time.Duration
	}{
		{[]uint64{100, 0, 0, 0, 0}, time.Millisecond},
		{[]uint64{98, 0, 2, 0, 0}, 4 * time.Millisecond},
		{[]uint64{99, 1, 0, 0, 0}, time.Millisecond},
		{[]uint64{990, 0, 0, 10, 0}, time.Millisecond}, // the 99th percentile: the 990th
		{[]uint64{989, 0, 0, 11, 0}, 8 * time.Millisecond},
		{[]uint64{0, 0, 0, 0, 100}, 8 * time.Millisecond}, // the open bucket: its lower bound
		{[]uint64{10, 0, 0, 0, 5}, 0},                     // 15 waits: too few
	} {
		var n uint64
		for _, x := range c.counts {
			n += x
		}
		if got := quantileOf(c.counts, n, buckets); got != c.want {
			t.Errorf("quantile of %v = %v, want %v", c.counts, got, c.want)
		}
	}
}
