package subscribe

import (
	"context"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/redact"
)

// fanout is the one reader of the in-memory feed for the subscriptions
// of its audiences that have caught up with it (one fan-out per CPU, each
// with its share of the audiences). A subscription first catches up on its own
// goroutine (from the log, then from the feed's window) and is then
// handed to the fan-out, which follows the feed once for all of them and
// works out what an event sends once per audience: the subscriptions of
// one firm (or of the operator) with the same filter share it. Where
// every subscription followed the feed itself, each batch woke as many
// goroutines as there were subscribers, and each redacted the event anew.
type fanout struct {
	h  *Hub
	mu sync.Mutex
	// subs are the subscriptions the fan-out delivers to.
	subs map[*Subscription]struct{}
	// cursor is the newest event the fan-out has delivered.
	cursor  int64
	running bool
	// idle wakes the fan-out's goroutine when its last subscription goes.
	idle chan struct{}
	// shared is what the event being delivered sends, by audience.
	shared map[audienceKey]rendering
}

// rendering is what an event sends one audience, and its Sink.Render.
type rendering struct {
	evs      []feed.Event
	rendered any
}

// audienceKey names the subscriptions that receive an event alike: the
// feed redacts for a firm (or for the operator), and the filter decides
// the rest.
type audienceKey struct {
	participant string
	operator    bool
	filter      string
}

func newFanout(h *Hub) *fanout {
	return &fanout{h: h, subs: map[*Subscription]struct{}{}, idle: make(chan struct{}, 1),
		shared: map[audienceKey]rendering{}}
}

// shard is which of n fan-outs delivers to the audience: every
// subscription of an audience goes to the one, which renders for it once.
func (k audienceKey) shard(n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(k.participant))
	_, _ = h.Write([]byte(k.filter))
	return int(h.Sum32() % uint32(n))
}

// audienceOf is sub's audience.
func audienceOf(r *redact.Viewer, f *feed.EventFilter) audienceKey {
	var b strings.Builder
	b.WriteString(strings.Join(f.Types, ","))
	b.WriteByte('|')
	b.WriteString(strings.Join(f.InstrumentIDs, ","))
	b.WriteByte('|')
	b.WriteString(f.MarketID)
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(f.Levels()))
	return audienceKey{participant: r.P.ParticipantID, operator: r.P.IsOperator(), filter: b.String()}
}

// join hands sub, caught up to its cursor, to the fan-out. It reports
// false when sub must catch up further on its own first: the fan-out has
// delivered events that have left the feed's window since.
func (f *fanout) join(sub *Subscription) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := sub.ctx.Err(); err != nil {
		return false, err
	}
	if !f.running {
		f.cursor = sub.cursor
	} else if sub.cursor < f.cursor { // what the fan-out delivered since sub looked
		evs, _, held := f.h.events.Since(sub.cursor)
		if !held {
			return false, nil
		}
		var pending []feed.Event
		for i := range evs {
			e := &evs[i]
			if e.Seq > f.cursor {
				break
			}
			sub.cursor = e.Seq
			if pending = withDerived(sub.r, pending[:0], e, &sub.filter); len(pending) > 0 {
				if err := sub.sink.Deliver(sub.ctx, pending, nil, Live); err != nil {
					return false, err
				}
			}
		}
	}
	f.subs[sub] = struct{}{}
	sub.unwatch = context.AfterFunc(sub.ctx, func() { f.leave(sub, sub.ctx.Err()) })
	if !f.running {
		f.running = true
		go f.run()
	}
	return true, nil
}

// leave ends sub, if the fan-out still delivers to it.
func (f *fanout) leave(sub *Subscription, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.subs[sub]; ok {
		f.drop(sub, err)
	}
}

// drop ends sub, one of f.subs (f.mu held).
func (f *fanout) drop(sub *Subscription, err error) {
	delete(f.subs, sub)
	sub.unwatch()
	sub.end(err)
	if len(f.subs) == 0 {
		select {
		case f.idle <- struct{}{}:
		default:
		}
	}
}

// run follows the feed while there is a subscription to deliver to.
func (f *fanout) run() {
	for {
		f.mu.Lock()
		if len(f.subs) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		evs, changed, held := f.h.events.Since(f.cursor)
		if !held {
			// Behind what the feed keeps (the process stalled): each
			// subscription catches up on its own again, from the log.
			for sub := range f.subs {
				delete(f.subs, sub)
				if sub.unwatch() {
					go f.h.catchUp(sub)
				} else { // ending: leave will not find it
					sub.end(sub.ctx.Err())
				}
			}
			f.running = false
			f.mu.Unlock()
			return
		}
		for i := range evs {
			f.deliver(&evs[i])
		}
		if len(evs) > 0 {
			f.cursor = evs[len(evs)-1].Seq
		}
		f.mu.Unlock()
		if len(evs) == 0 {
			select {
			case <-changed:
			case <-f.idle:
			}
		}
	}
}

// deliver hands e, as each audience may see it, to every subscription
// that has not had it (f.mu held).
func (f *fanout) deliver(e *feed.Event) {
	clear(f.shared)
	for sub := range f.subs {
		if e.Seq <= sub.cursor {
			continue // joined after e
		}
		sub.cursor = e.Seq
		if err := f.h.refreshView(sub); err != nil {
			f.drop(sub, err)
			continue
		}
		sh, ok := f.shared[sub.audience]
		if !ok {
			sh.evs = withDerived(sub.r, nil, e, &sub.filter)
			if len(sh.evs) > 0 && sub.sink.Render != nil {
				sh.rendered = sub.sink.Render(sh.evs)
			}
			f.shared[sub.audience] = sh
		}
		if len(sh.evs) == 0 {
			continue
		}
		if err := sub.sink.Deliver(sub.ctx, sh.evs, sh.rendered, Live); err != nil {
			f.drop(sub, err)
		}
	}
}
