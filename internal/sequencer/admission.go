package sequencer

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/venue"
)

// Admission control. The sequencer applies commands one batch at a time;
// offered more than it can apply, a queue of commands would grow without
// bound and every caller would wait into its time-out. Instead the queue is
// bounded in time: a command that cannot start within the queue budget is
// refused at once with "the venue is busy" (REST: 503 with Retry-After;
// FIX: the reject of the message with the same text), before it changes
// anything, so a retry (with the same Idempotency-Key or ClOrdID) is safe.
//
// Two lanes share the sequencer. The priority lane carries what must not
// wait behind new business: reads served by the sequencer (book depth, risk
// use), cancels, declines, and the venue's own commands (reference data
// reloads); it is drained first and never refused for time. The ordinary
// lane carries new offers, amendments, RFQs, quotes and accepts, and is
// admitted as follows:
//   - on submission, the expected wait is what the sequencer's cost model
//     (costModel) predicts for the commands ahead of it, batched as the
//     sequencer will batch them; if that exceeds the budget the command is
//     refused without being queued (the REST adapter asks before it even
//     reads the body: CheckQueue);
//   - when the sequencer takes a command that has nevertheless waited longer
//     than the budget (a burst arrived at once), it refuses it then, still
//     before applying it;
//   - a full queue refuses, never blocks;
//   - while requests wait for a CPU so long that, counted twice, the wait
//     exceeds the budget, new business is refused on submission too
//     (cpuwait.go): the sequencer's queue says nothing of requests that
//     have not reached it.

// DefaultQueueBudget is how long a command may wait for the sequencer
// before it is refused (Config.QueueBudget).
const DefaultQueueBudget = 25 * time.Millisecond

// queueCap is the capacity of each lane.
const queueCap = 4096

type priorityKey struct{}

// WithPriority marks ctx's command for the priority lane.
func WithPriority(ctx context.Context) context.Context {
	return context.WithValue(ctx, priorityKey{}, true)
}

// enqueuedKey marks a context with a function Do calls once the command
// is in the engine's queue (WithEnqueued).
type enqueuedKey struct{}

// WithEnqueued returns ctx marked so that Do calls f as soon as its
// command is in the engine's queue, before it runs. A caller that submits
// commands from several goroutines starts the next once the last is
// queued: the queue is first in, first out, so they run in that order
// without each waiting for the last to commit. f is not called when the
// command is refused before it is queued.
func WithEnqueued(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, enqueuedKey{}, f)
}

func enqueued(ctx context.Context) {
	if f, ok := ctx.Value(enqueuedKey{}).(func()); ok {
		f()
	}
}

func isPriority(ctx context.Context) bool {
	v, _ := ctx.Value(priorityKey{}).(bool)
	return v
}

// Refusal reasons, as AdmissionStats and the metrics name them.
const (
	refusedEstimate = iota // expected wait over budget at submission
	refusedWaited          // waited over budget in the queue
	refusedFull            // the lane was full
	refusedCPU             // the wait for a CPU was over budget (cpuwait.go)
	refusalKinds
)

// AdmissionStats counts the sequencer's admission decisions since start.
type AdmissionStats struct {
	// Budget is the queue budget (0: admission control off).
	Budget time.Duration
	// Expected, Waited and Full count ordinary commands refused because
	// their expected wait exceeded the budget, because they waited longer
	// than the budget, and because the queue was full.
	Expected, Waited, Full int64
	// CPU counts those refused because requests waited too long for a
	// CPU (cpuwait.go); CPUWait is that wait now (0 while the process is
	// not busy enough to say).
	CPU     int64
	CPUWait time.Duration
	// Queued is the number of commands waiting now, in both lanes.
	Queued int
	// CostPerCommand is the sequencer's recent time per command: running
	// it and its share of the commit (costModel); CommitCost the part of
	// a batch's time that does not grow with its size (the commit's
	// fsync, mostly). The expected wait rests on both.
	CostPerCommand time.Duration
	CommitCost     time.Duration
}

// AdmissionStats reports the sequencer's admission counters.
func (e *Sequencer) AdmissionStats() AdmissionStats {
	perCommand, perBatch := e.cost.figures()
	return AdmissionStats{Budget: e.budget, Expected: e.refused[refusedEstimate].Load(),
		Waited: e.refused[refusedWaited].Load(), Full: e.refused[refusedFull].Load(),
		CPU: e.refused[refusedCPU].Load(), CPUWait: e.cpu.wait(),
		Queued: len(e.in) + len(e.pri), CostPerCommand: perCommand, CommitCost: perBatch}
}

// expectedWait is how long a command queued now in the ordinary lane
// would wait for the sequencer: the cost model's time for the commands
// ahead of it, in the batches the sequencer will make of them, and the
// batch under way. With none ahead it is 0, so a command is always
// admitted to an empty queue — which is also what refreshes the cost
// after a slow spell (were the cost alone over the budget, every command
// would be refused and the cost never measured again).
func (e *Sequencer) expectedWait() time.Duration {
	q := len(e.in) + len(e.pri)
	if q == 0 {
		return 0
	}
	perCommand, perBatch := e.cost.figures()
	batches := (q+maxBatch-1)/maxBatch + 1
	return time.Duration(q)*perCommand + time.Duration(batches)*perBatch
}

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

// CheckQueue refuses new business as busy, as the sequencer would, when
// the expected wait is over the queue budget: for adapters to refuse
// before they decode a request. It counts as a refusal on the expected
// wait.
func (e *Sequencer) CheckQueue() error {
	if e.budget <= 0 || !e.running.Load() {
		return nil
	}
	if err := e.cpuBusy(); err != nil {
		return err
	}
	if wait := e.expectedWait(); wait > e.budget {
		return e.busy(refusedEstimate, wait)
	}
	return nil
}

// busy is the refusal of a command the sequencer cannot start in time.
func (e *Sequencer) busy(reason int, wait time.Duration) error {
	e.refused[reason].Add(1)
	// Retry after about as long as the queue needs to drain, at least a
	// second (Retry-After counts whole seconds).
	after := time.Duration(math.Ceil(max(wait, time.Second).Seconds())) * time.Second
	msg := "the venue is busy: the sequencer cannot start this request within its queue budget of " + e.budget.String()
	switch reason {
	case refusedCPU:
		msg = fmt.Sprintf("the venue is busy: its CPUs cannot serve this request within its queue budget of %v (requests wait %v for a CPU, twice)",
			e.budget, wait.Round(time.Millisecond))
	case refusedEstimate:
		msg += fmt.Sprintf(" (expected wait %v)", wait.Round(time.Millisecond))
	case refusedWaited:
		msg += fmt.Sprintf(" (waited %v)", wait.Round(time.Millisecond))
	case refusedFull:
		msg += " (queue full)"
	}
	return &venue.Error{Kind: venue.KindNotReady, Message: msg + "; nothing was applied, retry after the Retry-After delay",
		RetryAfter: after}
}

// PinCost sets the cost model to d per command and nothing per batch, on
// which admission bases the expected wait: for tests and load tools that
// need admission to decide on a known cost rather than a measured one.
func (e *Sequencer) PinCost(d time.Duration) {
	e.cost.perCommand.Store(int64(d))
	e.cost.perBatch.Store(0)
}

// IgnoreCPUWait turns the CPU wait off for admission, so that only the
// queue decides: for tests of the queue alone, whose counts a busy
// process would upset.
func (e *Sequencer) IgnoreCPUWait() { e.cpu.off.Store(true) }
