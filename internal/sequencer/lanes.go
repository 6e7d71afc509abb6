package sequencer

import "context"

// This file holds what a command carries into the sequencer's two lanes
// (admission.go): the mark of the priority lane, the hook called once it is
// queued, and the reasons a command is refused.

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
