package trading

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/feed"
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

	r        *reader
	filter   feed.EventFilter
	audience audienceKey
	sink     Sink
	// cursor is the last event handed on; refreshed, when r's
	// counterparties were read.
	cursor    int64
	refreshed time.Time
	svc       *Service
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
	s.started.Do(func() { go s.svc.catchUp(s) })
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
// its buffer (filter.Buffer, else Config.FeedBuffer) behind is cut off with ErrSlowConsumer and
// may resume from the last sequence number it received; the writers never
// wait for it. It ends when ctx ends or Close is called.
func (s *Service) Subscribe(ctx context.Context, p venue.Principal, afterSeq int64, filter feed.EventFilter) (*Subscription, error) {
	size := filter.Buffer
	if size <= 0 {
		size = s.feedBuffer
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
func (s *Service) SubscribeFunc(ctx context.Context, p venue.Principal, afterSeq int64, filter feed.EventFilter, sink Sink) (*Subscription, error) {
	if err := require(p, readers...); err != nil {
		return nil, err
	}
	if afterSeq < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	if err := s.events.Start(ctx); err != nil {
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
	sctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{ctx: sctx, cancel: cancel, done: make(chan struct{}),
		r: r, filter: filter, audience: audienceOf(r, &filter), sink: sink,
		cursor: afterSeq, refreshed: s.now(), svc: s}
	return sub, nil
}

// catchUp brings sub up to the feed's newest event on its own goroutine,
// then hands it to the fan-out, or ends it.
func (s *Service) catchUp(sub *Subscription) {
	var pending []feed.Event // what one log event sends
	for {
		if err := sub.ctx.Err(); err != nil {
			sub.end(err)
			return
		}
		if now := s.now(); now.Sub(sub.refreshed) >= lookupTTL { // counterparty changes reach the view
			if err := s.refreshReader(sub.ctx, sub.r); err != nil {
				sub.end(err)
				return
			}
			sub.refreshed = now
		}
		evs, _, held := s.events.Since(sub.cursor)
		if !held { // behind what the feed keeps: read the log, at the reader's pace
			page, covered, err := feed.Read(sub.ctx, s.db, feed.Scope{All: true}, sub.cursor, feed.Page)
			if err != nil {
				sub.end(err)
				return
			}
			for i := range page {
				if pending = sub.r.withDerived(pending[:0], &page[i], &sub.filter); len(pending) > 0 {
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
			if pending = sub.r.withDerived(pending[:0], e, &sub.filter); len(pending) > 0 {
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

// Events returns up to limit events after seq that the caller may see, in
// sequence order, each as the caller may see it: GET /events. It is the
// feed's catch-up read (Subscribe).
func (s *Service) Events(ctx context.Context, p venue.Principal, after int64, limit int) ([]feed.Event, error) {
	if after < 0 {
		return nil, venue.InvalidField("after", "must not be negative")
	}
	r, err := s.newReader(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	evs, _, err := feed.Read(ctx, s.db, r.scope(), after, limit)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	for i := range evs {
		evs[i] = r.redact(evs[i]) // the read kept the reader's events only
	}
	return evs, nil
}

// reader is what redaction needs to know of one reader.
type reader struct {
	p venue.Principal
	// cps are the reader's enabled counterparties.
	cps map[string]bool
	// settlement says which CSDs settle together; csd is the reader's
	// firm's (docs/guide.md, "Settlement compatibility").
	settlement *venue.Settlement
	csd        string
	// names are participants' public names and LEIs, for book entries.
	names func(id string) (name, lei string)
}

func (s *Service) newReader(ctx context.Context, p venue.Principal) (*reader, error) {
	r := &reader{p: p, names: s.participantName}
	return r, s.refreshReader(ctx, r)
}

// refreshReader reloads the reader's counterparties (remembered for
// lookupTTL across readers of one firm).
func (s *Service) refreshReader(ctx context.Context, r *reader) error {
	if r.p.IsOperator() || r.p.ParticipantID == "" {
		r.cps = map[string]bool{}
		return nil
	}
	now := s.now()
	settlement, err := s.settlement(ctx)
	if err != nil {
		return err
	}
	r.settlement, r.csd = settlement, settlement.CSD(r.p.ParticipantID, "", "")
	if cps, ok := recall(s.lookups, s.lookups.cps, r.p.ParticipantID, now); ok {
		r.cps = cps
		return nil
	}
	cps := map[string]bool{}
	err = s.db.View(ctx, func(tx *store.Tx) error {
		ids, err := tx.Counterparties(ctx, r.p.ParticipantID)
		clear(cps)
		for _, id := range ids {
			cps[id] = true
		}
		return err
	})
	if err != nil {
		return err
	}
	remember(s.lookups, s.lookups.cps, r.p.ParticipantID, cps, now.Add(lookupTTL))
	r.cps = cps
	return nil
}

// settlement returns which CSDs settle together (remembered for
// lookupTTL).
func (s *Service) settlement(ctx context.Context) (*venue.Settlement, error) {
	if st, ok := recall(s.lookups, s.lookups.settlement, "", s.now()); ok {
		return st, nil
	}
	var st *venue.Settlement
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		st, err = s.settlementIn(ctx, tx)
		return err
	})
	return st, err
}

// settlementIn is settlement read in tx when not remembered.
func (s *Service) settlementIn(ctx context.Context, tx *store.Tx) (*venue.Settlement, error) {
	now := s.now()
	if st, ok := recall(s.lookups, s.lookups.settlement, "", now); ok {
		return st, nil
	}
	st, err := tx.Settlement(ctx)
	if err != nil {
		return nil, err
	}
	remember(s.lookups, s.lookups.settlement, "", st, now.Add(lookupTTL))
	return st, nil
}

// scope is the participant whose events the reader may read, "" for all.
func (r *reader) scope() feed.Scope {
	if r.p.IsOperator() {
		return feed.Scope{}
	}
	return feed.Scope{Participant: r.p.ParticipantID}
}

// sees reports whether the reader may read e at all.
func (r *reader) sees(e *feed.Event) bool {
	if r.p.IsOperator() || e.Owner == "" || e.Owner == r.p.ParticipantID {
		return true
	}
	return r.p.ParticipantID != "" && slices.Contains(e.Audience, r.p.ParticipantID)
}

// redact returns e, an event the reader may read (sees), as the reader may
// see it. The record is copied before anything is blanked: events are
// shared between readers.
func (r *reader) redact(e feed.Event) feed.Event {
	switch {
	case e.Offer != nil:
		o := offerFor(r.p, *e.Offer)
		e.Offer = &o
	case e.Trade != nil:
		// Both firms read the one event (always so): neither order's
		// account shows; each firm reads its own in its order.create.
		t := *e.Trade
		t.AskOrder.AccountID, t.BidOrder.AccountID = "", ""
		e.Trade = &t
	case e.IndicativePrice != nil:
		ip := audience{p: r.p, cps: r.cps}.redact(*e.IndicativePrice)
		e.IndicativePrice = &ip
	case e.PriceChange != nil:
		pc := *e.PriceChange
		pc.Bid, pc.Ask = r.entry(pc.Bid), r.entry(pc.Ask)
		e.PriceChange = &pc
	case e.Depth != nil:
		d := *e.Depth
		d.Bid, d.Ask = r.entries(d.Bid), r.entries(d.Ask)
		e.Depth = &d
	case e.Portfolio != nil:
		pr := portfolioFor(r.p, *e.Portfolio)
		e.Portfolio = &pr
	}
	return e
}

// entry is a best bid or ask as the reader sees it, as instrument_limits
// shows it: whether the reader can trade with it, and another firm that is
// not its counterparty anonymous.
func (r *reader) entry(le *feed.LimitEntry) *feed.LimitEntry {
	if le == nil {
		return nil
	}
	out := *le
	out.IsCounterpartyEnabled = r.cps[le.ParticipantID] && r.settlement.Compatible(r.csd, le.CSD)
	if !r.p.IsOperator() && le.ParticipantID != r.p.ParticipantID && !out.IsCounterpartyEnabled {
		out.ParticipantID = ""
		return &out
	}
	out.ParticipantName, out.ParticipantLEI = r.names(le.ParticipantID)
	return &out
}

// entries are book entries as the reader sees them (entry).
func (r *reader) entries(les []feed.LimitEntry) []feed.LimitEntry {
	out := make([]feed.LimitEntry, len(les))
	for i := range les {
		out[i] = *r.entry(&les[i])
	}
	return out
}

// withDerived appends to dst the events the reader receives of log event
// e: e itself if the reader may read it and the filter selects it; for a
// trade.create the order.create of each order of the reader's own firm (all
// for the operator); then the book's price change and depth the event
// carries (the depth when it changed within the levels the filter asks
// for). The derived events have e's sequence number. It returns dst.
func (r *reader) withDerived(dst []feed.Event, e *feed.Event, filter *feed.EventFilter) []feed.Event {
	seen := r.sees(e)
	if seen && filter.Match(e) {
		dst = append(dst, r.redact(*e))
	}
	if seen && e.Trade != nil {
		for _, o := range []venue.Order{e.Trade.AskOrder, e.Trade.BidOrder} {
			d := feed.Event{Seq: e.Seq, Type: feed.EventOrderCreate, OccurredAt: e.OccurredAt, Order: &o, Owner: o.ParticipantID}
			if r.sees(&d) && filter.Match(&d) {
				dst = append(dst, d)
			}
		}
	}
	if e.Moved != nil { // public, whoever's offer moved it
		d := feed.Event{Seq: e.Seq, Type: feed.EventPriceChange, OccurredAt: e.OccurredAt, PriceChange: e.Moved}
		if filter.Match(&d) {
			dst = append(dst, r.redact(d))
		}
	}
	if n := filter.Levels(); e.Ladder != nil && e.Ladder.From < n { // public too
		d := feed.Event{Seq: e.Seq, Type: feed.EventDepth, OccurredAt: e.OccurredAt, Depth: e.Ladder.Top(n)}
		if filter.Match(&d) {
			dst = append(dst, r.redact(d))
		}
	}
	return dst
}

// offerFor returns an offer, RFQ or quote as p may see it (docs/guide.md, "Who sees what"):
// another firm's record (an RFQ p was invited to, a quote on p's RFQ)
// shows its participant id but not its account, user and settlement
// provider, and an RFQ's recipients are its requester's to see. Every use
// case and the feed hand records out through it.
func offerFor(p venue.Principal, o venue.Offer) venue.Offer {
	if !owned(p, o.ParticipantID) {
		o.AccountID, o.UserID, o.SettlementProviderID, o.ClientOrderID = "", "", "", ""
		o.Counterparties = nil
	}
	return o
}

// participantName returns a participant's name and LEI, remembered for
// lookupTTL (a renamed firm shows its new name within it). A participant
// that cannot be read shows neither.
func (s *Service) participantName(id string) (name, lei string) {
	now := s.now()
	if v, ok := recall(s.lookups, s.lookups.names, id, now); ok {
		return v[0], v[1]
	}
	v, err, _ := s.lookups.nameReads.Do(id, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var p venue.Participant
		err := s.db.View(ctx, func(tx *store.Tx) error {
			var err error
			p, err = tx.Participant(ctx, id)
			return err
		})
		if err != nil {
			return nil, err
		}
		v := [2]string{p.Name, p.LEI}
		remember(s.lookups, s.lookups.names, id, v, now.Add(lookupTTL))
		return v, nil
	})
	if err != nil {
		s.log.Warn("participant of a book entry not read", "participant", id, "err", err.Error())
		return "", ""
	}
	names := v.([2]string)
	return names[0], names[1]
}
