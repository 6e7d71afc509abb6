package cluster

import (
	"context"
	"errors"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// errEngineStopped is the readiness of an instance whose sequencer should
// run here and does not.
var errEngineStopped = &venue.Error{Kind: venue.KindNotReady, Message: "the trading engine is not running"}

// Readiness reports whether this instance can serve requests, with the
// state of each thing it checks: "database" (ok, unavailable, not
// migrated), "role" (leader, standby) and "engine" (running, standby,
// stopped, lease lost). A standby that campaigns is ready: it serves reads
// and streams, and the leader its commands.
func (c *Cluster) Readiness(ctx context.Context) (map[string]string, error) {
	checks := map[string]string{"database": "ok", "engine": "running"}
	var errs []error
	v, err := c.db.SchemaVersion(ctx)
	var ms []store.Migration
	if err == nil {
		ms, err = store.Migrations(c.db.Engine())
	}
	switch {
	case err != nil:
		checks["database"] = "unavailable"
		errs = append(errs, err)
	case len(ms) > 0 && v < ms[len(ms)-1].Version:
		checks["database"] = "not migrated"
		errs = append(errs, &venue.Error{Kind: venue.KindUnavailable, Message: "database schema not migrated"})
	}
	checks["role"] = c.Role()
	switch {
	case c.Role() == RoleStandby && c.Campaigning():
		checks["engine"] = "standby"
	case c.seq.LeaseLost():
		checks["engine"] = "lease lost"
		errs = append(errs, store.ErrLeaseLost)
	case !c.seq.Alive():
		checks["engine"] = "stopped"
		errs = append(errs, errEngineStopped)
	}
	return checks, errors.Join(errs...)
}

// Engine names the database engine the instance runs on.
func (c *Cluster) Engine() string { return string(c.db.Engine()) }
