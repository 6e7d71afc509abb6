package sequencer

import (
	"sync/atomic"
	"time"
)

// This file holds the model of the sequencer's time that admission
// control (admission.go) predicts a command's wait with.

// costModel is the sequencer's time as admission control predicts it: a
// batch of n commands takes n × perCommand + perBatch. Dividing a batch's
// time by its size alone would be wrong by the commit's fixed cost: at a
// light load every batch holds one command and is mostly its fsync, so a
// queue of 100 commands that one batch of 100 clears in a few milliseconds
// would look like 100 fsyncs and be refused (it was, after every short
// stall: about 1 % of a sustainable 2 000 offers/s). So the sequencer
// measures the two parts of each batch apart: running the commands (per
// command, a moving average) and committing them, which it splits into a
// fixed part and a part per command by a least-squares fit of commit time
// against batch size over recent batches (moving averages of the moments).
// While the batch sizes hardly vary the fit cannot tell the parts apart and
// the whole commit counts as fixed: the estimate then errs low at sizes
// not seen lately, and a command that waits past the budget anyway is
// refused when the sequencer takes it.
//
// observe runs on the sequencer's goroutine; the figures it derives are
// read by any.
type costModel struct {
	n, t, nn, nt float64 // moving averages of size, commit time, size², size × commit time
	run          float64 // moving average of the time to run one command
	seen         bool
	perCommand   atomic.Int64 // ns: running one command and its part of the commit
	perBatch     atomic.Int64 // ns: the commit's fixed part
}

// costWeight is the weight of a batch in the moving averages.
const costWeight = 1.0 / 8

// observe folds in a batch of n commands that ran in apply and committed
// in commit.
func (m *costModel) observe(n int, apply, commit time.Duration) {
	if n == 0 {
		return
	}
	x, y, r := float64(n), float64(commit), float64(apply)/float64(n)
	if !m.seen {
		m.n, m.t, m.nn, m.nt, m.run, m.seen = x, y, x*x, x*y, r, true
	} else {
		m.run += (r - m.run) * costWeight
		m.n += (x - m.n) * costWeight
		m.t += (y - m.t) * costWeight
		m.nn += (x*x - m.nn) * costWeight
		m.nt += (x*y - m.nt) * costWeight
	}
	slope, fixed := 0.0, m.t
	if v := m.nn - m.n*m.n; v >= 1 { // sizes vary by a command or more
		slope = (m.nt - m.n*m.t) / v
		fixed = m.t - slope*m.n
		if slope < 0 || fixed < 0 { // noise: keep the whole commit fixed
			slope, fixed = 0, m.t
		}
	}
	m.perBatch.Store(int64(fixed))
	m.perCommand.Store(int64(m.run + slope))
}

// figures returns the model's time per command and per batch.
func (m *costModel) figures() (perCommand, perBatch time.Duration) {
	return time.Duration(m.perCommand.Load()), time.Duration(m.perBatch.Load())
}
