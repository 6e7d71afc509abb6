package httpapi

import (
	"context"
	"time"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/clock"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/positions"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Deps are what the adapter serves: the use cases, and the views it needs
// of the live subscriptions, the cluster and the sequencer, which
// cmd/bondvenue builds.
type Deps struct {
	Trading *trading.Service
	Live    Live
	Cluster Cluster
	Engine  Engine
	// Keys are the Idempotency-Keys requests claim.
	Keys *idempotency.Keys
	// Access grants and resolves the access tokens.
	Access *access.Tokens
	// Records exports the order records and replays books from them.
	Records *orderrecords.Service
	// Positions reads the firms' positions.
	Positions *positions.Service
	// Clock is the clock's part of GET /healthz; nil: the answer has none.
	Clock Clock
	// Latency records the gateway-to-gateway latency of order entry; nil:
	// not recorded.
	Latency Latency
}

// Clock is the clock's last check (clock.Monitor).
type Clock interface {
	Status() clock.Status
}

// Latency records how long an order-entry request took, from entering
// the adapter to its answer (clock.Latency).
type Latency interface {
	Observe(time.Duration)
}

// Live is what the adapter reads of the live subscriptions
// (subscribe.Hub): GET /events and the OHLC bars.
type Live interface {
	Events(ctx context.Context, p venue.Principal, after int64, limit int) ([]feed.Event, error)
	OHLC(ctx context.Context, p venue.Principal, instrumentID string, q subscribe.OHLCQuery) ([]subscribe.Bar, error)
}

// Cluster is this instance's part in the cluster (cluster.Cluster): its
// role, for the forwarding of a standby's writes and the probes.
type Cluster interface {
	cluster.Directory
	Role() string
	InstanceID() string
	Takeovers() int64
	Readiness(ctx context.Context) (map[string]string, error)
	Engine() string
}

// Engine is the sequencer's admission and counters (sequencer.Sequencer).
type Engine interface {
	Counters() (batches, commands int64, batchTime time.Duration)
	AdmissionStats() sequencer.AdmissionStats
	CheckQueue() error
}
