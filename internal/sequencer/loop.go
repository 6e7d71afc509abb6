package sequencer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file runs the sequencer: Start and Stop, Do, and the loop that
// takes commands from the lanes into batches, applies each batch and
// commits it, and rebuilds the state when a commit fails.

// Group commit lingers, as PostgreSQL's commit_delay does: under load,
// when the batch taken from the queue is small, the sequencer gives it up
// to commitLinger to fill to lingerBatch commands before applying it. A
// transaction costs much the same whether it writes one offer or thirty
// (its fsync, the log pages it writes), so on a busy venue fewer, fuller
// batches leave more CPU for the requests themselves (docs/decisions.md).
// "Under load" means the previous batch held lingerSiblings commands or
// more, so a lone command on a quiet venue never waits.
const (
	commitLinger   = 300 * time.Microsecond
	lingerBatch    = 32
	lingerSiblings = 4
)

// Start takes the sequencer lease, rebuilds the state from the database
// and starts the loop.
func (e *Sequencer) Start(ctx context.Context) error {
	host, _ := os.Hostname()
	holder := fmt.Sprintf("%s/%d", host, os.Getpid())
	if err := e.db.SequencerTx(ctx, func(tx *store.Tx) error {
		var err error
		e.epoch, err = tx.AcquireLease(ctx, holder)
		return err
	}); err != nil {
		return fmt.Errorf("start engine: %w", err)
	}
	st, err := e.rebuild(ctx)
	if err != nil {
		return err
	}
	e.st = st
	e.publishReference(st)
	e.running.Store(true)
	go e.loop()
	e.watched = make(chan struct{})
	go func() {
		defer close(e.watched)
		e.watchReference()
	}()
	if e.budget > 0 {
		go e.watchCPU()
	}
	return nil
}

// referencePoll is how often the engine looks for reference data changed
// by another process: such a change binds within about this long.
const referencePoll = time.Second

// watchReference reloads the reference data when the database's reference
// version moves past the one loaded: changes made through this process's
// service reload at once (refresh), those of another process (the admin
// commands, another instance) within referencePoll.
func (e *Sequencer) watchReference() {
	e.every(referencePoll, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var v int64
		err := e.db.View(ctx, func(tx *store.Tx) error {
			var err error
			v, err = tx.ReferenceVersion(ctx)
			return err
		})
		if err == nil && v != e.Reference().version {
			if err = e.Refresh(ctx); err != nil && !errors.Is(err, ErrStopped) {
				e.log.Warn("reload of reference data changed elsewhere failed; retrying", "err", err.Error())
			}
		}
	})
}

// watchCPU samples the scheduling latencies until the engine stops.
func (e *Sequencer) watchCPU() { e.every(cpuSample, e.cpu.sample) }

// every runs fn every d until the engine stops.
func (e *Sequencer) every(d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-e.quit:
			return
		case <-e.done:
			return
		case <-t.C:
			fn()
		}
	}
}

// Stop lets queued commands finish, then ends the loop.
func (e *Sequencer) Stop() {
	select {
	case <-e.quit:
	default:
		close(e.quit)
	}
	<-e.done
	if e.watched != nil {
		<-e.watched // no read of the database outlives the engine
	}
}

var ErrStopped = &venue.Error{Kind: venue.KindNotReady, Message: "the trading engine is not running"}

// notRunning is the error of a command the engine cannot take: a standby's
// (it never started) or a stopped engine's.
func (e *Sequencer) notRunning() error {
	if e.standby.Load() {
		return ErrStandby
	}
	return ErrStopped
}

// Do submits a command and waits for its answer. Once submitted, a command
// runs to completion even if ctx ends, so its answer is never lost. A
// command of an ordinary request may be refused as too late to start
// (admission.go); one whose ctx is marked WithPriority goes in the priority
// lane.
func (e *Sequencer) Do(ctx context.Context, claim *store.IdempotencyClaim, run func(*State, *Batch) (any, error)) (any, error) {
	if e.standby.Load() || !e.running.Load() {
		return nil, e.notRunning()
	}
	c := &command{run: run, reply: make(chan answer, 1)}
	if claim != nil {
		c.claim, c.hasClaim = *claim, true
	}
	lane := e.pri
	if !isPriority(ctx) {
		lane = e.in
		if e.budget > 0 {
			if err := e.cpuBusy(); err != nil {
				return nil, err
			}
			if wait := e.expectedWait(); wait > e.budget {
				return nil, e.busy(refusedEstimate, wait)
			}
			c.queued = time.Now()
			select {
			case e.in <- c:
			default:
				return nil, e.busy(refusedFull, e.expectedWait())
			}
			lane = nil // queued
		}
	}
	if lane != nil {
		select {
		case lane <- c:
		case <-e.done:
			return nil, ErrStopped
		case <-ctx.Done():
			return nil, &venue.Error{Kind: venue.KindUnavailable, Message: "request cancelled before it reached the engine"}
		}
	}
	enqueued(ctx)
	select {
	case r := <-c.reply:
		return r.v, r.err
	case <-e.done:
		// The loop ended; it answers every command it took before that.
		select {
		case r := <-c.reply:
			return r.v, r.err
		default:
			return nil, ErrStopped
		}
	}
}

