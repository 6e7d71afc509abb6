package socketio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// namespaces are the streams and the event types of the feed each follows
// (feed.EventFilter.Types).
var namespaces = map[string][]string{
	"/offers":            {"offer.", "rfq.", "quote.", "portfolio_rfq.", feed.EventKillSwitch},
	"/orders":            {feed.EventOrderCreate},
	"/trades":            {feed.EventTradeCreate, feed.EventAllocationCreate},
	"/instruments":       {feed.EventPriceChange, feed.EventDepth, feed.EventHalt, feed.EventPhase},
	"/ohlc":              {feed.EventPriceChange}, // the trades they carry, folded into bars
	"/news":              {"news."},
	"/indicative-prices": {"indicative_price."},
	"/tape":              {"tape."},
}

// eventOHLCUpdate is what /ohlc emits: the bar a price change's trades
// fold into.
const eventOHLCUpdate = "ohlc.update"

// Namespaces returns the namespaces the server serves, each with the
// events it emits besides subscription and resync_required: event types
// ("trade.create") or families of them ending in a dot ("offer." for
// offer.create, offer.update and offer.delete), matched as
// feed.EventFilter matches them. The map is the caller's to modify. It
// is what the AsyncAPI document of the streams is checked against.
func Namespaces() map[string][]string {
	out := make(map[string][]string, len(namespaces))
	for nsp, types := range namespaces {
		out[nsp] = slices.Clone(types)
	}
	out["/ohlc"] = []string{eventOHLCUpdate}
	return out
}

// auth is a namespace CONNECT's payload.
type auth struct {
	Token         string   `json:"token"`
	LastSeq       *int64   `json:"last_seq"`
	InstrumentIDs []string `json:"instrument_ids"`
	MarketID      string   `json:"market_id"`
	Interval      string   `json:"interval"`
	// Depth is the levels per side of /instruments' instrument.depth.
	Depth *int `json:"depth"`
}

// connect opens a namespace socket: authenticate, subscribe, confirm.
func (c *conn) connect(p packet) {
	types, ok := namespaces[p.nsp]
	if !ok {
		c.send(connectErrorFrame(p.nsp, "Invalid namespace", nil))
		return
	}
	c.socketsMu.Lock()
	_, open := c.sockets[p.nsp]
	c.socketsMu.Unlock()
	if open {
		return
	}
	var a auth
	if len(p.data) > 0 && json.Unmarshal(p.data, &a) != nil {
		c.send(connectErrorFrame(p.nsp, "Invalid Token", map[string]int{"statusCode": http.StatusUnauthorized}))
		return
	}
	pr, err := c.s.auth.Authenticate(c.ctx, a.Token)
	if err != nil {
		c.send(connectErrorFrame(p.nsp, "Invalid Token", map[string]int{"statusCode": http.StatusUnauthorized}))
		return
	}
	if !c.s.take(pr.ClientID) {
		c.send(connectErrorFrame(p.nsp, "Too many connections for this credential", map[string]int{"statusCode": http.StatusTooManyRequests}))
		return
	}
	filter := feed.EventFilter{Types: types, InstrumentIDs: a.InstrumentIDs, MarketID: a.MarketID}
	if a.Depth != nil {
		if *a.Depth < 1 || *a.Depth > feed.MaxStreamDepth {
			c.s.give(pr.ClientID)
			c.send(connectErrorFrame(p.nsp, fmt.Sprintf("Invalid depth: 1 to %d levels", feed.MaxStreamDepth),
				map[string]int{"statusCode": http.StatusBadRequest}))
			return
		}
		filter.Depth = *a.Depth
	}
	resync := false
	after := int64(0)
	if a.LastSeq != nil {
		after = *a.LastSeq
	} else if after, err = c.s.live.LastEventSeq(c.ctx); err != nil { // live from now
		c.s.give(pr.ClientID)
		c.send(connectErrorFrame(p.nsp, "Unavailable", map[string]int{"statusCode": http.StatusServiceUnavailable}))
		return
	}
	sk := &socket{c: c, nsp: p.nsp, p: pr, token: a.Token, depth: filter.Depth, stopped: make(chan struct{}),
		sent: c.s.m.events.WithLabelValues(p.nsp)}
	follow := func(after int64) (*subscribe.Subscription, error) {
		if p.nsp == "/ohlc" { // folds events into bars, reading the store: on a goroutine of its own
			return c.s.live.Subscribe(c.ctx, pr, after, filter)
		}
		return c.s.live.SubscribeFunc(c.ctx, pr, after, filter, subscribe.Sink{Render: sk.render, Deliver: sk.deliver})
	}
	sub, err := follow(after)
	if errors.Is(err, subscribe.ErrResyncRequired) || errors.Is(err, venue.ErrInvalid) {
		resync = true
		if after, err = c.s.live.LastEventSeq(c.ctx); err == nil {
			sub, err = follow(after)
		}
	}
	if err != nil {
		c.s.give(pr.ClientID)
		status := http.StatusServiceUnavailable
		if errors.Is(err, venue.ErrForbidden) {
			status = http.StatusForbidden
		}
		c.send(connectErrorFrame(p.nsp, http.StatusText(status), map[string]int{"statusCode": status}))
		return
	}
	sk.sub = sub
	if p.nsp == "/ohlc" {
		if sk.bars, err = c.s.live.LiveBars(pr, a.Interval); err != nil {
			sub.Close()
			c.s.give(pr.ClientID)
			c.send(connectErrorFrame(p.nsp, "Invalid interval: one of "+strings.Join(subscribe.BarIntervals(), ", "),
				map[string]int{"statusCode": http.StatusBadRequest}))
			return
		}
	}
	c.socketsMu.Lock()
	if c.ctx.Err() != nil { // the connection ended meanwhile (endSession waits for the sockets it saw)
		c.socketsMu.Unlock()
		sub.Close()
		c.s.give(pr.ClientID)
		return
	}
	if c.sockets == nil {
		c.sockets = map[string]namespaceSocket{}
	}
	c.sockets[p.nsp] = sk
	c.wg.Add(1)
	c.socketsMu.Unlock()
	c.s.m.sockets.WithLabelValues(p.nsp).Inc()
	c.send(connectFrame(p.nsp, newSID()))
	c.emit(p.nsp, "subscription", map[string]string{"message": "Subscription successful to " + strings.TrimPrefix(p.nsp, "/")})
	if resync {
		c.emit(p.nsp, "resync_required", map[string]any{"last_seq": after})
	}
	if slices.Contains(types, feed.EventPhase) {
		c.emitPhases(p.nsp, a.MarketID, after)
	}
	sub.Start() // the events follow the confirmation
	go func() {
		defer c.wg.Done()
		defer c.s.give(pr.ClientID)
		defer c.s.m.sockets.WithLabelValues(p.nsp).Dec()
		sk.run()
	}()
}

