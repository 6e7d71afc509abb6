// Package socketio is the venue's live stream adapter (docs/guide.md, "Live streams"):
// Engine.IO v4 and Socket.IO v5 at /socket.io/, written for the venue on
// github.com/coder/websocket. Each namespace socket follows the
// committed-event feed (trading.Subscribe) for its principal and emits
// every event as (record, {seq, type, occurred_at}). One goroutine owns
// each connection's writes, behind a bounded queue: a client that does not
// keep up is disconnected, never waited on.
//
// Both transports are served: WebSocket, and HTTP long-polling with the
// upgrade to WebSocket that the client attempts by default (networks that
// block WebSockets stay on polling).
package socketio

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
	"github.com/bondvenue/bondvenue/internal/wire"
)

// Config tunes the adapter. Zero fields take the defaults.
type Config struct {
	Logger *slog.Logger
	// Registry receives the stream metrics (nil: none).
	Registry prometheus.Registerer
	// PingInterval and PingTimeout are Engine.IO's heartbeat (25 s, 20 s):
	// a client that does not answer a ping within the timeout is dropped.
	PingInterval, PingTimeout time.Duration
	// MaxPayload bounds a client's message in bytes (64 KiB).
	MaxPayload int64
	// QueueSize bounds the frames waiting to be written to one connection
	// (1024): a connection further behind is closed.
	QueueSize int
	// MaxSocketsPerCredential bounds the namespace sockets one credential
	// holds open over all its connections (64).
	MaxSocketsPerCredential int
	// TokenCheck is how often a socket checks that its token still
	// authenticates (1 s): an expired or revoked token disconnects it.
	TokenCheck time.Duration
}

// namespaces are the streams and the event types of the feed each follows
// (trading.EventFilter.Types).
var namespaces = map[string][]string{
	"/offers":            {"offer.", "rfq.", "quote."},
	"/orders":            {trading.EventOrderCreate},
	"/trades":            {trading.EventTradeCreate},
	"/instruments":       {trading.EventPriceChange, trading.EventDepth, trading.EventHalt},
	"/ohlc":              {trading.EventPriceChange}, // the trades they carry, folded into bars
	"/news":              {"news."},
	"/indicative-prices": {"indicative_price."},
}

// eventOHLCUpdate is what /ohlc emits: the bar a price change's trades
// fold into.
const eventOHLCUpdate = "ohlc.update"

// Namespaces returns the namespaces the server serves, each with the
// events it emits besides subscription and resync_required: event types
// ("trade.create") or families of them ending in a dot ("offer." for
// offer.create, offer.update and offer.delete), matched as
// trading.EventFilter matches them. The map is the caller's to modify. It
// is what the AsyncAPI document of the streams is checked against.
func Namespaces() map[string][]string {
	out := make(map[string][]string, len(namespaces))
	for nsp, types := range namespaces {
		out[nsp] = slices.Clone(types)
	}
	out["/ohlc"] = []string{eventOHLCUpdate}
	return out
}

// Server serves /socket.io/.
type Server struct {
	svc *trading.Service
	cfg Config
	log *slog.Logger
	m   *metrics

	mu      sync.Mutex
	sockets map[string]int // open namespace sockets per credential
	// sessions are the open connections by sid (polling requests and
	// upgrades find theirs here).
	sessions sync.Map

	framesMu sync.Mutex
	frames   map[frameKey][]byte // see frame
}

// New returns the adapter over svc.
func New(svc *trading.Service, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 25 * time.Second
	}
	if cfg.PingTimeout <= 0 {
		cfg.PingTimeout = 20 * time.Second
	}
	if cfg.MaxPayload <= 0 {
		cfg.MaxPayload = 64 << 10
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 1024
	}
	if cfg.MaxSocketsPerCredential <= 0 {
		cfg.MaxSocketsPerCredential = 64
	}
	if cfg.TokenCheck <= 0 {
		cfg.TokenCheck = time.Second
	}
	return &Server{svc: svc, cfg: cfg, log: cfg.Logger, m: newMetrics(cfg.Registry), sockets: map[string]int{},
		frames: map[frameKey][]byte{}}
}

