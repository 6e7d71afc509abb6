package socketio

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
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
	// Phases, when set, are the markets' trading phases now: a socket
	// joining /instruments is told them first (market.phase).
	Phases func(ctx context.Context) ([]trading.MarketPhase, error)
}

// Server serves /socket.io/.
type Server struct {
	auth Authenticator
	live *subscribe.Hub
	cfg  Config
	log  *slog.Logger
	m    *metrics

	mu      sync.Mutex
	sockets map[string]int // open namespace sockets per credential
	// sessions are the open connections by sid (polling requests and
	// upgrades find theirs here).
	sessions sync.Map

	framesMu sync.Mutex
	frames   map[frameKey][]byte // see frame
}

// Authenticator resolves a socket's access token to its principal
// (access.Tokens).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (venue.Principal, error)
}

// New returns the adapter over the live subscriptions live, for the
// principals auth resolves.
func New(auth Authenticator, live *subscribe.Hub, cfg Config) *Server {
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
	return &Server{auth: auth, live: live, cfg: cfg, log: cfg.Logger, m: newMetrics(cfg.Registry), sockets: map[string]int{},
		frames: map[frameKey][]byte{}}
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
