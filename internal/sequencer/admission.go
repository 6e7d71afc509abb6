package sequencer

import (
	"fmt"
	"math"
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

// cpuBusy is the refusal of new business while the CPUs are saturated, or
// nil.
func (e *Sequencer) cpuBusy() error {
	if wait := e.cpu.wait(); 2*wait > e.budget {
		return e.busy(refusedCPU, wait)
	}
	return nil
}
