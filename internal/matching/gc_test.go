package matching

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"
)

// BenchmarkGC750k measures what a book of 750 000 resting orders costs the
// garbage collector: each op is one forced collection (runtime.GC) with the
// book live, so ns/op is the collector's mark work for the whole heap, and
// pause-max-ns the longest stop-the-world pause among them. heap-objects
// is the number of live heap objects with the book built.
func BenchmarkGC750k(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 5))
	bk := New(Config{Eligible: wEligible()})
	fills := make([]Fill, 0, 16)
	for i := range 750_000 {
		op := quiet(rng, i)
		o := wOrder(op)
		if _, err := bk.AddInto(&o, fills[:0]); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var before debug.GCStats
	debug.ReadGCStats(&before)
	b.ResetTimer()
	for range b.N {
		runtime.GC()
	}
	b.StopTimer()
	var after debug.GCStats
	after.Pause = make([]time.Duration, 0, 256)
	debug.ReadGCStats(&after)
	n := int(after.NumGC - before.NumGC)
	if n > len(after.Pause) {
		n = len(after.Pause)
	}
	var longest time.Duration
	if n > 0 {
		longest = slices.Max(after.Pause[:n])
	}
	b.ReportMetric(float64(longest.Nanoseconds()), "pause-max-ns")
	b.ReportMetric(float64((after.PauseTotal-before.PauseTotal).Nanoseconds())/float64(b.N), "pause-ns/gc")
	b.ReportMetric(float64(ms.HeapObjects), "heap-objects")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
	runtime.KeepAlive(bk)
}
