package trading

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
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

// Errors that end a subscription (Subscription.Err).
var (
	// ErrSlowConsumer: the subscriber's buffer filled up; it may subscribe
	// again from the last sequence number it received.
	ErrSlowConsumer = errors.New("the subscriber fell more than its buffer behind")
	// ErrResyncRequired: the sequence number to resume after is not in the
	// log (it is ahead of the log's last event: another database, or one
	// restored from a backup); the subscriber reloads its state and starts
	// from the log's end.
	ErrResyncRequired = errors.New("the sequence number to resume after is not in this venue's event log")
)

// Feed defaults.
const (
	// DefaultFeedBuffer is a subscription's buffer, in events.
	DefaultFeedBuffer = 1024
	// feedMemory is how many of the newest events the feed keeps in
	// memory; a subscriber further behind reads the log.
	feedMemory = 16384
	// feedPoll is how often the tailer looks at the log without a wake-up.
	feedPoll = time.Second
	// feedPage is how many events one read of the log takes.
	feedPage = 500
	// minFeedBuffer holds the most one log event sends (a trade and its
	// two orders, for the operator) with room to spare.
	minFeedBuffer = 8
)

// feed is the committed-event feed of one Service.
type feed struct {
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

func newFeed(db *store.DB, log *slog.Logger) *feed {
	return &feed{db: db, log: log, changed: make(chan struct{}), kick: make(chan struct{}, 1), quit: make(chan struct{})}
}

// start reads the log's end and starts the tailer, once (the first
// subscription does it, so a venue nobody follows keeps no feed; after a
// failure the next subscription tries again).
func (f *feed) start(ctx context.Context) error {
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

// stop ends the tailer and the listener.
func (f *feed) stop() {
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
func (f *feed) wake() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// notified wakes the tailer for a notification of the log's sequence
// number seq unless the feed already holds it (this process's own commits
// arrive through committed first).
func (f *feed) notified(seq int64) {
	f.mu.RLock()
	held := seq > 0 && seq <= f.head
	f.mu.RUnlock()
	if !held {
		f.wake()
	}
}

// committed takes the events of a transaction that just committed (the
// store's commit hook). Events that continue the feed are added at once;
// after a gap (another transaction's events still on their way, or lost
// to a restart of the feed) the tailer reads the log instead.
func (f *feed) committed(events []store.Event) {
	if !f.started.Load() {
		return
	}
	evs := make([]Event, 0, len(events))
	for _, se := range events {
		ev, err := eventOf(se)
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
func (f *feed) add(evs []Event) bool {
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
		f.events = append(make([]Event, 0, 2*feedMemory+feedPage), keep...)
		f.first = f.head - int64(len(f.events)) + 1
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return contiguous
}

// tail reads the log after the feed's head when woken or once a poll
// interval, until stop.
func (f *feed) tail() {
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
func (f *feed) catchUp() error {
	for {
		f.mu.RLock()
		head := f.head
		f.mu.RUnlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var evs []Event
		err := f.db.View(ctx, func(tx *store.Tx) error {
			got, err := tx.EventsWithAudience(ctx, head, feedPage)
			evs = evs[:0]
			for _, se := range got {
				ev, err := eventOf(se)
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
		if len(evs) < feedPage {
			return nil
		}
	}
}

// since returns the events after seq that the feed holds, and whether it
// holds every event after seq (false: seq is older than what it keeps).
// The slice is shared: read it, never write it.
func (f *feed) since(seq int64) ([]Event, <-chan struct{}, bool) {
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

// Subscription is one reader of the committed-event feed.
type Subscription struct {
	// C yields the events, in sequence order, already as the reader may
	// see them. It is closed when the subscription ends; Err says why.
	C      <-chan Event
	err    error
	cancel context.CancelFunc
	done   chan struct{}
}

// Err is why the subscription ended, once C is closed: ErrSlowConsumer,
// ErrResyncRequired, the context's error, or a failure to read the log.
func (s *Subscription) Err() error {
	<-s.done
	return s.err
}

// Close ends the subscription and waits for its goroutine.
func (s *Subscription) Close() {
	s.cancel()
	<-s.done
}

// Subscribe follows the event log for p: it yields the events with a
// sequence number above afterSeq that p may see and filter selects,
// redacted for p, in sequence order, first from the log and then live as
// they commit, without gap or duplicate. Each trade.create is followed by
// the order.create of p's own orders in it, under the same sequence
// number (GET /events, Events, has the trade only). A subscriber that falls more than
// its buffer (filter.Buffer, else Config.FeedBuffer) behind is cut off with ErrSlowConsumer and
// may resume from the last sequence number it received; the writers never
// wait for it. It ends when ctx ends or Close is called.
func (s *Service) Subscribe(ctx context.Context, p venue.Principal, afterSeq int64, filter EventFilter) (*Subscription, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	if afterSeq < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	if err := s.feed.start(ctx); err != nil {
		return nil, err
	}
	r, err := s.newReader(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	var last int64
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		last, err = tx.LastEventSeq(ctx)
		return err
	}); err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	if afterSeq > last {
		return nil, ErrResyncRequired
	}
	size := filter.Buffer
	if size <= 0 {
		size = s.feedBuffer
	}
	size = max(size, minFeedBuffer)
	out := make(chan Event, size)
	sctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{C: out, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sub.done)
		defer close(out)
		defer cancel()
		sub.err = s.follow(sctx, r, afterSeq, filter, out)
	}()
	return sub, nil
}

// follow feeds out until ctx ends or the reader falls behind.
func (s *Service) follow(ctx context.Context, r *reader, cursor int64, filter EventFilter, out chan Event) error {
	refreshed := s.now()
	var pending []Event // what one log event sends
	for {
		if now := s.now(); now.Sub(refreshed) >= lookupTTL { // counterparty changes reach the view
			if err := s.refreshReader(ctx, r); err != nil {
				return err
			}
			refreshed = now
		}
		evs, changed, held := s.feed.since(cursor)
		if !held { // behind what the feed keeps: read the log, at the reader's pace
			page, covered, err := s.readLog(ctx, nil, cursor, feedPage)
			if err != nil {
				return err
			}
			for i := range page {
				for _, e := range r.withDerived(pending[:0], &page[i], &filter) {
					select {
					case out <- e:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
			}
			cursor = covered
			continue
		}
		if len(evs) == 0 {
			select {
			case <-changed:
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(lookupTTL):
			}
			continue
		}
		for i := range evs {
			e := &evs[i]
			cursor = e.Seq
			// A log event and what derives from it go out whole or not at
			// all, so a subscriber resuming after the last sequence number
			// it received misses nothing of it. (This goroutine alone
			// sends: the room it sees can only grow.)
			pending = r.withDerived(pending[:0], e, &filter)
			if cap(out)-len(out) < len(pending) {
				s.log.Warn("event feed: slow subscriber cut off", "participant", r.p.ParticipantID,
					"user", r.p.UserID, "seq", e.Seq)
				return ErrSlowConsumer
			}
			for _, d := range pending {
				out <- d
			}
		}
	}
}

// LastEventSeq is the sequence number of the log's newest event (0 when
// empty): a subscriber that wants only what commits from now on subscribes
// after it.
func (s *Service) LastEventSeq(ctx context.Context) (int64, error) {
	var last int64
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		last, err = tx.LastEventSeq(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("last event: %w", err)
	}
	return last, nil
}
