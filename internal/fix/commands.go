package fix

import (
	"context"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/trading"
)

// Several instances (docs/architecture.md, "Several instances"): the FIX
// sessions of a standby are served there — reports, market data, news and
// drop copies come from its own feed — and their trading commands run on
// the leader, passed on as trading.Commands through internal/cluster, the
// one transport every channel uses.

// run runs a trading command: here when this instance leads, else on the
// leader.
func (g *Gateway) run(ctx context.Context, cmd trading.Command) (string, error) {
	if g.cl.Role() == cluster.RoleLeader {
		return g.svc.Run(ctx, cmd)
	}
	return g.fwd.Command(ctx, cmd)
}