// emitPhases tells a socket joining the phases of the markets with
// trading hours (of market only, when it names one) as of event after.
func (c *conn) emitPhases(nsp, market string, after int64) {
	if c.s.cfg.Phases == nil {
		return
	}
	phases, err := c.s.cfg.Phases(c.ctx)
	if err != nil {
		c.s.log.Warn("socket.io: market phases not read", "err", err.Error())
		return
	}
	for _, ph := range phases {
		if market == "" || market == ph.MarketID {
			c.emit(nsp, feed.EventPhase, wire.MarketPhaseOf(ph.MarketID, ph.State, ph.At),
				meta{Seq: after, Type: feed.EventPhase, OccurredAt: wire.Time(ph.At)})
		}
	}
}

// take counts a socket of a credential, unless it holds the most allowed.
func (s *Server) take(clientID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sockets[clientID] >= s.cfg.MaxSocketsPerCredential {
		return false
	}
	s.sockets[clientID]++
	return true
}

func (s *Server) give(clientID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sockets[clientID]--; s.sockets[clientID] <= 0 {
		delete(s.sockets, clientID)
	}
}

// socket is one namespace socket following the feed.
type socket struct {
	c        *conn
	nsp      string
	p        venue.Principal
	token    string
	sub      *subscribe.Subscription
	stopOnce sync.Once
	stopped  chan struct{}
	// bars are /ohlc's: the current bar of each instrument and market.
	bars *subscribe.LiveBars
	// depth is the levels per side the socket asked of instrument.depth
	// (0: the default).
	depth int
	// sent counts the events emitted on the namespace.
	sent prometheus.Counter
}

// frameKey names an event's frame as one kind of reader receives it: the
// feed redacts an event alike for every user of a firm (and for the
// operator), so the frame is encoded once for all of them (and, for a
// book's depth, all that asked for as many levels).
type frameKey struct {
	seq           int64
	typ, nsp      string
	participantID string
	operator      bool
	depth         int
}

// maxFrames bounds the encoded frames kept; a full table is emptied.
const maxFrames = 20000

// frame returns the EVENT frame of ev on nsp for reader p, encoding it
// only for the first reader of its kind.
func (s *Server) frame(nsp string, p venue.Principal, depth int, ev feed.Event) ([]byte, error) {
	k := frameKey{seq: ev.Seq, typ: ev.Type, nsp: nsp, participantID: p.ParticipantID, operator: p.IsOperator()}
	if ev.Depth != nil {
		k.depth = depth
	}
	s.framesMu.Lock()
	f, ok := s.frames[k]
	s.framesMu.Unlock()
	if ok {
		return f, nil
	}
	f, err := feedFrame(nsp, ev)
	if err != nil {
		return nil, err
	}
	s.framesMu.Lock()
	if len(s.frames) >= maxFrames {
		clear(s.frames)
	}
	s.frames[k] = f
	s.framesMu.Unlock()
	return f, nil
}