// ServeHTTP serves Engine.IO v4: a WebSocket connection, or a
// long-polling session (GET to poll, POST to send) that the client may
// upgrade to a WebSocket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("EIO") != "4" {
		engineError(w, 5, "Unsupported protocol version")
		return
	}
	sid := q.Get("sid")
	var c *conn
	if sid != "" {
		v, ok := s.sessions.Load(sid)
		if !ok {
			engineError(w, 1, "Session ID unknown")
			return
		}
		c = v.(*conn)
	}
	switch q.Get("transport") {
	case "websocket":
		s.serveWebSocket(w, r, c)
	case "polling":
		switch {
		case c == nil && r.Method == http.MethodGet:
			s.handshakePolling(w)
		case c == nil:
			engineError(w, 2, "Bad handshake method")
		case r.Method == http.MethodGet:
			c.poll(w, r)
		case r.Method == http.MethodPost:
			c.post(w, r)
		default:
			engineError(w, 3, "Bad request")
		}
	default:
		engineError(w, 0, "Transport unknown")
	}
}

func engineError(w http.ResponseWriter, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": message})
}

func newSID() string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// conn is one Engine.IO connection and its namespace sockets.
type conn struct {
	s      *Server
	sid    string
	ctx    context.Context
	cancel context.CancelFunc
	out    chan []byte // frames for the transport's writer
	pong   chan struct{}
	ended  chan struct{} // closed once the connection's goroutines are done

	mu      sync.Mutex
	sockets map[string]*socket
	ws      *websocket.Conn // once there is one
	wg      sync.WaitGroup  // the sockets' goroutines

	polls sync.Mutex // one long-poll at a time
	// upgrading is set while a WebSocket probes to take over from polling
	// (under mu); upgraded is closed once one has.
	upgrading bool
	upgraded  chan struct{}
	// nudge ends the pending long-poll with a noop while an upgrade waits
	// for the client to pause polling (see upgrade).
	nudge chan struct{}
}

// newConn starts a connection: its heartbeat and its end, which waits for
// ctx (killed by either transport, the heartbeat or a full queue).
func (s *Server) newConn() *conn {
	c := &conn{s: s, sid: newSID(), out: make(chan []byte, s.cfg.QueueSize), pong: make(chan struct{}, 1),
		ended: make(chan struct{}), sockets: map[string]*socket{}, upgraded: make(chan struct{}),
		nudge: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	s.sessions.Store(c.sid, c)
	s.m.connections.Inc()
	go c.heartbeat()
	go func() {
		defer close(c.ended)
		<-c.ctx.Done()
		c.closeSockets()
		c.wg.Wait()
		s.sessions.Delete(c.sid)
		s.m.connections.Dec()
	}()
	return c
}

// kill ends the connection.
func (c *conn) kill() {
	c.cancel()
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws != nil {
		ws.CloseNow() // unblocks its reader and writer
	}
}

// acceptWebSocket upgrades the request to a WebSocket.
func (s *Server) acceptWebSocket(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	// Long-lived: the listener's read and write timeouts are for requests.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	// Clients authenticate with a token in each namespace's CONNECT, never
	// with cookies, so a page of another origin gains nothing by opening a
	// socket: any origin may connect.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil // Accept has answered
	}
	ws.SetReadLimit(s.cfg.MaxPayload)
	return ws
}

// serveWebSocket serves a WebSocket connection: a new one, or the upgrade
// of polling session c.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, c *conn) {
	ws := s.acceptWebSocket(w, r)
	if ws == nil {
		return
	}
	if c == nil {
		c = s.newConn()
		c.mu.Lock()
		c.ws = ws
		c.mu.Unlock()
		c.send(openFrame(c.sid, []string{}, c.s.cfg.PingInterval.Milliseconds(), c.s.cfg.PingTimeout.Milliseconds(), c.s.cfg.MaxPayload))
	} else if !c.beginUpgrade() {
		ws.CloseNow() // not a polling session, or one already upgrading or upgraded
		return
	} else if !c.upgrade(ws) {
		c.mu.Lock()
		c.upgrading = false
		c.mu.Unlock()
		ws.CloseNow()
		return
	}
	go c.write(ws)
	c.readWebSocket(ws)
	c.kill()
	<-c.ended
	ws.Close(websocket.StatusNormalClosure, "")
}

