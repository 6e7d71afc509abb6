// Package feed is the committed-event feed: the event log's stored format,
// and the newest committed events kept in memory for every live reader.
package feed

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
)

// This file is the committed-event feed (docs/architecture.md, "The committed-event feed"): the one seam every live
// adapter (the streams, FIX) reads. The log in the database is the source.
// The feed keeps the newest events in memory, typed: every write path hands
// its events over right after its commit (the store's commit hook), and a
// tailer reads from the log whatever did not arrive that way (an event
// whose hand-over came out of order, or one committed by another process:
// on PostgreSQL a notification wakes it, and it also looks once a poll
// interval). A subscriber reads the log until it reaches the events in
// memory, then follows them; it never waits for the writers, and they never
// wait for it.

// Feed defaults.
const (
	// feedMemory is how many of the newest events the feed keeps in
	// memory; a subscriber further behind reads the log.
	feedMemory = 16384
	// feedPoll is how often the tailer looks at the log without a wake-up.
	feedPoll = time.Second
	// Page is how many events one read of the log takes.
	Page = 500
)

// Feed is the committed-event feed of one process.
type Feed struct {
	db  *store.DB
	log *slog.Logger

	startMu sync.Mutex
	started atomic.Bool

	mu sync.RWMutex
	// events are the newest committed events, consecutive: events[i].Seq is
	// first+i. The slice is only appended to or replaced, never written in
	// place, so a reader may keep a sub-slice after unlocking.
	events []Event
	first  int64 // the sequence number of events[0]
	head   int64 // the last sequence number the feed holds (first-1+len)
	// changed is closed, and replaced, whenever head moves.
	changed chan struct{}

	kick chan struct{} // wakes the tailer
	quit chan struct{}
	done sync.WaitGroup
}

// New returns the feed of the log in db, not yet started.
func New(db *store.DB, log *slog.Logger) *Feed {
	return &Feed{db: db, log: log, changed: make(chan struct{}), kick: make(chan struct{}, 1), quit: make(chan struct{})}
}

// Start reads the log's end and starts the tailer, once (the first
// subscription does it, so a venue nobody follows keeps no feed; after a
// failure the next subscription tries again).
func (f *Feed) Start(ctx context.Context) error {
	f.startMu.Lock()
	defer f.startMu.Unlock()
	if f.started.Load() {
		return nil
	}
	var last int64
	if err := f.db.View(ctx, func(tx *store.Tx) error {
		var err error
		last, err = tx.LastEventSeq(ctx)
		return err
	}); err != nil {
		return fmt.Errorf("start event feed: %w", err)
	}
	f.mu.Lock()
	f.first, f.head = last+1, last
	f.mu.Unlock()
	f.started.Store(true)
	lctx, cancel := context.WithCancel(context.Background())
	f.done.Add(2)
	go func() {
		defer f.done.Done()
		f.tail()
		cancel()
	}()
	go func() {
		defer f.done.Done()
		_ = f.db.ListenEvents(lctx, f.notified)
	}()
	return nil
}

// Stop ends the tailer and the listener.
func (f *Feed) Stop() {
	if !f.started.Load() {
		return
	}
	select {
	case <-f.quit:
	default:
		close(f.quit)
	}
	f.done.Wait()
}

// wake asks the tailer to read the log.
func (f *Feed) wake() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// notified wakes the tailer for a notification of the log's sequence
// number seq unless the feed already holds it (this process's own commits
// arrive through committed first).
func (f *Feed) notified(seq int64) {
	f.mu.RLock()
	held := seq > 0 && seq <= f.head
	f.mu.RUnlock()
	if !held {
		f.wake()
	}
}

// Committed takes the events of a transaction that just committed (the
// store's commit hook). Events that continue the feed are added at once;
// after a gap (another transaction's events still on their way, or lost
// to a restart of the feed) the tailer reads the log instead.
func (f *Feed) Committed(events []store.Event) {
	if !f.started.Load() {
		return
	}
	evs := make([]Event, 0, len(events))
	for _, se := range events {
		ev, err := Decode(se)
		if err != nil {
			f.log.Error("committed event not readable; the tailer reads it from the log", "seq", se.Seq, "err", err.Error())
			f.wake()
			return
		}
		evs = append(evs, ev)
	}
	if !f.add(evs) {
		f.wake()
	}
}

// add appends the events that continue the feed and reports whether there
// was no gap before them.
func (f *Feed) add(evs []Event) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	moved, contiguous := false, true
	for _, e := range evs {
		switch {
		case e.Seq <= f.head: // already here
		case e.Seq == f.head+1:
			f.events = append(f.events, e)
			f.head++
			moved = true
		default:
			contiguous = false
		}
		if !contiguous {
			break
		}
	}
	if !moved {
		return contiguous
	}
	if len(f.events) > 2*feedMemory { // copied out, never trimmed in place
		keep := f.events[len(f.events)-feedMemory:]
		f.events = append(make([]Event, 0, 2*feedMemory+Page), keep...)
		f.first = f.head - int64(len(f.events)) + 1
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return contiguous
}

// tail reads the log after the feed's head when woken or once a poll
// interval, until stop.
func (f *Feed) tail() {
	t := time.NewTicker(feedPoll)
	defer t.Stop()
	for {
		select {
		case <-f.quit:
			return
		case <-f.kick:
		case <-t.C:
		}
		if err := f.catchUp(); err != nil {
			f.log.Warn("event feed: reading the log failed; retrying", "err", err.Error())
		}
	}
}

// catchUp adds every committed event after the head from the log.
func (f *Feed) catchUp() error {
	for {
		f.mu.RLock()
		head := f.head
		f.mu.RUnlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var evs []Event
		err := f.db.View(ctx, func(tx *store.Tx) error {
			got, err := tx.EventsWithAudience(ctx, head, Page)
			evs = evs[:0]
			for _, se := range got {
				ev, err := Decode(se)
				if err != nil {
					return err
				}
				evs = append(evs, ev)
			}
			return err
		})
		cancel()
		if err != nil {
			return err
		}
		f.add(evs)
		if len(evs) < Page {
			return nil
		}
	}
}

// Since returns the events after seq that the feed holds, and whether it
// holds every event after seq (false: seq is older than what it keeps).
// The slice is shared: read it, never write it.
func (f *Feed) Since(seq int64) ([]Event, <-chan struct{}, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if seq < f.first-1 {
		return nil, f.changed, false
	}
	if seq >= f.head {
		return nil, f.changed, true
	}
	return f.events[seq-f.first+1:], f.changed, true
}
