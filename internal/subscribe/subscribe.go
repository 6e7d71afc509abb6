package subscribe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/redact"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

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

const (
	// DefaultFeedBuffer is a subscription's buffer, in events.
	DefaultFeedBuffer = 1024
	// minFeedBuffer holds the most one log event sends (a trade and its
	// two orders, for the operator) with room to spare.
	minFeedBuffer = 8
)

// Subscription is one reader of the committed-event feed.
type Subscription struct {
	// C yields the events, in sequence order, already as the reader may
	// see them. It is closed when the subscription ends; Err says why.
	// (Nil for SubscribeFunc, which hands the events to a function.)
	C      <-chan feed.Event
	err    error
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	r        *redact.Viewer
	filter   feed.EventFilter
	audience audienceKey
	sink     Sink
	// cursor is the last event handed on; refreshed, when r's
	// counterparties were read.
	cursor    int64
	refreshed time.Time
	hub       *Hub
	started   sync.Once
	endOnce   sync.Once
	// unwatch stops the watch of ctx the fan-out set up (fanout.join).
	unwatch func() bool
}

// Err is why the subscription ended, once C is closed: ErrSlowConsumer,
// ErrResyncRequired, the context's error, or a failure to read the log.
func (s *Subscription) Err() error {
	<-s.done
	return s.err
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Start starts the deliveries of a subscription from SubscribeFunc.
func (s *Subscription) Start() {
	s.started.Do(func() { go s.hub.catchUp(s) })
}

// Close ends the subscription and waits until it has.
func (s *Subscription) Close() {
	s.cancel()
	s.started.Do(func() { s.end(context.Canceled) }) // never started
	<-s.done
}

// end ends the subscription with err, once.
func (s *Subscription) end(err error) {
	s.endOnce.Do(func() {
		s.err = err
		s.cancel()
		if s.sink.OnEnd != nil {
			s.sink.OnEnd()
		}
		close(s.done)
	})
}

// Subscribe follows the event log for p: it yields the events with a
// sequence number above afterSeq that p may see and filter selects,
// redacted for p, in sequence order, first from the log and then live as
// they commit, without gap or duplicate. Each trade.create is followed by
// the order.create of p's own orders in it, under the same sequence
// number (GET /events, Events, has the trade only). A subscriber that falls more than
// its buffer (filter.Buffer, else Config.Buffer) behind is cut off with ErrSlowConsumer and
// may resume from the last sequence number it received; the writers never
// wait for it. It ends when ctx ends or Close is called.
func (s *Hub) Subscribe(ctx context.Context, p venue.Principal, afterSeq int64, filter feed.EventFilter) (*Subscription, error) {
	size := filter.Buffer
	if size <= 0 {
		size = s.buffer
	}
	out := make(chan feed.Event, max(size, minFeedBuffer))
	sub, err := s.SubscribeFunc(ctx, p, afterSeq, filter, Sink{Deliver: func(sctx context.Context, evs []feed.Event, _ any, from Source) error {
		if from == FromLog { // at the reader's pace
			for _, e := range evs {
				select {
				case out <- e:
				case <-sctx.Done(): // ended, or closed
					return sctx.Err()
				}
			}
			return nil
		}
		// A log event and what derives from it go out whole or not at
		// all, so a subscriber resuming after the last sequence number it
		// received misses nothing of it. (One goroutine at a time sends:
		// the room it sees can only grow.)
		if cap(out)-len(out) < len(evs) {
			s.log.Warn("event feed: slow subscriber cut off", "participant", p.ParticipantID,
				"user", p.UserID, "seq", evs[0].Seq)
			return ErrSlowConsumer
		}
		for _, e := range evs {
			out <- e
		}
		return nil
	}, OnEnd: func() { close(out) }})
	if err != nil {
		return nil, err
	}
	sub.C = out
	sub.Start()
	return sub, nil
}

// Source is where a subscription's delivery comes from (SubscribeFunc).
type Source int

const (
	// FromLog: the subscription's own goroutine reads the log; deliver
	// may wait for its reader.
	FromLog Source = iota
	// FromWindow: the subscription's own goroutine reads what the feed
	// keeps in memory; deliver may wait (the feed moves on without it,
	// and the subscription reads the log then) or refuse.
	FromWindow
	// Live: the fan-out delivers to every subscription in turn; deliver
	// must not wait.
	Live
)

// Sink is where SubscribeFunc hands a subscription's events.
type Sink struct {
	// Render, if not nil, makes what Deliver hands on of what one log
	// event sends (a stream's frames): the fan-out renders once for every
	// subscription of one audience (one firm, or the operator, with the
	// same filter), so Render must give them all the same.
	Render func(evs []feed.Event) any
	// Deliver takes what one log event sends, whole, in sequence order,
	// never from two goroutines at once, with Render's rendering (nil
	// from the subscription's own goroutine: FromLog and FromWindow) and
	// where it comes from. ctx ends when the subscription does (Close
	// included): a Deliver that waits stops waiting then. When Live it
	// must not wait: it returns
	// ErrSlowConsumer if its reader cannot take the events now. The
	// events, the slice and the rendering are shared with other readers:
	// Deliver must not modify or keep them. An error ends the
	// subscription with it.
	Deliver func(ctx context.Context, evs []feed.Event, rendered any, from Source) error
	// OnEnd, if not nil, runs once as the subscription ends.
	OnEnd func()
}

// SubscribeFunc is Subscribe handing the events to sink rather than to a
// channel. Nothing is delivered until Start.
func (s *Hub) SubscribeFunc(ctx context.Context, p venue.Principal, afterSeq int64, filter feed.EventFilter, sink Sink) (*Subscription, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	if afterSeq < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	if err := s.events.Start(ctx); err != nil {
		return nil, err
	}
	r, err := s.viewers.Viewer(ctx, p)
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
	sctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{ctx: sctx, cancel: cancel, done: make(chan struct{}),
		r: r, filter: filter, audience: audienceOf(r, &filter), sink: sink,
		cursor: afterSeq, refreshed: s.now(), hub: s}
	return sub, nil
}

// catchUp brings sub up to the feed's newest event on its own goroutine,
// then hands it to the fan-out, or ends it.
func (s *Hub) catchUp(sub *Subscription) {
	var pending []feed.Event // what one log event sends
	for {
		if err := sub.ctx.Err(); err != nil {
			sub.end(err)
			return
		}
		if err := s.refreshView(sub); err != nil {
			sub.end(err)
			return
		}
		evs, _, held := s.events.Since(sub.cursor)
		if !held { // behind what the feed keeps: read the log, at the reader's pace
			page, covered, err := feed.Read(sub.ctx, s.db, feed.Scope{All: true}, sub.cursor, feed.Page)
			if err != nil {
				sub.end(err)
				return
			}
			for i := range page {
				if pending = withDerived(sub.r, pending[:0], &page[i], &sub.filter); len(pending) > 0 {
					if err := sub.sink.Deliver(sub.ctx, pending, nil, FromLog); err != nil {
						sub.end(err)
						return
					}
				}
			}
			sub.cursor = covered
			continue
		}
		if len(evs) == 0 {
			joined, err := s.fans[sub.audience.shard(len(s.fans))].join(sub)
			if err != nil {
				sub.end(err)
			}
			if joined || err != nil {
				return
			}
			continue
		}
		for i := range evs {
			e := &evs[i]
			sub.cursor = e.Seq
			if pending = withDerived(sub.r, pending[:0], e, &sub.filter); len(pending) > 0 {
				if err := sub.sink.Deliver(sub.ctx, pending, nil, FromWindow); err != nil {
					sub.end(err)
					return
				}
			}
		}
	}
}

// LastEventSeq is the sequence number of the log's newest event (0 when
// empty): a subscriber that wants only what commits from now on subscribes
// after it.
func (s *Hub) LastEventSeq(ctx context.Context) (int64, error) {
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

// Events returns up to limit events after seq that the caller may see, in
// sequence order, each as the caller may see it: GET /events. It is the
// feed's catch-up read (Subscribe).
func (s *Hub) Events(ctx context.Context, p venue.Principal, after int64, limit int) ([]feed.Event, error) {
	if after < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	r, err := s.viewers.Viewer(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	evs, _, err := feed.Read(ctx, s.db, r.Scope(), after, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	for i := range evs {
		evs[i] = r.Event(evs[i]) // the read kept the reader's events only
	}
	return evs, nil
}

// withDerived appends to dst the events the reader receives of log event
// e: e itself if the reader may read it and the filter selects it; for a
// trade.create the order.create of each order of the reader's own firm (all
// for the operator); then the book's price change and depth the event
// carries (the depth when it changed within the levels the filter asks
// for). The derived events have e's sequence number. It returns dst.
func withDerived(r *redact.Viewer, dst []feed.Event, e *feed.Event, filter *feed.EventFilter) []feed.Event {
	seen := r.Sees(e)
	if seen && filter.Match(e) {
		dst = append(dst, r.Event(*e))
	}
	if seen && e.Trade != nil {
		for _, o := range []venue.Order{e.Trade.AskOrder, e.Trade.BidOrder} {
			d := feed.Event{Seq: e.Seq, Type: feed.EventOrderCreate, OccurredAt: e.OccurredAt, Order: &o, Owner: o.ParticipantID}
			if r.Sees(&d) && filter.Match(&d) {
				dst = append(dst, d)
			}
		}
	}
	if e.Moved != nil { // public, whoever's offer moved it
		d := feed.Event{Seq: e.Seq, Type: feed.EventPriceChange, OccurredAt: e.OccurredAt, PriceChange: e.Moved}
		if filter.Match(&d) {
			dst = append(dst, r.Event(d))
		}
	}
	if n := filter.Levels(); e.Ladder != nil && e.Ladder.From < n { // public too
		d := feed.Event{Seq: e.Seq, Type: feed.EventDepth, OccurredAt: e.OccurredAt, Depth: e.Ladder.Top(n)}
		if filter.Match(&d) {
			dst = append(dst, r.Event(d))
		}
	}
	return dst
}

// refreshView asks for sub's view again once it is Config.Refresh old, so
// that counterparty changes reach it.
func (s *Hub) refreshView(sub *Subscription) error {
	now := s.now()
	if now.Sub(sub.refreshed) < s.refresh {
		return nil
	}
	r, err := s.viewers.Viewer(sub.ctx, sub.r.P)
	if err != nil {
		return err
	}
	sub.r, sub.refreshed = r, now
	return nil
}
