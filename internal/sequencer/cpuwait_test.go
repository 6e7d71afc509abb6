package sequencer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
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

// TestCPUBusy: new business is refused as busy, counted apart, while the
// wait for a CPU counted twice exceeds the queue budget — at CheckQueue
// and at submission, before it is queued — and never with no budget or
// with the CPU wait ignored; the priority lane is never refused for it.
// The wait is set, not measured (TestAdmissionCPU saturates the CPUs).
func TestCPUBusy(t *testing.T) {
	const budget = 20 * time.Millisecond
	tests := []struct {
		name    string
		budget  time.Duration
		wait    time.Duration
		ignored bool
		busy    bool
	}{
		{"no wait", budget, 0, false, false},
		{"half the budget", budget, budget / 2, false, false},
		{"just over half the budget", budget, budget/2 + time.Microsecond, false, true},
		{"over the budget", budget, 2 * budget, false, true},
		{"over the budget, ignored", budget, 2 * budget, true, false},
		{"no budget", 0, time.Second, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(nil, nil, time.Now, tt.budget)
			e.running.Store(true) // admission as a started sequencer decides; nothing runs the commands
			e.cpu.value.Store(int64(tt.wait))
			if tt.ignored {
				e.IgnoreCPUWait()
			}
			err := e.CheckQueue()
			if got := err != nil; got != tt.busy {
				t.Fatalf("CheckQueue() = %v, want busy %v", err, tt.busy)
			}
			var ve *venue.Error
			if tt.busy && (!errors.As(err, &ve) || ve.Kind != venue.KindNotReady || ve.RetryAfter < time.Second ||
				!strings.Contains(ve.Message, "CPU") || !strings.Contains(ve.Message, "nothing was applied")) {
				t.Errorf("CheckQueue() = %v, want busy waiting for a CPU, with Retry-After", err)
			}
			if !tt.busy {
				return
			}
			ran := false
			if _, err := e.Do(context.Background(), nil, func(*State, *Batch) (any, error) { ran = true; return nil, nil }); err == nil {
				t.Errorf("Do() of new business = nil, want busy")
			}
			if ran || len(e.in) != 0 {
				t.Errorf("the refused command ran (%v) or was queued (%d queued)", ran, len(e.in))
			}
			if st := e.AdmissionStats(); st.CPU != 2 || st.CPUWait != tt.wait || st.Expected+st.Waited+st.Full != 0 {
				t.Errorf("AdmissionStats() = %+v, want 2 refusals for CPU at a wait of %v, none other", st, tt.wait)
			}

			// The priority lane: queued whatever the CPU wait (answered
			// here as the loop would).
			go func() {
				c := <-e.pri
				c.reply <- answer{v: "done"}
			}()
			if v, err := e.Do(WithPriority(context.Background()), nil, nil); err != nil || v != "done" {
				t.Errorf("Do() in the priority lane = %v, %v; want it queued and answered", v, err)
			}
		})
	}
}
