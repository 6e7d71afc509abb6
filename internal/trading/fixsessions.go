package trading

import (
	"context"
	"time"

	"github.com/bondvenue/bondvenue/internal/store"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// FIX session state lives in the venue's database, so sequence numbers and
// the messages kept for resend survive a restart on either engine. These
// are the FIX gateway's use cases on it.

// FIXSession is a FIX session's sequence numbers and creation time.
type FIXSession = store.FIXSession

// LoadFIXSession returns a session's state, creating it (numbers 1, created
// now) when it has none.
func (s *Service) LoadFIXSession(ctx context.Context, id string) (FIXSession, error) {
	var out FIXSession
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		cur, ok, err := tx.FIXSession(ctx, id)
		if err != nil || ok {
			out = cur
			return err
		}
		out = FIXSession{ID: id, NextSender: 1, NextTarget: 1, CreatedAt: s.clock()}
		return tx.SaveFIXSession(ctx, out)
	})
	return out, err
}

// PeekFIXSession returns a session's state without creating it.
func (s *Service) PeekFIXSession(ctx context.Context, id string) (FIXSession, bool, error) {
	var out FIXSession
	var ok bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, ok, err = tx.FIXSession(ctx, id)
		return err
	})
	return out, ok, err
}

// SaveFIXSessionState writes a session's numbers and creation time.
func (s *Service) SaveFIXSessionState(ctx context.Context, st FIXSession) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.SaveFIXSession(ctx, st) })
}

// SetFIXSeqNums sets a session's next sequence numbers (zero: unchanged).
func (s *Service) SetFIXSeqNums(ctx context.Context, id string, nextSender, nextTarget int) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.SetFIXSeqNums(ctx, id, nextSender, nextTarget) })
}

// SaveFIXMessage keeps a sent message numbered seq for resend and, in the
// same transaction, moves the session's next sender number to nextSender
// (when > 0) and its last event to eventSeq (when > 0: the message is the
// last the session sends for that event of the log).
func (s *Service) SaveFIXMessage(ctx context.Context, id string, seq int, msg []byte, nextSender int, eventSeq int64) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.SaveFIXMessage(ctx, id, seq, msg, eventSeq); err != nil {
			return err
		}
		if nextSender > 0 {
			return tx.SetFIXSeqNums(ctx, id, nextSender, 0)
		}
		return nil
	})
}

// FIXMessages calls fn with a session's kept messages begin..end (end 0:
// to the last) in order.
func (s *Service) FIXMessages(ctx context.Context, id string, begin, end int, fn func(seq int, msg []byte) error) error {
	return s.db.View(ctx, func(tx *store.Tx) error { return tx.FIXMessages(ctx, id, begin, end, fn) })
}

// ResetFIXSession starts a session anew at t: numbers 1, nothing kept.
func (s *Service) ResetFIXSession(ctx context.Context, id string, t time.Time) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error { return tx.ResetFIXSession(ctx, id, t) })
}

// errCompIDTaken refuses a logon whose SenderCompID another credential
// holds.
var errCompIDTaken = venue.Forbidden("this SenderCompID is bound to another credential")

// BindFIXCompID binds a SenderCompID to the credential at its first logon;
// a later logon of the CompID with another credential is refused.
func (s *Service) BindFIXCompID(ctx context.Context, senderCompID, clientID string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		bound, err := tx.BindFIXCompID(ctx, senderCompID, clientID, s.clock())
		if err == nil && bound != clientID {
			return errCompIDTaken
		}
		return err
	})
}

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
