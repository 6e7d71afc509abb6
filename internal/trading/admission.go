package trading

import (
	"context"
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
//   - on submission, the expected wait is the commands ahead of it times the
//     sequencer's recent time per command (a moving average of its
//     batches); if that exceeds the budget the command is refused without
//     being queued (the REST adapter asks before it even reads the body:
//     CheckQueue);
//   - when the sequencer takes a command that has nevertheless waited longer
//     than the budget (a burst arrived at once), it refuses it then, still
//     before applying it;
//   - a full queue refuses, never blocks.

// DefaultQueueBudget is how long a command may wait for the sequencer
// before it is refused (Config.QueueBudget).
const DefaultQueueBudget = 25 * time.Millisecond

// queueCap is the capacity of each lane.
const queueCap = 4096

type priorityKey struct{}

// withPriority marks ctx's command for the priority lane.
func withPriority(ctx context.Context) context.Context {
	return context.WithValue(ctx, priorityKey{}, true)
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
	// Queued is the number of commands waiting now, in both lanes.
	Queued int
	// CostPerCommand is the sequencer's recent time per command (a moving
	// average over batches), the basis of the expected wait.
	CostPerCommand time.Duration
}

// AdmissionStats reports the sequencer's admission counters.
func (s *Service) AdmissionStats() AdmissionStats {
	e := s.eng
	return AdmissionStats{Budget: e.budget, Expected: e.refused[refusedEstimate].Load(),
		Waited: e.refused[refusedWaited].Load(), Full: e.refused[refusedFull].Load(),
		Queued: len(e.in) + len(e.pri), CostPerCommand: time.Duration(e.cost.Load())}
}

// expectedWait is how long a command queued now in the ordinary lane
// would wait for the sequencer: the commands ahead of it times the recent
// cost of one. With none ahead it is 0, so a command is always admitted to
// an empty queue — which is also what refreshes the cost after a slow
// spell (were the cost alone over the budget, every command would be
// refused and the cost never measured again).
func (e *engine) expectedWait() time.Duration {
	return time.Duration(int64(len(e.in)+len(e.pri)) * e.cost.Load())
}

// CheckQueue refuses new business as busy, as the sequencer would, when
// the expected wait is over the queue budget: for adapters to refuse
// before they decode a request. It counts as a refusal on the expected
// wait.
func (s *Service) CheckQueue() error {
	e := s.eng
	if e.budget <= 0 || !e.running.Load() {
		return nil
	}
	if wait := e.expectedWait(); wait > e.budget {
		return e.busy(refusedEstimate, wait)
	}
	return nil
}

// observe folds a batch's time per command into the moving average.
func (e *engine) observe(elapsed time.Duration, n int) {
	if n == 0 {
		return
	}
	per := int64(elapsed) / int64(n)
	for {
		old := e.cost.Load()
		next := per
		if old != 0 {
			next = old + (per-old)/8
		}
		if e.cost.CompareAndSwap(old, next) {
			return
		}
	}
}

// busy is the refusal of a command the sequencer cannot start in time.
func (e *engine) busy(reason int, wait time.Duration) error {
	e.refused[reason].Add(1)
	// Retry after about as long as the queue needs to drain, at least a
	// second (Retry-After counts whole seconds).
	after := time.Duration(math.Ceil(max(wait, time.Second).Seconds())) * time.Second
	msg := "the venue is busy: the sequencer cannot start this request within its queue budget of " + e.budget.String()
	switch reason {
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
