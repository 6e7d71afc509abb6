// Package fix is the venue's FIX 5.0 SP2 gateway (FIXT.1.1 transport): a
// quickfixgo acceptor whose sessions act as the API credential that logs on
// (553/554), on the same use cases and committed-event feed as REST and
// the streams. docs/fix-rules-of-engagement.md is its reference for
// clients; docs/architecture.md, "Channels", its place in the venue.
//
// Session state (sequence numbers, the messages kept for resend) lives in
// the venue's database. Sessions reset every day at Config.ResetTime (UTC).
package fix

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quickfixgo/quickfix"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/fix/spec"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Config sets the gateway up. Zero fields take the defaults.
type Config struct {
	// Addr is the acceptor's host:port (127.0.0.1:5005).
	Addr string
	// CompID is the venue's CompID, the clients' TargetCompID (BONDVENUE).
	CompID string
	// ResetTime is the time of day (UTC, HH:MM:SS) at which every session
	// ends and starts anew with sequence number 1 ("00:00:00").
	ResetTime string
	Logger    *slog.Logger
	// Now is the clock (time.Now).
	Now func() time.Time
	// Registry receives the gateway's metrics (nil: none).
	Registry prometheus.Registerer
	// ConflateAt, ResumeAt and DropAt bound what a client that does not
	// read makes the venue hold, in application messages waiting to be
	// written (256, 32, 10 000): from ConflateAt its market data
	// incrementals are skipped, and replaced by a snapshot once fewer than
	// ResumeAt wait; at DropAt the session is disconnected.
	ConflateAt, ResumeAt, DropAt int64
	// SendBuffer, when > 0, is each connection's socket send buffer in
	// bytes (the system's default otherwise).
	SendBuffer int
}

// Gateway is the FIX acceptor.
type Gateway struct {
	svc      *trading.Service
	live     *subscribe.Hub
	cl       Cluster
	keys     *idempotency.Keys
	access   *access.Tokens
	store    SessionStore
	cfg      Config
	log      *slog.Logger
	m        *metrics
	fwd      *cluster.Forwarder // to the leader, for a standby's commands
	latency  Latency
	acceptor *quickfix.Acceptor
	dir      string // the dictionaries, written out for the engine
	addr     net.Addr

	mu       sync.Mutex
	sessions map[string]*session // by quickfix session id, once logged on
	// authed are sessions whose peer authenticated in this logon; only
	// they write to the database.
	authed map[string]venue.Principal
	// startSeq is, by session, the log's last event when its peer
	// authenticated (where a session without a report of its own starts).
	startSeq map[string]int64
	// gaps are, by session, the MsgSeqNum of a Logon that came with a
	// gap before it (the engine then asks the peer to resend); stores the
	// sessions' message stores, to see the gap close.
	gaps   map[string]int
	stores sync.Map // session id → *messageStore
	// marks are, by session, the event of the log that the message being
	// kept right now ends (ToApp sets it, the store takes it in the same
	// send: the engine runs both under the session's send lock); msgMarks
	// are the marks of messages queued by sendMarked.
	marks    map[string]int64
	msgMarks sync.Map // *quickfix.Message → int64

	// backlogs count, by session, the application messages queued in the
	// engine and not yet handed to the connection's writer (send adds,
	// the engine's log of outgoing messages takes away); conns are the
	// sessions' connections, to drop one whose client stops reading.
	backlogs sync.Map // session id → *atomic.Int64
	conns    sync.Map // session id → net.Conn

	// hits are the ClOrdIDs of FIX requesters' hits (QuoteResponse 694=1),
	// by firm and quote, for the execution reports of their trades (see
	// rememberHit).
	hitsMu sync.Mutex
	hits   map[hitKey]hit
}

// backlog is a session's count of queued application messages.
func (g *Gateway) backlog(id string) *atomic.Int64 {
	if v, ok := g.backlogs.Load(id); ok {
		return v.(*atomic.Int64)
	}
	v, _ := g.backlogs.LoadOrStore(id, new(atomic.Int64))
	return v.(*atomic.Int64)
}

