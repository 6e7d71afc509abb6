package socketio

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

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

// conn is one Engine.IO connection. It carries one Socket.IO session
// (socketio.go): the transport hands it each message (c.message) and ends
// it when the connection ends (c.endSession), and knows nothing else of it.
type conn struct {
	session

	s      *Server
	sid    string
	ctx    context.Context
	cancel context.CancelFunc
	out    chan []byte // frames for the transport's writer
	pong   chan struct{}
	ended  chan struct{} // closed once the connection's goroutines are done

	mu sync.Mutex
	ws *websocket.Conn // once there is one

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
		ended: make(chan struct{}), upgraded: make(chan struct{}),
		nudge: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	s.sessions.Store(c.sid, c)
	s.m.connections.Inc()
	go c.heartbeat()
	go func() {
		defer close(c.ended)
		<-c.ctx.Done()
		c.endSession()
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

// acceptWebSocket upgrades the request to a WebSocket, over a connection
// whose writes the writer can hold (heldConn).
func (s *Server) acceptWebSocket(w http.ResponseWriter, r *http.Request) (*websocket.Conn, *heldConn) {
	// Long-lived: the listener's read and write timeouts are for requests.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	// Clients authenticate with a token in each namespace's CONNECT, never
	// with cookies, so a page of another origin gains nothing by opening a
	// socket: any origin may connect.
	hw := &holdingWriter{ResponseWriter: w}
	ws, err := websocket.Accept(hw, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil, nil // Accept has answered
	}
	ws.SetReadLimit(s.cfg.MaxPayload)
	return ws, hw.conn
}

// serveWebSocket serves a WebSocket connection: a new one, or the upgrade
// of polling session c.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, c *conn) {
	ws, hc := s.acceptWebSocket(w, r)
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
	go c.write(ws, hc)
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

// send queues a frame for the writer and reports whether it did; a full
// queue ends the connection.
func (c *conn) send(frame []byte) bool {
	select {
	case c.out <- frame:
		return true
	case <-c.ctx.Done():
	default:
		c.cutOff()
	}
	return false
}

// catchUpWait is how long a frame of a replay waits for room in a full
// queue before the connection is cut off as a slow consumer.
const catchUpWait = 2 * time.Second

// sendPaced queues a frame of a replay, waiting up to catchUpWait for
// room; a queue still full ends the connection (errConnectionCut). It
// stops waiting when ctx (the socket's subscription) ends.
func (c *conn) sendPaced(ctx context.Context, frame []byte) error {
	select {
	case c.out <- frame:
		return nil
	default:
	}
	t := time.NewTimer(catchUpWait)
	defer t.Stop()
	select {
	case c.out <- frame:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ctx.Done():
		return c.ctx.Err()
	case <-t.C:
		c.cutOff()
		return errConnectionCut
	}
}

// cutOff ends a connection that does not keep up.
func (c *conn) cutOff() {
	c.s.m.cutoffs.WithLabelValues("slow consumer").Inc()
	c.s.log.Warn("socket.io: slow client disconnected", "sid", c.sid, "queued", len(c.out))
	c.kill()
}

// maxBatch is the most frames the writer sends in one system call.
const maxBatch = 64

// write is the one goroutine that writes to the WebSocket. It sends the
// frames queued at the moment in one system call (heldConn).
func (c *conn) write(ws *websocket.Conn, hc *heldConn) {
	// The connection's end closes the socket, which unblocks a write in
	// progress: one watch for the connection, where a write under c.ctx
	// would set up and tear down a watch of its own every frame.
	stop := context.AfterFunc(c.ctx, func() { ws.CloseNow() })
	defer stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case f := <-c.out:
			// No deadline of its own: a peer that stops reading fills the
			// queue (cut off by send) or misses its pongs (the heartbeat),
			// and either ends the connection, which unblocks the write.
			hc.hold()
			err := ws.Write(context.Background(), websocket.MessageText, f)
			n := 1
		drain:
			for ; err == nil && n < maxBatch; n++ {
				select {
				case f = <-c.out:
					err = ws.Write(context.Background(), websocket.MessageText, f)
				default:
					break drain
				}
			}
			if rerr := hc.release(); err == nil {
				err = rerr
			}
			if err != nil {
				c.kill()
				return
			}
			c.s.m.frames.Add(float64(n))
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
		return c.message(string(b[1:]))
	case eioNoop, eioUpgrade:
	default:
		return "bad packet"
	}
	return ""
}