func (e *Sequencer) loop() {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	cmds := make([]*command, 0, maxBatch)
	last := 0 // commands in the previous batch
	for {
		e.arm(timer)
		select {
		case c := <-e.pri:
			cmds = e.take(append(cmds[:0], c), &last)
			e.runBatch(cmds)
		case c := <-e.in:
			cmds = e.take(append(cmds[:0], c), &last)
			e.runBatch(cmds)
		case <-timer.C:
			e.runBatch(nil) // expires what is due
		case <-e.quit:
			for {
				select {
				case c := <-e.pri:
					e.runBatch([]*command{c})
				case c := <-e.in:
					e.runBatch([]*command{c})
				default:
					return
				}
			}
		}
	}
}

// take fills a batch begun with cmds: the priority lane first, then the
// ordinary lane, lingering under load (see commitLinger), and refuses the
// ordinary commands that waited past the budget.
func (e *Sequencer) take(cmds []*command, last *int) []*command {
	e.drain(&cmds)
	if *last >= lingerSiblings && len(cmds) < lingerBatch {
		cmds = e.linger(cmds)
	}
	*last = len(cmds)
	if e.budget <= 0 {
		return cmds
	}
	now := time.Now()
	kept := cmds[:0]
	for _, c := range cmds {
		if !c.queued.IsZero() {
			if wait := now.Sub(c.queued); wait > e.budget {
				c.reply <- answer{err: e.busy(refusedWaited, wait)}
				continue
			}
		}
		kept = append(kept, c)
	}
	return kept
}

// drain moves what waits in the lanes into the batch, priority first, up
// to maxBatch.
func (e *Sequencer) drain(cmds *[]*command) {
	for len(*cmds) < maxBatch {
		select {
		case c := <-e.pri:
			*cmds = append(*cmds, c)
			continue
		default:
		}
		select {
		case c := <-e.in:
			*cmds = append(*cmds, c)
		default:
			return
		}
	}
}

// arm sets the timer to the next expiry.
func (e *Sequencer) arm(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	d := time.Hour
	if next, ok := e.st.expiries.next(); ok {
		d = max(next.Sub(e.now()), time.Millisecond)
	}
	if next, ok := e.st.publications.next(); ok {
		d = min(d, max(next.Sub(e.now()), time.Millisecond))
	}
	if next := e.st.phaseDue; !next.IsZero() {
		d = min(d, max(next.Sub(e.now()), time.Millisecond))
	}
	t.Reset(d)
}

// linger waits up to commitLinger for the batch to fill to lingerBatch.
func (e *Sequencer) linger(cmds []*command) []*command {
	t := time.NewTimer(commitLinger)
	defer t.Stop()
	for len(cmds) < lingerBatch {
		select {
		case c := <-e.pri:
			cmds = append(cmds, c)
		case c := <-e.in:
			cmds = append(cmds, c)
		case <-t.C:
			return cmds
		}
	}
	return cmds
}

