// Package socketio is the venue's live stream adapter (docs/guide.md, "Live streams"):
// Engine.IO v4 and Socket.IO v5 at /socket.io/, written for the venue on
// github.com/coder/websocket. Each namespace socket follows the
// committed-event feed (subscribe.Hub.Subscribe) for its principal and emits
// every event as (record, {seq, type, occurred_at}). One goroutine owns
// each connection's writes, behind a bounded queue: a client that does not
// keep up is disconnected, never waited on.
//
// Both transports are served: WebSocket, and HTTP long-polling with the
// upgrade to WebSocket that the client attempts by default (networks that
// block WebSockets stay on polling).
//
// The files follow the protocol's layers, each calling only the one below:
//   - engineio.go, the transport (Engine.IO): the handshake, long-polling,
//     the upgrade to WebSocket, heartbeats, the writer and the bounded
//     queue. It hands each message to the session (conn.message) and ends
//     the session with the connection (conn.endSession); it knows nothing
//     of namespaces or of the venue.
//   - socketio.go, the session (Socket.IO): packets on namespaces,
//     CONNECT and DISCONNECT, events. It knows nothing of the venue: a
//     CONNECT is passed to the streams (conn.connect).
//   - streams.go, the application: the venue's namespaces, authentication,
//     subscriptions to the feed, the frames of its records, resume with
//     last_seq, live bars (subscribe.LiveBars).
//   - wire.go, the wire format of both protocols in one place (golden
//     frames under testdata/); server.go, the Server that wires them, its
//     configuration and metrics.
package socketio

import "sync"

// session is the Socket.IO session over one Engine.IO connection: its
// namespace sockets.
type session struct {
	socketsMu sync.Mutex
	sockets   map[string]namespaceSocket
	wg        sync.WaitGroup // the sockets' goroutines
}

// namespaceSocket is what the session needs of an open namespace socket
// (streams.go opens them): to end it.
type namespaceSocket interface{ stop() }

// message handles an Engine.IO message: one Socket.IO packet. It returns
// why the connection must end ("" to go on).
func (c *conn) message(data string) string {
	p, err := parsePacket(data)
	if err != nil {
		c.s.log.Debug("socket.io: bad packet", "sid", c.sid, "err", err.Error())
		return "bad packet"
	}
	c.handle(p)
	return ""
}

// endSession ends the namespace sockets of a connection that has ended
// and waits for their goroutines.
func (c *conn) endSession() {
	c.closeSockets()
	c.wg.Wait()
}

// handle applies one Socket.IO packet.
func (c *conn) handle(p packet) {
	switch p.typ {
	case sioConnect:
		c.connect(p)
	case sioDisconnect:
		c.socketsMu.Lock()
		sk := c.sockets[p.nsp]
		delete(c.sockets, p.nsp)
		c.socketsMu.Unlock()
		if sk != nil {
			sk.stop()
		}
	}
	// EVENT and ACK: no namespace of the venue takes messages from clients.
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
	c.socketsMu.Lock()
	socks := c.sockets
	c.sockets = nil
	c.socketsMu.Unlock()
	for _, sk := range socks {
		sk.stop()
	}
}

// forget drops socket sk of namespace nsp, which the server ended.
func (c *conn) forget(nsp string, sk namespaceSocket) {
	c.socketsMu.Lock()
	if c.sockets[nsp] == sk {
		delete(c.sockets, nsp)
	}
	c.socketsMu.Unlock()
}
