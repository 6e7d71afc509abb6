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
	return s.adminTx(ctx, p, &on, func(tx *store.Tx) (change, error) {
		if _, err := tx.Credential(ctx, clientID); err != nil {
			return change{}, notFoundOr(err, "credential")
		}
		was, err := tx.FIXCancelOnDisconnect(ctx, clientID)
		if err != nil {
			return change{}, err
		}
		c := change{action: "credential.cancel_on_disconnect", entityType: "credential", entityID: clientID,
			before: cancelOnDisconnect{clientID, was}, after: cancelOnDisconnect{clientID, on}}
		return c, tx.SetFIXCancelOnDisconnect(ctx, clientID, on, s.clock())
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

// cancelOnDisconnect is a credential's setting as the audit trail keeps it.
type cancelOnDisconnect struct {
	ClientID           string
	CancelOnDisconnect bool
}
