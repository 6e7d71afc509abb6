package sequencer

import (
	"testing"
	"time"
)

// TestCostModel: the admission's cost model splits a batch's commit into
// a fixed part and a part per command when batch sizes vary, keeps the
// whole commit fixed when they do not (a light load: one command a
// batch), and so predicts a short wait for a queue that one batch clears —
// where time per command alone predicted a hundred commits.
func TestCostModel(t *testing.T) {
	near := func(got, want time.Duration) bool {
		d := got - want
		return d > -want/20 && d < want/20
	}

	t.Run("varying sizes", func(t *testing.T) {
		var m costModel
		for i := range 400 {
			n := 1 + (i*7)%40
			m.observe(n, time.Duration(n)*10*time.Microsecond, 300*time.Microsecond+time.Duration(n)*20*time.Microsecond)
		}
		perCommand, perBatch := m.figures()
		if !near(perCommand, 30*time.Microsecond) || !near(perBatch, 300*time.Microsecond) {
			t.Errorf("figures %v per command, %v per batch; want 30µs (10 to run, 20 to commit) and 300µs", perCommand, perBatch)
		}
	})

	t.Run("one command a batch", func(t *testing.T) {
		e := New(nil, nil, time.Now, 25*time.Millisecond)
		for range 50 {
			e.cost.observe(1, 10*time.Microsecond, 400*time.Microsecond)
		}
		perCommand, perBatch := e.cost.figures()
		if !near(perCommand, 10*time.Microsecond) || !near(perBatch, 400*time.Microsecond) {
			t.Errorf("figures %v per command, %v per batch; want 10µs and the commit's 400µs fixed", perCommand, perBatch)
		}
		if w := e.expectedWait(); w != 0 {
			t.Errorf("expected wait on an empty queue = %v, want 0", w)
		}
		for range 100 {
			e.in <- &command{}
		}
		// 100 commands ahead: one batch of them and the one under way.
		if w, want := e.expectedWait(), 100*10*time.Microsecond+2*400*time.Microsecond; !near(w, want) {
			t.Errorf("expected wait behind 100 commands = %v, want %v", w, want)
		}
		for range 2 * maxBatch {
			e.in <- &command{}
		}
		// 612 ahead: three batches, and the one under way.
		if w, want := e.expectedWait(), 612*10*time.Microsecond+4*400*time.Microsecond; !near(w, want) {
			t.Errorf("expected wait behind 612 commands = %v, want %v", w, want)
		}
	})

	t.Run("noise", func(t *testing.T) {
		// Commit time falling with size (noise, or a cache warming up):
		// no negative part per command; the commit counts as fixed.
		var m costModel
		for i := range 100 {
			n := 1 + i%10
			m.observe(n, time.Duration(n)*time.Microsecond, time.Duration(1000-50*n)*time.Microsecond)
		}
		perCommand, perBatch := m.figures()
		if perCommand != time.Microsecond || perBatch <= 0 {
			t.Errorf("figures %v per command, %v per batch; want the 1µs to run and a positive fixed part", perCommand, perBatch)
		}
	})
}
