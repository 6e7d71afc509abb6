package testenv

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/bondvenue/bondvenue/internal/access"
	"github.com/bondvenue/bondvenue/internal/auth"
	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/feed"
	"github.com/bondvenue/bondvenue/internal/idempotency"
	"github.com/bondvenue/bondvenue/internal/orderrecords"
	"github.com/bondvenue/bondvenue/internal/positions"
	"github.com/bondvenue/bondvenue/internal/sequencer"
	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/subscribe"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// Venue is the venue's core on one database, wired as cmd/bondvenue wires
// it: the feed, the sequencer, the cluster, the use cases, the live
// subscriptions, the Idempotency-Keys and the access tokens.
type Venue struct {
	DB        *store.DB
	Feed      *feed.Feed
	Sequencer *sequencer.Sequencer
	Cluster   *cluster.Cluster
	Svc       *trading.Service
	Live      *subscribe.Hub
	Keys      *idempotency.Keys
	Access    *access.Tokens
	Records   *orderrecords.Service
	Positions *positions.Service
}

// Config tunes a Venue: the use cases' settings, and the sequencer's,
// cluster's and subscriptions' that tests set.
type Config struct {
	Trading trading.Config
	// TokenTTL is the access tokens' lifetime.
	TokenTTL time.Duration
	// QueueBudget is the sequencer's admission budget (0: none).
	QueueBudget time.Duration
	// CampaignInterval is how often a standby tries for the leadership.
	CampaignInterval time.Duration
	// FeedBuffer is each subscription's buffer in events.
	FeedBuffer int
}

// Wire builds the venue's core on db without starting it. A nil
// cfg.Trading.Hasher hashes secrets cheaply (tests only).
func Wire(db *store.DB, cfg Config) *Venue {
	tc := cfg.Trading
	if tc.Hasher == nil {
		h := auth.FastHasher
		tc.Hasher = &h
	}
	if tc.Now == nil {
		tc.Now = time.Now
	}
	if tc.Logger == nil {
		tc.Logger = slog.Default()
	}
	db.SetClock(tc.Now)
	v := &Venue{DB: db, Feed: feed.New(db, tc.Logger)}
	v.Sequencer = sequencer.New(db, tc.Logger, tc.Now, max(cfg.QueueBudget, 0))
	v.Cluster = cluster.New(db, v.Sequencer, cluster.Config{CampaignInterval: cfg.CampaignInterval, Now: tc.Now, Logger: tc.Logger})
	db.SetCommitHook(v.Feed.Committed)
	v.Access = access.New(db, access.Config{TTL: cfg.TokenTTL, Hasher: tc.Hasher, Now: tc.Now})
	v.Svc = trading.New(trading.Deps{Store: db, Sequencer: v.Sequencer, Instances: v.Cluster, Tokens: v.Access}, tc)
	v.Keys = idempotency.New(db, v.Sequencer, tc.Now)
	v.Records = orderrecords.New(db, tc.Now)
	v.Positions = positions.New(db)
	v.Live = subscribe.New(db, v.Feed, v.Svc, subscribe.Config{Buffer: cfg.FeedBuffer, Refresh: trading.ViewerRefresh,
		Now: tc.Now, Logger: tc.Logger})
	return v
}

// Start starts the venue: the sequencer here, or a standby when another
// instance leads.
func (v *Venue) Start(ctx context.Context) error { return v.Cluster.Start(ctx) }

// Close stops the venue: the cluster, the sequencer after the commands
// already queued, and the feed.
func (v *Venue) Close() {
	v.Cluster.Stop()
	if v.Sequencer.Running() {
		v.Sequencer.Stop()
	}
	v.Feed.Stop()
}

// Started wires and starts a venue on db, closed when the test ends.
func Started(t testing.TB, db *store.DB, cfg Config) *Venue {
	t.Helper()
	v := Wire(db, cfg)
	if err := v.Start(context.Background()); err != nil {
		t.Fatalf("start the venue: %v", err)
	}
	t.Cleanup(v.Close)
	return v
}
