package trading

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
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

// leadership is the service's part in the leader election.
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
func (s *Service) Role() string {
	if r, ok := s.lead.role.Load().(string); ok {
		return r
	}
	return RoleStandby
}

// Takeovers counts the times this instance became the leader after it
// had been a standby.
func (s *Service) Takeovers() int64 { return s.lead.changes.Load() }

// start takes the leadership or, when another instance holds it, stands
// by and campaigns for it in the background.
func (l *leadership) start(ctx context.Context, s *Service) error {
	l.quit, l.done = make(chan struct{}), make(chan struct{})
	l.role.Store(RoleStandby)
	s.eng.SetStandby(true)
	held, err := s.db.TryLeadership(ctx)
	if err != nil {
		close(l.done)
		return err
	}
	if held != nil {
		if err := l.lead(ctx, s, held); err != nil {
			close(l.done)
			return err
		}
		go l.watch(s)
		return nil
	}
	s.log.Info("another instance leads: this one is a standby")
	go l.campaign(s)
	return nil
}

// lead starts the sequencer under held.
func (l *leadership) lead(ctx context.Context, s *Service, held *store.Leadership) error {
	if err := s.eng.Start(ctx); err != nil {
		held.Release()
		return err
	}
	l.held = held
	l.role.Store(RoleLeader)
	s.eng.SetStandby(false)
	return nil
}

// campaign tries for the leadership until it gets it or the service
// closes, then watches it.
func (l *leadership) campaign(s *Service) {
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
		held, err := s.db.TryLeadership(ctx)
		if err == nil && held != nil {
			start := time.Now()
			err = l.lead(ctx, s, held)
			if err == nil {
				l.changes.Add(1)
				if s.ann.quit != nil { // tell the standbys at once
					_ = s.beat(ctx)
				}
				s.log.Warn("took over as the leader: the previous leader is gone", "epoch", s.eng.Epoch(),
					"rebuild_ms", time.Since(start).Milliseconds())
			}
		}
		cancel()
		if err != nil {
			s.log.Error("taking over as the leader failed; standing by", "err", err)
			continue
		}
		if held != nil {
			l.watch(s)
			return
		}
	}
}

// watch waits for the leadership to be lost (the sequencer stops; the
// instance stays a standby) or the service to close.
func (l *leadership) watch(s *Service) {
	defer close(l.done)
	select {
	case <-l.quit:
	case <-l.held.Lost():
		l.role.Store(RoleStandby)
		s.eng.SetStandby(true)
		s.log.Error("lost the leadership (the database dropped its connection): the trading engine stops; " +
			"this instance is a standby until restarted")
		s.eng.Stop()
		if s.ann.quit != nil { // tell the others at once: its row no longer says it leads
			ctx, cancel := context.WithTimeout(context.Background(), InstanceBeat)
			if err := s.beat(ctx); err != nil {
				s.log.Warn("instance row not written", "err", err)
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
