// Package gcstats reads the garbage collector's cycles and stop-the-world
// pauses from runtime/metrics, for /metrics and for the load command, which
// reports the pauses of its measured window.
//
// The runtime keeps its pauses in a histogram whose buckets are a quarter
// of a power of two wide (ranges such as 4.29–5.37 ms), not as a list, so a
// pause is known to within its bucket. Every figure here is the upper
// bound of a bucket: the true value is at most that and more than the
// bucket's lower bound, which is up to a fifth below it.
package gcstats

import (
	"math"
	"runtime/metrics"
	"time"
)

// A Snapshot is the collector's counts since the process started, or,
// from Since, over a window, and the heap as it stands.
type Snapshot struct {
	// Cycles is the number of completed collection cycles.
	Cycles uint64
	// HeapLive is the heap the last cycle marked live, HeapGoal the size
	// at which the next cycle is to end, in bytes.
	HeapLive, HeapGoal uint64
	// GOGC is the collector's target percentage.
	GOGC uint64
	// CPU is the CPU time the collector took (the runtime's estimate,
	// brought up to date at each cycle), AssistCPU the part of it that
	// goroutines spent helping to mark because they allocated.
	CPU, AssistCPU time.Duration
	// counts[i] is the number of pauses in [buckets[i], buckets[i+1]).
	counts  []uint64
	buckets []float64
}

// Read returns the counts now.
func Read() Snapshot {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}, {Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/gc/gogc:percent"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/gc/mark/assist:cpu-seconds"}}
	metrics.Read(s)
	var out Snapshot
	if s[0].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[0].Value.Float64Histogram()
		out.counts, out.buckets = h.Counts, h.Buckets
	}
	for i, v := range []*uint64{nil, &out.Cycles, &out.HeapLive, &out.HeapGoal, &out.GOGC} {
		if v != nil && s[i].Value.Kind() == metrics.KindUint64 {
			*v = s[i].Value.Uint64()
		}
	}
	for i, v := range map[int]*time.Duration{5: &out.CPU, 6: &out.AssistCPU} {
		if s[i].Value.Kind() == metrics.KindFloat64 {
			*v = time.Duration(s[i].Value.Float64() * float64(time.Second))
		}
	}
	return out
}

// Since returns the cycles, pauses and CPU between an earlier snapshot
// and s, with s's heap and GOGC.
func (s Snapshot) Since(earlier Snapshot) Snapshot {
	out := s
	out.Cycles -= earlier.Cycles
	out.CPU -= earlier.CPU
	out.AssistCPU -= earlier.AssistCPU
	out.counts = make([]uint64, len(s.counts))
	for i, n := range s.counts {
		if i < len(earlier.counts) {
			n -= earlier.counts[i]
		}
		out.counts[i] = n
	}
	return out
}

// Pauses is the number of stop-the-world pauses (a cycle has two).
func (s Snapshot) Pauses() uint64 {
	var n uint64
	for _, c := range s.counts {
		n += c
	}
	return n
}

// Max is the longest pause: the upper bound of the highest bucket that
// holds one (0 if there was none).
func (s Snapshot) Max() time.Duration {
	for i := len(s.counts) - 1; i >= 0; i-- {
		if s.counts[i] > 0 {
			return s.bound(i)
		}
	}
	return 0
}

// Quantile is the q-quantile of the pauses (nearest rank): the upper bound
// of the bucket that holds it (0 if there was no pause).
func (s Snapshot) Quantile(q float64) time.Duration {
	return HistogramQuantile(s.counts, s.buckets, q)
}

// HistogramQuantile is the q-quantile (nearest rank) of a runtime/metrics
// histogram's counts: the upper bound of the bucket that holds it, the
// lower bound for the last, unbounded bucket; 0 if the counts are all 0.
func HistogramQuantile(counts []uint64, buckets []float64, q float64) time.Duration {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	rank = min(max(rank, 1), total)
	var seen uint64
	for i, c := range counts {
		if seen += c; seen >= rank {
			return bucketBound(buckets, i)
		}
	}
	return 0
}

// bound is the upper bound of bucket i, or its lower bound for the last,
// unbounded bucket.
func (s Snapshot) bound(i int) time.Duration { return bucketBound(s.buckets, i) }

func bucketBound(buckets []float64, i int) time.Duration {
	b := buckets[i+1]
	if math.IsInf(b, 1) {
		b = buckets[i]
	}
	return time.Duration(b * float64(time.Second))
}