// Deps are what the gateway serves: the use cases, the live
// subscriptions its sessions follow, and this instance's part in the
// cluster, which cmd/bondvenue builds.
type Deps struct {
	Trading *trading.Service
	Live    *subscribe.Hub
	Cluster Cluster
	// Keys are the Idempotency-Keys the sessions' ClOrdIDs claim.
	Keys *idempotency.Keys
	// Access checks the credentials a Logon carries.
	Access *access.Tokens
	// Latency records the gateway-to-gateway latency of order entry; nil:
	// not recorded.
	Latency Latency
}

// Latency records how long an order-entry message took, from its arrival
// to the venue's answer (clock.Latency).
type Latency interface {
	Observe(time.Duration)
}

// Cluster is this instance's part in the cluster (cluster.Cluster): its
// role, and how a standby reaches the leader.
type Cluster interface {
	cluster.Directory
	Role() string
	InstanceID() string
}

// New prepares a gateway over d and a store for its sessions' state;
// Start opens it.
func New(d Deps, st SessionStore, cfg Config) (*Gateway, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:5005"
	}
	if cfg.CompID == "" {
		cfg.CompID = "BONDVENUE"
	}
	if cfg.ResetTime == "" {
		cfg.ResetTime = "00:00:00"
	}
	if _, err := time.Parse(time.TimeOnly, cfg.ResetTime); err != nil {
		return nil, fmt.Errorf("fix reset time %q: want HH:MM:SS", cfg.ResetTime)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	// docs/fix-rules-of-engagement.md, "Flow control".
	cfg.ConflateAt = cmp.Or(cfg.ConflateAt, 256)
	cfg.ResumeAt = cmp.Or(cfg.ResumeAt, 32)
	cfg.DropAt = cmp.Or(cfg.DropAt, 10000)
	g := &Gateway{svc: d.Trading, live: d.Live, cl: d.Cluster, keys: d.Keys, access: d.Access, store: st, cfg: cfg, log: cfg.Logger.With("component", "fix"), m: newMetrics(cfg.Registry),
		latency:  d.Latency,
		fwd:      cluster.NewForwarder(d.Cluster, d.Cluster.InstanceID(), cfg.Logger),
		sessions: map[string]*session{}, authed: map[string]venue.Principal{}, startSeq: map[string]int64{}, gaps: map[string]int{},
		marks: map[string]int64{}, hits: map[hitKey]hit{}}
	return g, nil
}

func (g *Gateway) now() time.Time { return g.cfg.Now().UTC() }

