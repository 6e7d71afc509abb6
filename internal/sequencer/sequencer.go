// Package sequencer is the venue's sequencer: one goroutine owns the order
// books, the open offers, quotes and RFQs, the risk state and the pre-trade
// controls, applies commands in arrival order, and commits each batch of
// commands with their events in one database transaction before it answers
// them. Use cases (internal/trading) hand it commands (Do) that call the
// State's operations; on start it rebuilds its state from the database.
package sequencer

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/transparency"
)

// The sequencer (docs/architecture.md, "The sequencer"): one goroutine owns the books,
// the open offers and the risk state and applies commands in arrival order.
// Commands that arrive together form a batch; the batch's writes and events
// are persisted in one database transaction (group commit) and the callers
// are answered only after that commit. If the commit fails, every caller
// in the batch gets an error and the state is rebuilt from the database, so
// memory never runs ahead of what is durable. The loop applies and commits
// in turn: callers wait for their answers, so a committer of its own would
// split them into cohorts committing in turn (docs/decisions.md).

// This file holds the Sequencer, its commands, and what it tells of
// itself; loop.go runs it, admission.go admits its commands, rebuild.go
// loads its state.

// maxBatch bounds the commands applied per transaction.
const maxBatch = 256

// command is one unit of work for the sequencer. run applies it to the
// state and records writes in the batch; it must check everything before it
// changes anything, so a returned error leaves the state untouched.
type command struct {
	run   func(st *State, b *Batch) (any, error)
	reply chan answer
	// claim is the command's Idempotency-Key claim, marked applied in the
	// batch's transaction when the command succeeds, with its result.
	claim    store.IdempotencyClaim
	hasClaim bool
	// refusal is the answer of a command that returned an error, sent
	// after its batch commits.
	refusal answer
	// queued is when the command entered the ordinary lane (zero in the
	// priority lane): admission refuses it if it waits past the budget.
	queued time.Time
}

// answer is what a command returns: its value or its error.
type answer struct {
	v   any
	err error
}

// Sequencer is the sequencer of one instance; it runs while the instance
// holds the sequencer lease.
type Sequencer struct {
	db   *store.DB
	log  *slog.Logger
	now  func() time.Time
	in   chan *command // the ordinary lane (admission.go)
	pri  chan *command // the priority lane, drained first
	quit chan struct{}
	done chan struct{}
	st   *State
	// deferrals and mic are the public tape's (publish.go).
	deferrals *transparency.Table
	mic       string
	// epoch is the sequencer lease this engine holds; every batch checks it.
	epoch int64
	// leaseLost is set when a commit found that another engine took the
	// lease: this one can no longer write, and readiness says so.
	leaseLost atomic.Bool
	// running is set once start has rebuilt the state.
	running atomic.Bool
	// standby is set while another instance leads (internal/cluster).
	standby atomic.Bool
	// ref is the state's reference data for the request path.
	ref atomic.Pointer[Reference]
	// batches, commands and batchNanos count the sequencer's work.
	batches, commands, batchNanos atomic.Int64
	// watched is closed when watchReference has returned.
	watched chan struct{}
	// budget bounds an ordinary command's wait in the queue (0: no bound);
	// cost is the sequencer's model of its time (admission.go); refused
	// counts refusals by reason.
	budget  time.Duration
	cost    costModel
	cpu     cpuWatch
	refused [refusalKinds]atomic.Int64
}

// New returns a sequencer on db that refuses an ordinary command it cannot
// start within budget (0: never), not yet started (Start).
func New(db *store.DB, log *slog.Logger, now func() time.Time, budget time.Duration) *Sequencer {
	return &Sequencer{db: db, log: log, now: now, in: make(chan *command, queueCap), pri: make(chan *command, queueCap),
		quit: make(chan struct{}), done: make(chan struct{}), budget: budget, deferrals: transparency.Default(), mic: DefaultMIC}
}

// Alive reports whether the sequencer has started and not stopped.
func (e *Sequencer) Alive() bool {
	if !e.running.Load() {
		return false
	}
	select {
	case <-e.done:
		return false
	default:
		return true
	}
}

// Reference returns the published reference data, or nil before start.
func (e *Sequencer) Reference() *Reference { return e.ref.Load() }

// Epoch is the sequencer lease this sequencer holds (or last held).
func (e *Sequencer) Epoch() int64 { return e.epoch }

// SetStandby marks whether another instance leads: while it does, commands
// are refused with ErrStandby.
func (e *Sequencer) SetStandby(standby bool) { e.standby.Store(standby) }

// LeaseLost reports whether a commit found that another sequencer took
// the lease: this one can no longer write.
func (e *Sequencer) LeaseLost() bool { return e.leaseLost.Load() }

// LoseLease marks the lease lost, when a use case learnt that another
// sequencer holds it.
func (e *Sequencer) LoseLease() { e.leaseLost.Store(true) }

// Running reports whether Start has rebuilt the state and the loop runs.
func (e *Sequencer) Running() bool { return e.running.Load() }

// Counters are the sequencer's work since start: batches run, commands
// applied, and its time in its batches (applying and committing).
func (e *Sequencer) Counters() (batches, commands int64, batchTime time.Duration) {
	return e.batches.Load(), e.commands.Load(), time.Duration(e.batchNanos.Load())
}

// DefaultMIC names the venue on the tape until the operator sets its own
// ISO 10383 market identifier code.
const DefaultMIC = "BVEN"

// SetPostTrade sets the deferral table and the venue's MIC, before Start.
func (e *Sequencer) SetPostTrade(t *transparency.Table, mic string) {
	e.deferrals, e.mic = t, mic
}

// MIC is the venue's market identifier code on the public tape.
func (e *Sequencer) MIC() string { return e.mic }
