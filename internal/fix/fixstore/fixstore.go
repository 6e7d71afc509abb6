// Package fixstore keeps the FIX gateway's session state in the venue's
// database: it implements fix.SessionStore on internal/store, on SQLite
// and PostgreSQL alike. The sessions' writes (each message kept for
// resend, each sequence number taken) go through the database's group
// commit (store.DB.InTxGrouped), so that many sessions share a commit.
package fixstore

import (
	"context"
	"time"

	"github.com/bondvenue/bondvenue/internal/fix"
	"github.com/bondvenue/bondvenue/internal/store"
)

// Store is the FIX sessions' state in db.
type Store struct{ db *store.DB }

var _ fix.SessionStore = (*Store)(nil)

// New returns the sessions' store on db.
func New(db *store.DB) *Store { return &Store{db: db} }

func stateOf(s store.FIXSession) fix.SessionState {
	return fix.SessionState{ID: s.ID, NextSender: s.NextSender, NextTarget: s.NextTarget, CreatedAt: s.CreatedAt,
		LastEventSeq: s.LastEventSeq}
}

func rowOf(s fix.SessionState) store.FIXSession {
	return store.FIXSession{ID: s.ID, NextSender: s.NextSender, NextTarget: s.NextTarget, CreatedAt: s.CreatedAt,
		LastEventSeq: s.LastEventSeq}
}

// LoadSession returns a session's state, creating it (numbers 1, created
// at now) when it has none.
func (s *Store) LoadSession(ctx context.Context, id string, now time.Time) (fix.SessionState, error) {
	var out store.FIXSession
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		cur, ok, err := tx.FIXSession(ctx, id)
		if err != nil || ok {
			out = cur
			return err
		}
		out = store.FIXSession{ID: id, NextSender: 1, NextTarget: 1, CreatedAt: now}
		return tx.SaveFIXSession(ctx, out)
	})
	return stateOf(out), err
}

// PeekSession returns a session's state without creating it.
func (s *Store) PeekSession(ctx context.Context, id string) (fix.SessionState, bool, error) {
	var out store.FIXSession
	var ok bool
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out, ok, err = tx.FIXSession(ctx, id)
		return err
	})
	return stateOf(out), ok, err
}

// SaveSession writes a session's numbers and creation time.
func (s *Store) SaveSession(ctx context.Context, st fix.SessionState) error {
	return s.db.InTxGrouped(ctx, func(tx *store.Tx) error { return tx.SaveFIXSession(ctx, rowOf(st)) })
}

// SetSeqNums sets a session's next sequence numbers (zero: unchanged).
func (s *Store) SetSeqNums(ctx context.Context, id string, nextSender, nextTarget int) error {
	return s.db.InTxGrouped(ctx, func(tx *store.Tx) error { return tx.SetFIXSeqNums(ctx, id, nextSender, nextTarget) })
}

// SaveMessage keeps a sent message for resend and moves the session's
// next sender number and last event (fix.SessionStore).
func (s *Store) SaveMessage(ctx context.Context, id string, seq int, msg []byte, nextSender int, eventSeq int64) error {
	return s.db.InTxGrouped(ctx, func(tx *store.Tx) error {
		if err := tx.SaveFIXMessage(ctx, id, seq, msg, eventSeq); err != nil {
			return err
		}
		if nextSender > 0 {
			return tx.SetFIXSeqNums(ctx, id, nextSender, 0)
		}
		return nil
	})
}

// Messages calls fn with a session's kept messages begin..end (end 0: to
// the last), in order.
func (s *Store) Messages(ctx context.Context, id string, begin, end int, fn func(seq int, msg []byte) error) error {
	return s.db.View(ctx, func(tx *store.Tx) error { return tx.FIXMessages(ctx, id, begin, end, fn) })
}

// ResetSession starts a session anew at t: numbers 1, nothing kept.
func (s *Store) ResetSession(ctx context.Context, id string, t time.Time) error {
	return s.db.InTxGrouped(ctx, func(tx *store.Tx) error { return tx.ResetFIXSession(ctx, id, t) })
}

// BindCompID binds a SenderCompID to the credential at its first logon; a
// later logon of the CompID with another credential is refused with
// fix.ErrCompIDTaken.
func (s *Store) BindCompID(ctx context.Context, senderCompID, clientID string, now time.Time) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		bound, err := tx.BindFIXCompID(ctx, senderCompID, clientID, now)
		if err == nil && bound != clientID {
			return fix.ErrCompIDTaken
		}
		return err
	})
}