// Start listens and accepts sessions.
func (g *Gateway) Start() error {
	dir, err := os.MkdirTemp("", "bondvenue-fix-")
	if err != nil {
		return fmt.Errorf("fix dictionaries: %w", err)
	}
	g.dir = dir
	transport, app, err := spec.WriteFiles(dir)
	if err != nil {
		return fmt.Errorf("fix dictionaries: %w", err)
	}
	host, port, err := net.SplitHostPort(g.cfg.Addr)
	if err != nil {
		return fmt.Errorf("fix address %q: %w", g.cfg.Addr, err)
	}
	// The engine takes a port number: listen first to learn it (":0" in
	// tests), then hand the engine that port.
	if port == "0" {
		l, err := net.Listen("tcp", g.cfg.Addr)
		if err != nil {
			return fmt.Errorf("fix listen %s: %w", g.cfg.Addr, err)
		}
		port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		_ = l.Close()
	}
	settings := quickfix.NewSettings()
	global := settings.GlobalSettings()
	for k, v := range map[string]string{
		"SocketAcceptHost":          host,
		"SocketAcceptPort":          port,
		"BeginString":               quickfix.BeginStringFIXT11,
		"SenderCompID":              g.cfg.CompID,
		"TargetCompID":              "*",
		"DefaultApplVerID":          "FIX.5.0SP2",
		"TransportDataDictionary":   transport,
		"AppDataDictionary":         app,
		"DynamicSessions":           "Y",
		"StartTime":                 g.cfg.ResetTime,
		"EndTime":                   g.cfg.ResetTime,
		"TimeZone":                  "UTC",
		"ValidateFieldsOutOfOrder":  "N",
		"ValidateUserDefinedFields": "N",
		"AllowUnknownMsgFields":     "Y",
		"RejectInvalidMessage":      "Y",
		"HeartBtIntOverride":        "N",
	} {
		global.Set(k, v)
	}
	// The engine wants one session to exist; dynamic sessions are made
	// from the global settings for every authenticated CompID.
	placeholder := quickfix.NewSessionSettings()
	placeholder.Set("TargetCompID", "BONDVENUE-PLACEHOLDER")
	if _, err := settings.AddSession(placeholder); err != nil {
		return fmt.Errorf("fix settings: %w", err)
	}
	a, err := quickfix.NewAcceptor(g, storeFactory{g}, settings, logFactory{g.log, g})
	if err != nil {
		return fmt.Errorf("fix acceptor: %w", err)
	}
	a.SetConnectionValidator(validator{g})
	if err := a.Start(); err != nil {
		return fmt.Errorf("fix acceptor on %s: %w", g.cfg.Addr, err)
	}
	g.acceptor = a
	g.addr = &net.TCPAddr{IP: net.ParseIP(host), Port: atoi(port)}
	g.log.Info("fix acceptor listening", "addr", g.addr.String(), "comp_id", g.cfg.CompID, "reset_time", g.cfg.ResetTime+" UTC")
	return nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// Addr is where the acceptor listens (after Start).
func (g *Gateway) Addr() net.Addr { return g.addr }

// Stop logs every session out and closes the acceptor.
func (g *Gateway) Stop() {
	if g.acceptor != nil {
		g.acceptor.Stop()
	}
	g.mu.Lock()
	for _, s := range g.sessions {
		s.stop()
	}
	g.mu.Unlock()
	if g.dir != "" {
		_ = os.RemoveAll(g.dir)
	}
}

// validator refuses connections not addressed to the venue before the
// engine makes a session for them.
type validator struct{ g *Gateway }

var errWrongTarget = errors.New("TargetCompID is not the venue's")

func (v validator) Validate(c net.Conn, id quickfix.SessionID) error {
	if id.SenderCompID != v.g.cfg.CompID { // the venue's side of the session
		return errWrongTarget
	}
	if id.TargetCompID == "" || len(id.TargetCompID) > 64 || !venue.ValidText(id.TargetCompID) {
		return errors.New("invalid SenderCompID")
	}
	v.g.mu.Lock()
	_, on := v.g.sessions[id.String()]
	v.g.mu.Unlock()
	if on {
		return errors.New("this SenderCompID is logged on already")
	}
	if tc, ok := c.(*net.TCPConn); ok && v.g.cfg.SendBuffer > 0 {
		_ = tc.SetWriteBuffer(v.g.cfg.SendBuffer)
	}
	v.g.conns.Store(id.String(), c)
	v.g.backlog(id.String()).Store(0)
	return nil
}

// authenticated reports whether the session's peer logged on with a good
// credential in its current logon.
func (g *Gateway) authenticated(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.authed[id]
	return ok
}

// sendMarked sends messages for one event of the log: the last of them,
// once kept, records the event as the session's last, so that the session
// resumes after it when it logs on again.
func (g *Gateway) sendMarked(id quickfix.SessionID, seq int64, ms ...*quickfix.Message) {
	for i, m := range ms {
		if i == len(ms)-1 && seq > 0 {
			g.msgMarks.Store(m, seq)
		}
		g.send(id, m)
		g.msgMarks.Delete(m)
	}
}

// setMark and takeMark pass a message's mark from ToApp to the store.
func (g *Gateway) setMark(id string, seq int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq == 0 {
		delete(g.marks, id)
		return
	}
	g.marks[id] = seq
}

func (g *Gateway) takeMark(id string) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	seq := g.marks[id]
	delete(g.marks, id)
	return seq
}
