// Package cluster is the venue's instances on one PostgreSQL database:
// which of them leads (runs the sequencer) and which stand by, how they
// find each other, the key they share, and the one transport by which a
// standby passes a command to the leader (forward.go).
package cluster

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/google/uuid"
)

// Several instances on one PostgreSQL database (docs/architecture.md, "Several instances"):
// exactly one, the leader, holds the leadership (store.Leadership) and runs
// the sequencer; the others are standbys, which serve every read and the
// live streams from the database and answer trading commands with a 503
// until one of them takes over. A standby tries for the leadership every
// CampaignInterval, so when the leader dies (its lock's connection ends)
// one takes over within about that long, raises the sequencer lease's
// epoch (fencing the old leader's last batch) and rebuilds the books. A
// leader that loses the leadership while running stops its sequencer and
// stays a standby.

// Roles of an instance.
const (
	RoleLeader  = "leader"
	RoleStandby = "standby"
)

// DefaultCampaignInterval is how often a standby tries for the leadership.
const DefaultCampaignInterval = 500 * time.Millisecond

// Sequencer is what the leadership starts and stops: the sequencer of this
// instance.
type Sequencer interface {
	// Start takes the sequencer lease and rebuilds the state; Stop ends it.
	Start(ctx context.Context) error
	Stop()
	// SetStandby marks whether another instance leads.
	SetStandby(standby bool)
	// Epoch is the sequencer lease held.
	Epoch() int64
	// Alive reports whether the sequencer runs; LeaseLost whether it
	// stopped because another instance took its lease.
	Alive() bool
	LeaseLost() bool
}

// Config tunes a Cluster.
type Config struct {
	// CampaignInterval is how often a standby tries for the leadership
	// (default DefaultCampaignInterval).
	CampaignInterval time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives every change of role, once, with its reason
	// (default slog.Default()).
	Logger *slog.Logger
}

// Cluster is this instance's part in the cluster: its role, its row, and
// what it knows of the others.
type Cluster struct {
	db   *store.DB
	seq  Sequencer
	now  func() time.Time
	log  *slog.Logger
	lead leadership
	ann  announcer
}

// New returns this instance's part in the cluster on db, which starts and
// stops seq with the leadership.
func New(db *store.DB, seq Sequencer, cfg Config) *Cluster {
	c := &Cluster{db: db, seq: seq, now: cfg.Now, log: cfg.Logger}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.ann.id, c.ann.started = newID(), c.clock()
	c.lead.interval = cfg.CampaignInterval
	if c.lead.interval <= 0 {
		c.lead.interval = DefaultCampaignInterval
	}
	return c
}

// Start takes the leadership and starts the sequencer or, when another
// instance holds it, stands by and campaigns for it in the background.
func (c *Cluster) Start(ctx context.Context) error { return c.lead.start(ctx, c) }

// Stop gives the leadership up and stops writing the instance's row. (The
// sequencer is stopped by its owner.)
func (c *Cluster) Stop() {
	c.ann.stop()
	c.lead.stop()
}

// Campaigning reports whether this instance has started in the election
// (Start): a standby that has is ready, its commands served by the leader.
func (c *Cluster) Campaigning() bool { return c.lead.quit != nil }

// clock returns the time truncated to the millisecond precision the store
// keeps.
func (c *Cluster) clock() time.Time { return c.now().UTC().Truncate(time.Millisecond) }

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// leadership is the instance's part in the leader election.
type leadership struct {
	role     atomic.Value // RoleLeader or RoleStandby
	changes  atomic.Int64 // times this instance became the leader after starting as a standby
	held     *store.Leadership
	interval time.Duration
	quit     chan struct{}
	done     chan struct{}
}

// Role reports whether this instance leads (runs the sequencer) or stands
// by.
func (c *Cluster) Role() string {
	if r, ok := c.lead.role.Load().(string); ok {
		return r
	}
	return RoleStandby
}

// Takeovers counts the times this instance became the leader after it
// had been a standby.
func (c *Cluster) Takeovers() int64 { return c.lead.changes.Load() }

// start takes the leadership or, when another instance holds it, stands
// by and campaigns for it in the background.
func (l *leadership) start(ctx context.Context, c *Cluster) error {
	l.quit, l.done = make(chan struct{}), make(chan struct{})
	l.role.Store(RoleStandby)
	c.seq.SetStandby(true)
	held, err := c.db.TryLeadership(ctx)
	if err != nil {
		close(l.done)
		return err
	}
	if held != nil {
		if err := l.lead(ctx, c, held); err != nil {
			close(l.done)
			return err
		}
		go l.watch(c)
		return nil
	}
	c.log.Info("another instance leads: this one is a standby")
	go l.campaign(c)
	return nil
}

// lead starts the sequencer under held.
func (l *leadership) lead(ctx context.Context, c *Cluster, held *store.Leadership) error {
	if err := c.seq.Start(ctx); err != nil {
		held.Release()
		return err
	}
	l.held = held
	l.role.Store(RoleLeader)
	c.seq.SetStandby(false)
	return nil
}

// campaign tries for the leadership until it gets it or the service
// closes, then watches it.
func (l *leadership) campaign(c *Cluster) {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			close(l.done)
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		held, err := c.db.TryLeadership(ctx)
		if err == nil && held != nil {
			start := time.Now()
			err = l.lead(ctx, c, held)
			if err == nil {
				l.changes.Add(1)
				if c.ann.quit != nil { // tell the standbys at once
					_ = c.beat(ctx)
				}
				c.log.Warn("took over as the leader: the previous leader is gone", "epoch", c.seq.Epoch(),
					"rebuild_ms", time.Since(start).Milliseconds())
			}
		}
		cancel()
		if err != nil {
			c.log.Error("taking over as the leader failed; standing by", "err", err)
			continue
		}
		if held != nil {
			l.watch(c)
			return
		}
	}
}

// watch waits for the leadership to be lost (the sequencer stops; the
// instance stays a standby) or the service to close.
func (l *leadership) watch(c *Cluster) {
	defer close(l.done)
	select {
	case <-l.quit:
	case <-l.held.Lost():
		l.role.Store(RoleStandby)
		c.seq.SetStandby(true)
		c.log.Error("lost the leadership (the database dropped its connection): the trading engine stops; " +
			"this instance is a standby until restarted")
		c.seq.Stop()
		if c.ann.quit != nil { // tell the others at once: its row no longer says it leads
			ctx, cancel := context.WithTimeout(context.Background(), InstanceBeat)
			if err := c.beat(ctx); err != nil {
				c.log.Warn("instance row not written", "err", err)
			}
			cancel()
		}
	}
}

// stop ends the campaign and gives the leadership up.
func (l *leadership) stop() {
	if l.quit == nil {
		return
	}
	select {
	case <-l.quit:
	default:
		close(l.quit)
	}
	<-l.done
	if l.held != nil {
		l.held.Release()
	}
}
