package trading

import (
	"context"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Roles of an instance (internal/cluster).
const (
	RoleLeader  = cluster.RoleLeader
	RoleStandby = cluster.RoleStandby
)

// Instance is one serve process on the database, as Instances lists it.
type Instance = cluster.Instance

// Role reports whether this instance leads (runs the sequencer) or stands
// by.
func (s *Service) Role() string { return s.cl.Role() }

// Takeovers counts the times this instance became the leader after it
// had been a standby.
func (s *Service) Takeovers() int64 { return s.cl.Takeovers() }

// InstanceID names this instance (random, per process).
func (s *Service) InstanceID() string { return s.cl.InstanceID() }

// Announce starts writing this instance's row with the URL at which the
// other instances reach it.
func (s *Service) Announce(ctx context.Context, url string) error { return s.cl.Announce(ctx, url) }

// Instances lists the instances seen in the last few seconds (operators
// only).
func (s *Service) Instances(ctx context.Context, p venue.Principal) ([]Instance, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return nil, err
	}
	return s.cl.Instances(ctx)
}

// LeaderURL is the URL of the instance that leads, for a standby to pass
// trading commands to.
func (s *Service) LeaderURL(ctx context.Context) (string, error) { return s.cl.LeaderURL(ctx) }

// ForgetLeader drops the cached leader URL when url is it (the instance
// there did not serve a passed-on request).
func (s *Service) ForgetLeader(url string) { s.cl.ForgetLeader(url) }

// ClusterSecret is the key with which instances sign the requests they
// pass to each other.
func (s *Service) ClusterSecret(ctx context.Context) ([]byte, error) { return s.cl.ClusterSecret(ctx) }