// upgradeNudge is how often a long-poll is ended with a noop while an
// upgrade waits for the client to pause polling.
const upgradeNudge = 100 * time.Millisecond

// beginUpgrade reports whether c is a polling session that a WebSocket may
// try to take over, and marks it as trying: one attempt at a time, and
// none once upgraded.
func (c *conn) beginUpgrade() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ws != nil || c.upgrading {
		return false
	}
	c.upgrading = true
	return true
}

// upgrade takes a polling session over to ws: the probe ("2probe" →
// "3probe"), then the client's "5".
//
// The client sends "5" only once polling is paused, that is once its
// pending poll has ended; on a quiet connection nothing would end it
// before the next ping, and the upgrade would time out. So from the probe
// on, the pending poll is ended with a noop at once, and every
// upgradeNudge after (a poll that crossed the probe's answer on the wire
// comes back), until the "5".
func (c *conn) upgrade(ws *websocket.Conn) bool {
	ctx, cancel := context.WithTimeout(c.ctx, c.s.cfg.PingTimeout)
	defer cancel()
	if _, b, err := ws.Read(ctx); err != nil || string(b) != "2probe" {
		return false
	}
	if ws.Write(ctx, websocket.MessageText, []byte("3probe")) != nil {
		return false
	}
	paused := make(chan struct{})
	nudged := make(chan struct{})
	go func() {
		defer close(nudged)
		t := time.NewTicker(upgradeNudge)
		defer t.Stop()
		for {
			select {
			case c.nudge <- struct{}{}:
			default: // a nudge waits already
			}
			select {
			case <-paused:
				return
			case <-t.C:
			}
		}
	}()
	_, b, err := ws.Read(ctx)
	close(paused)
	<-nudged
	select { // a nudge no poll took is not for a later one
	case <-c.nudge:
	default:
	}
	if err != nil || string(b) != "5" {
		return false
	}
	c.mu.Lock()
	c.ws = ws
	c.upgrading = false
	c.mu.Unlock()
	close(c.upgraded)
	return true
}

// handshakePolling opens a long-polling session.
func (s *Server) handshakePolling(w http.ResponseWriter) {
	c := s.newConn()
	writePayload(w, [][]byte{openFrame(c.sid, []string{"websocket"}, s.cfg.PingInterval.Milliseconds(),
		s.cfg.PingTimeout.Milliseconds(), s.cfg.MaxPayload)})
}

// polling reports whether c is served by long-polling: it began so and
// no WebSocket has taken over.
func (c *conn) polling() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws == nil
}

// poll answers a long-poll with the frames waiting, or waits for one.
func (c *conn) poll(w http.ResponseWriter, r *http.Request) {
	if !c.polling() {
		engineError(w, 3, "Bad request") // the WebSocket carries the frames now
		return
	}
	if !c.polls.TryLock() {
		engineError(w, 3, "Bad request") // overlapping polls
		c.kill()
		return
	}
	defer c.polls.Unlock()
	var frames [][]byte
	select {
	case <-c.upgraded:
		frames = [][]byte{{eioNoop}}
	case <-c.nudge:
		frames = [][]byte{{eioNoop}}
	case <-c.ctx.Done():
		frames = [][]byte{{eioClose}}
	case <-r.Context().Done():
		return
	case f := <-c.out:
		frames = append(frames, f)
		size := len(f)
	more:
		for size < int(c.s.cfg.MaxPayload) {
			select {
			case f := <-c.out:
				frames = append(frames, f)
				size += len(f) + 1
			default:
				break more
			}
		}
	}
	writePayload(w, frames)
	c.s.m.frames.Add(float64(len(frames)))
}

