package trading

import (
	"context"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// Cancel-on-disconnect of FIX sessions (docs/fix-rules-of-engagement.md): an
// operator's setting per credential, which the FIX gateway reads when a
// session ends. The sessions' own state is the gateway's (internal/fix,
// SessionStore).

// SetFIXCancelOnDisconnect turns cancel-on-disconnect on or off for a
// credential (operators only): when on, the end of one of its FIX sessions
// cancels the open orders that session entered.
func (s *Service) SetFIXCancelOnDisconnect(ctx context.Context, p venue.Principal, clientID string, on bool) error {
	if err := require(p, venue.RoleOperator); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Credential(ctx, clientID); err != nil {
			return notFoundOr(err, "credential")
		}
		return tx.SetFIXCancelOnDisconnect(ctx, clientID, on, s.clock())
	})
}

// FIXCancelOnDisconnect reports the credential's cancel-on-disconnect
// setting.
func (s *Service) FIXCancelOnDisconnect(ctx context.Context, clientID string) (bool, error) {
	var on bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		on, err = tx.FIXCancelOnDisconnect(ctx, clientID)
		return err
	})
	return on, err
}