func (e *Sequencer) runBatch(cmds []*command) {
	start, n := time.Now(), len(cmds)
	var applied time.Time // when the commands had run and the commit began
	defer func() {
		end := time.Now()
		elapsed := end.Sub(start)
		e.batches.Add(1)
		e.commands.Add(int64(n))
		e.batchNanos.Add(int64(elapsed))
		if !applied.IsZero() {
			e.cost.observe(n, applied.Sub(start), end.Sub(applied))
		}
	}()
	// A batch reads the clock once, to the microsecond: records keep it so
	// (offers' *_us columns), lists and the API show milliseconds.
	b := &Batch{now: e.now().UTC().Truncate(time.Microsecond), offers: map[string]*venue.Offer{}}
	e.st.now = b.now
	type done struct {
		c *command
		v any
	}
	var ok []done
	// A refused command changed nothing, but its answer may rest on changes
	// of earlier commands in the batch (an offer filled a moment ago): it too
	// waits for the commit, so no caller learns of a change before it is
	// durable.
	var refused []*command
	answerRefused := func() {
		for _, c := range refused {
			c.reply <- c.refusal
		}
	}
	// Records past their deadline expire before the batch's commands run,
	// whether or not the timer has fired yet: a command applied at b.now
	// never trades with, accepts or amends what expired before it (the
	// timer may fire late under load, and after a restart the rebuilt state
	// holds records that expired while the venue was down).
	if at, due := e.st.publications.next(); due && !at.After(b.now) {
		if _, err := e.apply(&command{run: publishDue}, b); err != nil {
			for _, c := range cmds {
				c.refusal = answer{err: err}
			}
			refused, cmds = cmds, nil
		}
	}
	if at, due := e.st.expiries.next(); due && !at.After(b.now) {
		if _, err := e.apply(&command{run: expireDue}, b); err != nil {
			// The state may be half changed: the batch fails as poisoned.
			for _, c := range cmds {
				c.refusal = answer{err: err}
			}
			refused, cmds = cmds, nil
		}
	}
	// A market's phase changes before the commands too: a command sees
	// the phase at b.now, announced first.
	if at := e.st.phaseDue; !at.IsZero() && !at.After(b.now) && !b.poisoned {
		_, _ = e.apply(&command{run: changePhases}, b) // it cannot fail; a panic poisons the batch
	}
	for _, c := range cmds {
		size := b.size()
		b.by, b.aggressor = byMember, ""
		v, err := e.apply(c, b)
		if err != nil {
			c.refusal = answer{err: err}
			refused = append(refused, c)
			continue
		}
		ok = append(ok, done{c, v})
		if c.hasClaim && b.size() > size { // it wrote: its request is applied with the batch
			claim := c.claim
			// With its result, so that a retry is answered from it if the
			// answer is lost (idempotency.go). A result that cannot be
			// kept is a bug; the request stays applied, its retry refused.
			claim.Result, _ = KeepResult(v)
			b.claims = append(b.claims, claim)
		}
	}
	if !b.poisoned {
		e.st.priceChanges(b)
		e.st.depthChanges(b)
	}
	e.st.open.flush() // the batch's records go cold again (open.go)
	applied = time.Now()
	if !b.empty() || b.poisoned { // a poisoned batch fails below and the state is rebuilt
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := b.persist(ctx, e.db, e.epoch)
		cancel()
		if err != nil {
			if errors.Is(err, store.ErrLeaseLost) {
				e.leaseLost.Store(true)
			}
			e.log.Error("engine commit failed; rebuilding state from the database", "err", err.Error(), "commands", len(ok))
			for _, d := range ok {
				d.c.reply <- answer{err: fmt.Errorf("commit: %w", err)}
			}
			answerRefused()
			e.recover()
			return
		}
	}
	for _, d := range ok {
		d.c.reply <- answer{v: d.v}
	}
	answerRefused()
}

// persist commits the batch if the engine still holds the lease of epoch,
// and returns its events numbered.
func (b *Batch) persist(ctx context.Context, db *store.DB, epoch int64) ([]store.Event, error) {
	if b.poisoned {
		return nil, fmt.Errorf("batch abandoned after a failed command")
	}
	offers := make([]*venue.Offer, len(b.order))
	for i, id := range b.order {
		offers[i] = b.offers[id]
	}
	events := make([]store.Event, len(b.events))
	for i, ev := range b.events {
		events[i] = feed.Record(ev)
	}
	portfolios := make([]store.PortfolioWrite, len(b.portfolioOrder))
	for i, id := range b.portfolioOrder {
		portfolios[i] = store.PortfolioWrite{Portfolio: b.portfolios[id], New: slices.Contains(b.portfolioParties, id)}
	}
	return db.SequencerBatch(ctx, epoch, store.BatchWrite{Portfolios: portfolios, Offers: offers, Recipients: b.recipients, Trades: b.trades,
		Events: events, Claims: b.claims, KillSwitches: b.killSwitches, Halts: b.halts, Marks: b.marks, Published: b.published,
		Records: b.records, Audit: b.audit})
}

// apply runs one command, turning a panic into an error (and a rebuild:
// the state may be half changed).
func (e *Sequencer) apply(c *command, b *Batch) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("engine command panicked", "panic", fmt.Sprint(p))
			err = fmt.Errorf("engine command panicked: %v", p)
			b.poisoned = true
		}
	}()
	return c.run(e.st, b)
}

// recover replaces the state with one rebuilt from the database, retrying
// until the database answers.
func (e *Sequencer) recover() {
	for attempt := 0; ; attempt++ {
		st, err := e.rebuild(context.Background())
		if err == nil {
			e.st = st
			e.publishReference(st)
			return
		}
		e.log.Error("engine rebuild failed", "err", err.Error(), "attempt", attempt)
		select {
		case <-e.quit:
			return
		case <-time.After(min(time.Duration(attempt+1)*100*time.Millisecond, 5*time.Second)):
		}
	}
}

// Refresh reloads reference data (markets, instruments, limits,
// counterparties) inside the sequencer, after an operator changed them.
func (e *Sequencer) Refresh(ctx context.Context) error {
	_, err := e.Do(WithPriority(ctx), nil, func(st *State, b *Batch) (any, error) {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.db.SequencerTx(rctx, func(tx *store.Tx) error { return st.loadReference(rctx, tx) }); err != nil {
			return nil, err
		}
		st.syncPhases(b) // hours set or changed take effect, announced
		e.publishReference(st)
		return nil, nil
	})
	return err
}