// feedFrame is the EVENT frame of a feed event on nsp: its record and
// its meta.
func feedFrame(nsp string, ev feed.Event) ([]byte, error) {
	return eventFrame(nsp, ev.Type, wire.RecordOf(ev), meta{Seq: ev.Seq, Type: ev.Type, OccurredAt: wire.Time(ev.OccurredAt)})
}

// meta is an event's second argument.
type meta struct {
	Seq        int64  `json:"seq"`
	Type       string `json:"type"`
	OccurredAt string `json:"occurred_at"`
}

// run emits the subscription's events until it ends, the token stops
// authenticating, or the socket is stopped. On every namespace but /ohlc
// the feed hands the events to deliver; run waits for the end.
func (sk *socket) run() {
	defer sk.sub.Close()
	t := time.NewTicker(sk.c.s.cfg.TokenCheck)
	defer t.Stop()
	for {
		select {
		case <-sk.stopped:
			return
		case <-t.C:
			if _, err := sk.c.s.auth.Authenticate(sk.c.ctx, sk.token); err != nil {
				if sk.c.ctx.Err() == nil {
					sk.c.s.m.cutoffs.WithLabelValues("token").Inc()
					sk.c.send(disconnectFrame(sk.nsp))
					sk.c.forget(sk.nsp, sk)
				}
				return
			}
		case <-sk.sub.Done():
			sk.ended()
			return
		case ev, ok := <-sk.sub.C: // /ohlc's (nil elsewhere)
			if !ok {
				sk.ended()
				return
			}
			sk.ohlc(ev)
		}
	}
}

// ended disconnects the socket if its subscription was cut off.
func (sk *socket) ended() {
	if err := sk.sub.Err(); errors.Is(err, subscribe.ErrSlowConsumer) && sk.c.ctx.Err() == nil {
		sk.c.s.m.cutoffs.WithLabelValues("slow consumer").Inc()
		sk.c.send(disconnectFrame(sk.nsp))
		sk.c.forget(sk.nsp, sk)
	}
}

// render encodes the frames of what one log event sends the socket's
// audience, once for all its sockets (subscribe.Sink).
func (sk *socket) render(evs []feed.Event) any {
	frames := make([][]byte, 0, len(evs))
	for _, ev := range evs {
		f, err := feedFrame(sk.nsp, ev)
		if err != nil {
			sk.c.s.log.Error("socket.io: event not encoded", "event", ev.Type, "err", err.Error())
			continue
		}
		frames = append(frames, f)
	}
	return frames
}

// deliver queues the frames of what one log event sends the socket: at
// the queue's pace while the subscription catches up on its own
// goroutine (a replay; the frames encoded once per kind of reader,
// Server.frame, as several screens replay the same events after a
// restart), else at once. A connection whose queue stays full (live: is
// full; a replay: for catchUpWait) is cut off as a slow consumer: the
// client resumes from its last sequence number.
func (sk *socket) deliver(ctx context.Context, evs []feed.Event, rendered any, from subscribe.Source) error {
	if frames, ok := rendered.([][]byte); ok {
		for _, f := range frames {
			if !sk.c.send(f) {
				return errConnectionCut
			}
			sk.sent.Inc()
		}
		return nil
	}
	for _, ev := range evs {
		f, err := sk.c.s.frame(sk.nsp, sk.p, sk.depth, ev)
		if err != nil {
			sk.c.s.log.Error("socket.io: event not encoded", "event", ev.Type, "err", err.Error())
			continue
		}
		if from != subscribe.Live {
			if err := sk.c.sendPaced(ctx, f); err != nil {
				return err
			}
		} else if !sk.c.send(f) {
			return errConnectionCut
		}
		sk.sent.Inc()
	}
	return nil
}

// errConnectionCut ends the subscriptions of a connection cut off.
var errConnectionCut = errors.New("socket.io: the connection was cut off")

func (sk *socket) stop() { sk.stopOnce.Do(func() { close(sk.stopped) }) }

// ohlc emits the current bar after a batch's trades on a book.
func (sk *socket) ohlc(ev feed.Event) {
	b, ok, err := sk.bars.Fold(sk.c.ctx, ev)
	if err != nil {
		sk.c.s.log.Warn("socket.io: bar not read", "instrument", ev.PriceChange.InstrumentID, "err", err.Error())
		return
	}
	if !ok {
		return // the best prices moved; nothing traded
	}
	sk.c.emit(sk.nsp, eventOHLCUpdate, wire.BarOf(b), meta{Seq: ev.Seq, Type: eventOHLCUpdate, OccurredAt: wire.Time(ev.OccurredAt)})
	sk.sent.Inc()
}