// post takes the packets a polling client sends.
func (c *conn) post(w http.ResponseWriter, r *http.Request) {
	if !c.polling() {
		engineError(w, 3, "Bad request") // the WebSocket carries the packets now
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.s.cfg.MaxPayload))
	if err != nil {
		engineError(w, 3, "Bad request")
		return
	}
	for _, pkt := range bytes.Split(body, []byte{recordSeparator}) {
		if reason := c.receive(pkt); reason != "" {
			c.kill()
			break
		}
	}
	w.Header().Set("Content-Type", "text/html")
	_, _ = io.WriteString(w, "ok")
}

// writePayload answers a poll: packets joined by the record separator.
func writePayload(w http.ResponseWriter, frames [][]byte) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	_, _ = w.Write(bytes.Join(frames, []byte{recordSeparator}))
}

// send queues a frame for the writer; a full queue ends the connection.
func (c *conn) send(frame []byte) {
	select {
	case c.out <- frame:
	case <-c.ctx.Done():
	default:
		c.s.m.cutoffs.WithLabelValues("slow consumer").Inc()
		c.s.log.Warn("socket.io: slow client disconnected", "sid", c.sid, "queued", len(c.out))
		c.kill()
	}
}

// write is the one goroutine that writes to the WebSocket.
func (c *conn) write(ws *websocket.Conn) {
	for {
		select {
		case <-c.ctx.Done():
			return
		case f := <-c.out:
			// No deadline of its own: a peer that stops reading fills the
			// queue (cut off by send) or misses its pongs (the heartbeat),
			// and either ends the connection, which unblocks the write.
			if err := ws.Write(c.ctx, websocket.MessageText, f); err != nil {
				c.kill()
				return
			}
			c.s.m.frames.Inc()
		}
	}
}

// heartbeat pings every interval and drops a client that does not pong
// within the timeout.
func (c *conn) heartbeat() {
	t := time.NewTicker(c.s.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		select { // a pong left over from before does not count
		case <-c.pong:
		default:
		}
		c.send([]byte{eioPing})
		select {
		case <-c.ctx.Done():
			return
		case <-c.pong:
		case <-time.After(c.s.cfg.PingTimeout):
			c.s.m.cutoffs.WithLabelValues("ping timeout").Inc()
			c.kill()
			return
		}
	}
}

// readWebSocket handles the client's frames until the connection ends.
func (c *conn) readWebSocket(ws *websocket.Conn) {
	for {
		typ, b, err := ws.Read(c.ctx)
		if err != nil || typ != websocket.MessageText {
			return
		}
		if c.receive(b) != "" {
			return
		}
	}
}

// receive handles one Engine.IO packet from either transport, and returns
// why the connection must end ("" to go on).
func (c *conn) receive(b []byte) string {
	if len(b) == 0 {
		return "empty packet"
	}
	switch b[0] {
	case eioPong:
		select {
		case c.pong <- struct{}{}:
		default:
		}
	case eioPing: // a client may probe too
		c.send([]byte{eioPong})
	case eioClose:
		return "client closed"
	case eioMessage:
		p, err := parsePacket(string(b[1:]))
		if err != nil {
			c.s.log.Debug("socket.io: bad packet", "sid", c.sid, "err", err.Error())
			return "bad packet"
		}
		c.handle(p)
	case eioNoop, eioUpgrade:
	default:
		return "bad packet"
	}
	return ""
}

