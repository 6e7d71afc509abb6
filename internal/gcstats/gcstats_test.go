package gcstats

import (
	"math"
	"runtime"
	"testing"
	"time"
)

func TestSince(t *testing.T) {
	before := Read()
	for range 3 {
		runtime.GC()
	}
	w := Read().Since(before)
	if w.Cycles < 3 {
		t.Errorf("Cycles = %d over three runtime.GC(), want at least 3", w.Cycles)
	}
	if w.Pauses() < 2*w.Cycles {
		t.Errorf("Pauses() = %d over %d cycles, want two a cycle or more", w.Pauses(), w.Cycles)
	}
	if w.HeapLive == 0 || w.HeapGoal < w.HeapLive || w.GOGC == 0 {
		t.Errorf("HeapLive = %d, HeapGoal = %d, GOGC = %d; want a live heap, a goal above it and a target", w.HeapLive, w.HeapGoal, w.GOGC)
	}
	if w.CPU <= 0 || w.AssistCPU < 0 || w.AssistCPU > w.CPU {
		t.Errorf("CPU = %v, AssistCPU = %v over three cycles, want 0 ≤ assists ≤ CPU, CPU > 0", w.CPU, w.AssistCPU)
	}
	if w.Max() <= 0 || w.Quantile(0.5) <= 0 || w.Quantile(0.5) > w.Max() {
		t.Errorf("Quantile(0.5) = %v, Max() = %v, want 0 < median ≤ max", w.Quantile(0.5), w.Max())
	}
}

func TestQuantile(t *testing.T) {
	// Buckets as the runtime lays them out: -Inf, 0, …, +Inf.
	s := Snapshot{buckets: []float64{math.Inf(-1), 0, 0.001, 0.002, 0.004, math.Inf(1)},
		counts: []uint64{0, 90, 9, 0, 1}}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{
		{0, time.Millisecond},
		{0.5, time.Millisecond},
		{0.9, time.Millisecond},
		{0.91, 2 * time.Millisecond},
		{0.99, 2 * time.Millisecond},
		{0.999, 4 * time.Millisecond}, // the last bucket has no upper bound: its lower one
		{1, 4 * time.Millisecond},
	} {
		if got := s.Quantile(tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := s.Max(); got != 4*time.Millisecond {
		t.Errorf("Max() = %v, want 4ms", got)
	}
	if got := (Snapshot{buckets: s.buckets, counts: make([]uint64, 5)}).Quantile(0.99); got != 0 {
		t.Errorf("Quantile of no pauses = %v, want 0", got)
	}
}
