package socketio

import (
	"bufio"
	"net"
	"net/http"
	"sync"
)

// heldConn is a WebSocket's network connection that can hold its writes
// back and send them in one system call.
//
// Each Engine.IO packet is a WebSocket message of its own, and the
// WebSocket library flushes every message to the connection: one write
// system call per frame, a third of the server's CPU when a busy feed
// fans out. The connection's writer holds the writes while it drains
// the frames already queued and releases them together, so a subscriber
// that is behind gets its backlog in a few system calls and one that is
// not sees each frame at once, as before.
type heldConn struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	held    []byte
}

// maxHeld is the most held bytes whose buffer is kept for the next batch.
const maxHeld = 64 << 10

// Write sends p, or holds it while the writer drains its queue. Writes
// of the library's own (a pong, a close frame) arrive the same way,
// after the frames already held, so the stream keeps its order.
func (h *heldConn) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holding {
		h.held = append(h.held, p...)
		return len(p), nil
	}
	return h.Conn.Write(p)
}

// hold holds the writes from now until release.
func (h *heldConn) hold() {
	h.mu.Lock()
	h.holding = true
	h.mu.Unlock()
}

// release sends what was held in one write and stops holding.
func (h *heldConn) release() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holding = false
	if len(h.held) == 0 {
		return nil
	}
	_, err := h.Conn.Write(h.held)
	if cap(h.held) > maxHeld {
		h.held = nil
	} else {
		h.held = h.held[:0]
	}
	return err
}

// holdingWriter hands the WebSocket library a heldConn when it hijacks
// the request's connection.
type holdingWriter struct {
	http.ResponseWriter
	conn *heldConn
}

// Hijack takes the connection over as a heldConn. The response's header
// is flushed by then; the writer returned writes through the heldConn.
func (w *holdingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &heldConn{Conn: nc}
	return w.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriter(w.conn)), nil
}