// handle applies one Socket.IO packet.
func (c *conn) handle(p packet) {
	switch p.typ {
	case sioConnect:
		c.connect(p)
	case sioDisconnect:
		c.mu.Lock()
		sk := c.sockets[p.nsp]
		delete(c.sockets, p.nsp)
		c.mu.Unlock()
		if sk != nil {
			sk.stop()
		}
	}
	// EVENT and ACK: no namespace of the venue takes messages from clients.
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
	c.mu.Lock()
	_, open := c.sockets[p.nsp]
	c.mu.Unlock()
	if open {
		return
	}
	var a auth
	if len(p.data) > 0 && json.Unmarshal(p.data, &a) != nil {
		c.send(connectErrorFrame(p.nsp, "Invalid Token", map[string]int{"statusCode": http.StatusUnauthorized}))
		return
	}
	pr, err := c.s.svc.Authenticate(c.ctx, a.Token)
	if err != nil {
		c.send(connectErrorFrame(p.nsp, "Invalid Token", map[string]int{"statusCode": http.StatusUnauthorized}))
		return
	}
	if !c.s.take(pr.ClientID) {
		c.send(connectErrorFrame(p.nsp, "Too many connections for this credential", map[string]int{"statusCode": http.StatusTooManyRequests}))
		return
	}
	filter := trading.EventFilter{Types: types, InstrumentIDs: a.InstrumentIDs, MarketID: a.MarketID}
	if a.Depth != nil {
		if *a.Depth < 1 || *a.Depth > trading.MaxStreamDepth {
			c.s.give(pr.ClientID)
			c.send(connectErrorFrame(p.nsp, fmt.Sprintf("Invalid depth: 1 to %d levels", trading.MaxStreamDepth),
				map[string]int{"statusCode": http.StatusBadRequest}))
			return
		}
		filter.Depth = *a.Depth
	}
	resync := false
	after := int64(0)
	if a.LastSeq != nil {
		after = *a.LastSeq
	} else if after, err = c.s.svc.LastEventSeq(c.ctx); err != nil { // live from now
		c.s.give(pr.ClientID)
		c.send(connectErrorFrame(p.nsp, "Unavailable", map[string]int{"statusCode": http.StatusServiceUnavailable}))
		return
	}
	sub, err := c.s.svc.Subscribe(c.ctx, pr, after, filter)
	if errors.Is(err, trading.ErrResyncRequired) || errors.Is(err, venue.ErrInvalid) {
		resync = true
		if after, err = c.s.svc.LastEventSeq(c.ctx); err == nil {
			sub, err = c.s.svc.Subscribe(c.ctx, pr, after, filter)
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
	sk := &socket{c: c, nsp: p.nsp, p: pr, token: a.Token, sub: sub, depth: filter.Depth, stopped: make(chan struct{})}
	if p.nsp == "/ohlc" {
		if sk.bars, err = c.s.svc.LiveBars(pr, a.Interval); err != nil {
			sub.Close()
			c.s.give(pr.ClientID)
			c.send(connectErrorFrame(p.nsp, "Invalid interval: one of "+strings.Join(trading.BarIntervals(), ", "),
				map[string]int{"statusCode": http.StatusBadRequest}))
			return
		}
	}
	c.mu.Lock()
	c.sockets[p.nsp] = sk
	c.mu.Unlock()
	c.s.m.sockets.WithLabelValues(p.nsp).Inc()
	c.send(connectFrame(p.nsp, newSID()))
	c.emit(p.nsp, "subscription", map[string]string{"message": "Subscription successful to " + strings.TrimPrefix(p.nsp, "/")})
	if resync {
		c.emit(p.nsp, "resync_required", map[string]any{"last_seq": after})
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.s.give(pr.ClientID)
		defer c.s.m.sockets.WithLabelValues(p.nsp).Dec()
		sk.run()
	}()
}

// emit sends an event with its arguments on namespace nsp.
func (c *conn) emit(nsp, name string, args ...any) {
	f, err := eventFrame(nsp, name, args...)
	if err != nil {
		c.s.log.Error("socket.io: event not encoded", "event", name, "err", err.Error())
		return
	}
	c.send(f)
}

// closeSockets ends every namespace socket of the connection.
func (c *conn) closeSockets() {
	c.mu.Lock()
	socks := c.sockets
	c.sockets = map[string]*socket{}
	c.mu.Unlock()
	for _, sk := range socks {
		sk.stop()
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
	sub      *trading.Subscription
	stopOnce sync.Once
	stopped  chan struct{}
	// bars are /ohlc's: the current bar of each instrument and market.
	bars *trading.LiveBars
	// depth is the levels per side the socket asked of instrument.depth
	// (0: the default).
	depth int
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
func (s *Server) frame(nsp string, p venue.Principal, depth int, ev trading.Event) ([]byte, error) {
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
	f, err := eventFrame(nsp, ev.Type, wire.RecordOf(ev), meta{Seq: ev.Seq, Type: ev.Type, OccurredAt: wire.Time(ev.OccurredAt)})
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

// meta is an event's second argument.
type meta struct {
	Seq        int64  `json:"seq"`
	Type       string `json:"type"`
	OccurredAt string `json:"occurred_at"`
}

// run emits the subscription's events until it ends, the token stops
// authenticating, or the socket is stopped.
func (sk *socket) run() {
	defer sk.sub.Close()
	t := time.NewTicker(sk.c.s.cfg.TokenCheck)
	defer t.Stop()
	for {
		select {
		case <-sk.stopped:
			return
		case <-t.C:
			if _, err := sk.c.s.svc.Authenticate(sk.c.ctx, sk.token); err != nil {
				if sk.c.ctx.Err() == nil {
					sk.c.s.m.cutoffs.WithLabelValues("token").Inc()
					sk.c.send(disconnectFrame(sk.nsp))
					sk.c.forget(sk)
				}
				return
			}
		case ev, ok := <-sk.sub.C:
			if !ok {
				if err := sk.sub.Err(); errors.Is(err, trading.ErrSlowConsumer) {
					sk.c.s.m.cutoffs.WithLabelValues("slow consumer").Inc()
					sk.c.send(disconnectFrame(sk.nsp))
					sk.c.forget(sk)
				}
				return
			}
			if sk.bars != nil {
				sk.ohlc(ev)
				continue
			}
			f, err := sk.c.s.frame(sk.nsp, sk.p, sk.depth, ev)
			if err != nil {
				sk.c.s.log.Error("socket.io: event not encoded", "event", ev.Type, "err", err.Error())
				continue
			}
			sk.c.send(f)
			sk.c.s.m.events.WithLabelValues(sk.nsp).Inc()
		}
	}
}

func (sk *socket) stop() { sk.stopOnce.Do(func() { close(sk.stopped) }) }

// ohlc emits the current bar after a batch's trades on a book.
func (sk *socket) ohlc(ev trading.Event) {
	b, ok, err := sk.bars.Fold(sk.c.ctx, ev)
	if err != nil {
		sk.c.s.log.Warn("socket.io: bar not read", "instrument", ev.PriceChange.InstrumentID, "err", err.Error())
		return
	}
	if !ok {
		return // the best prices moved; nothing traded
	}
	sk.c.emit(sk.nsp, eventOHLCUpdate, wire.BarOf(b), meta{Seq: ev.Seq, Type: eventOHLCUpdate, OccurredAt: wire.Time(ev.OccurredAt)})
	sk.c.s.m.events.WithLabelValues(sk.nsp).Inc()
}

// forget drops a socket the server ended.
func (c *conn) forget(sk *socket) {
	c.mu.Lock()
	if c.sockets[sk.nsp] == sk {
		delete(c.sockets, sk.nsp)
	}
	c.mu.Unlock()
}

// metrics are the stream's Prometheus metrics.
type metrics struct {
	connections prometheus.Gauge
	sockets     *prometheus.GaugeVec
	frames      prometheus.Counter
	events      *prometheus.CounterVec
	cutoffs     *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		connections: prometheus.NewGauge(prometheus.GaugeOpts{Name: "bondvenue_socketio_connections",
			Help: "Open Engine.IO connections."}),
		sockets: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "bondvenue_socketio_sockets",
			Help: "Open namespace sockets by namespace."}, []string{"namespace"}),
		frames: prometheus.NewCounter(prometheus.CounterOpts{Name: "bondvenue_socketio_frames_sent_total",
			Help: "WebSocket frames written to clients (events, handshakes, pings)."}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bondvenue_socketio_events_sent_total",
			Help: "Events emitted to clients by namespace."}, []string{"namespace"}),
		cutoffs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bondvenue_socketio_disconnects_total",
			Help: "Connections or sockets the server ended, by reason (slow consumer, ping timeout, token)."}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.connections, m.sockets, m.frames, m.events, m.cutoffs)
	}
	return m
}
