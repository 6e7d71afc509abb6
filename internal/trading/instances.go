package trading

import (
	"context"

	"github.com/bondvenue/bondvenue/internal/cluster"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Instances lists the instances seen in the last few seconds (operators
// only).
func (s *Service) Instances(ctx context.Context, p venue.Principal) ([]cluster.Instance, error) {
	if err := require(p, venue.RoleOperator); err != nil {
		return nil, err
	}
	return s.cl.Instances(ctx)
}
