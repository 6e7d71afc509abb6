package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Instances find each other through the database: each writes its row
// (its URL and role) every InstanceBeat; a standby passes trading commands
// to the instance whose row says it leads and was seen within
// instanceAlive.

// InstanceBeat is how often an instance writes its row.
const InstanceBeat = time.Second

// instanceAlive is how recent a row must be for its instance to count.
const instanceAlive = 3 * InstanceBeat

// Instance is one serve process on the database, as Instances lists it.
type Instance = store.Instance

// announcer keeps this instance's row written.
type announcer struct {
	id      string
	started time.Time
	mu      sync.Mutex
	url     string
	quit    chan struct{}
	done    chan struct{}
	// leader caches the leader's URL for a moment.
	leaderURL   string
	leaderUntil time.Time
	secret      []byte
	// beating serializes the row's writes, so that one written just
	// after a change of role is the last: a beat that read the role
	// before the change cannot land after it.
	beating sync.Mutex
}

// InstanceID names this instance (random, per process).
func (c *Cluster) InstanceID() string { return c.ann.id }

// Announce writes this instance's row, reachable at url, now and every
// InstanceBeat until Stop.
func (c *Cluster) Announce(ctx context.Context, url string) error {
	a := &c.ann
	a.mu.Lock()
	a.url = url
	a.mu.Unlock()
	if err := c.beat(ctx); err != nil {
		return err
	}
	a.quit, a.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(a.done)
		t := time.NewTicker(InstanceBeat)
		defer t.Stop()
		for {
			select {
			case <-a.quit:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), InstanceBeat)
			if err := c.beat(ctx); err != nil {
				c.log.Warn("instance row not written", "err", err)
			}
			cancel()
		}
	}()
	return nil
}

func (c *Cluster) beat(ctx context.Context) error {
	a := &c.ann
	a.beating.Lock()
	defer a.beating.Unlock()
	a.mu.Lock()
	in := Instance{ID: a.id, URL: a.url, Role: c.Role(), StartedAt: a.started, SeenAt: c.clock()}
	a.mu.Unlock()
	return c.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.SaveInstance(ctx, in); err != nil {
			return err
		}
		return tx.ForgetInstances(ctx, in.SeenAt.Add(-24*time.Hour))
	})
}

func (a *announcer) stop() {
	if a.quit == nil {
		return
	}
	select {
	case <-a.quit:
	default:
		close(a.quit)
	}
	<-a.done
}

// Instances lists the instances seen in the last few seconds.
func (c *Cluster) Instances(ctx context.Context) ([]Instance, error) {
	var out []Instance
	err := c.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.Instances(ctx, c.clock().Add(-instanceAlive))
		return err
	})
	return out, err
}

// errNoLeader answers a command a standby cannot pass on.
var errNoLeader = &venue.Error{Kind: venue.KindNotReady, Message: "no instance leads at the moment (a takeover is under way); retry"}

// LeaderURL is the URL of the instance that leads, for a standby to pass
// trading commands to.
func (c *Cluster) LeaderURL(ctx context.Context) (string, error) {
	a := &c.ann
	now := c.clock()
	a.mu.Lock()
	if now.Before(a.leaderUntil) {
		defer a.mu.Unlock()
		return a.leaderURL, nil
	}
	a.mu.Unlock()
	var url string
	err := c.db.View(ctx, func(tx *store.Tx) error {
		ins, err := tx.Instances(ctx, now.Add(-instanceAlive))
		for _, in := range ins {
			if in.Role == RoleLeader && in.ID != a.id {
				url = in.URL
				break
			}
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if url == "" {
		return "", errNoLeader
	}
	a.mu.Lock()
	a.leaderURL, a.leaderUntil = url, now.Add(500*time.Millisecond)
	a.mu.Unlock()
	return url, nil
}

// ForgetLeader drops the cached leader URL when url is it: the instance
// there did not serve a passed-on request (it is gone or no longer leads),
// so the next one reads the rows again rather than trying it for the rest
// of the cache's moment.
func (c *Cluster) ForgetLeader(url string) {
	a := &c.ann
	a.mu.Lock()
	if a.leaderURL == url {
		a.leaderURL, a.leaderUntil = "", time.Time{}
	}
	a.mu.Unlock()
}

// ClusterSecret is the key with which instances sign the requests they
// pass to each other.
func (c *Cluster) ClusterSecret(ctx context.Context) ([]byte, error) {
	a := &c.ann
	a.mu.Lock()
	if a.secret != nil {
		defer a.mu.Unlock()
		return a.secret, nil
	}
	a.mu.Unlock()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	var secret string
	err := c.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		secret, err = tx.ClusterSecret(ctx, hex.EncodeToString(b))
		return err
	})
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(secret)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.secret = key
	a.mu.Unlock()
	return key, nil
}
