package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// FIXSession is a FIX session's state: the next sequence numbers it sends
// and expects, and when it was created (last reset).
type FIXSession struct {
	ID                     string
	NextSender, NextTarget int
	CreatedAt              time.Time
	// LastEventSeq is the last event of the log the session sent a
	// message for.
	LastEventSeq int64
}

// FIXSession returns a session's state; ok is false when it has none yet.
func (tx *Tx) FIXSession(ctx context.Context, id string) (s FIXSession, ok bool, err error) {
	var created int64
	err = tx.queryRow(ctx, `SELECT session_id, next_sender, next_target, created_at, last_event_seq FROM fix_sessions
		WHERE session_id = ?`, id).Scan(&s.ID, &s.NextSender, &s.NextTarget, &created, &s.LastEventSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("fix session %s: %w", id, normalize(err))
	}
	s.CreatedAt = fromMS(created)
	return s, true, nil
}

// SaveFIXSession writes a session's state.
func (tx *Tx) SaveFIXSession(ctx context.Context, s FIXSession) error {
	_, err := tx.exec(ctx, `INSERT INTO fix_sessions (session_id, next_sender, next_target, created_at, last_event_seq)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET next_sender = excluded.next_sender,
		next_target = excluded.next_target, created_at = excluded.created_at,
		last_event_seq = CASE WHEN excluded.last_event_seq > fix_sessions.last_event_seq
			THEN excluded.last_event_seq ELSE fix_sessions.last_event_seq END`,
		s.ID, s.NextSender, s.NextTarget, ms(s.CreatedAt), s.LastEventSeq)
	if err != nil {
		return fmt.Errorf("save fix session %s: %w", s.ID, normalize(err))
	}
	return nil
}

// SetFIXSeqNums sets a session's next sequence numbers (zero: unchanged).
func (tx *Tx) SetFIXSeqNums(ctx context.Context, id string, nextSender, nextTarget int) error {
	_, err := tx.exec(ctx, `UPDATE fix_sessions SET
		next_sender = CASE WHEN ? > 0 THEN ? ELSE next_sender END,
		next_target = CASE WHEN ? > 0 THEN ? ELSE next_target END
		WHERE session_id = ?`, nextSender, nextSender, nextTarget, nextTarget, id)
	if err != nil {
		return fmt.Errorf("fix session %s sequence numbers: %w", id, normalize(err))
	}
	return nil
}

// SaveFIXMessage keeps a sent message for resend and, when eventSeq > 0,
// records it as the session's last event.
func (tx *Tx) SaveFIXMessage(ctx context.Context, id string, seq int, msg []byte, eventSeq int64) error {
	_, err := tx.exec(ctx, `INSERT INTO fix_messages (session_id, seq, body) VALUES (?, ?, ?)
		ON CONFLICT (session_id, seq) DO UPDATE SET body = excluded.body`, id, seq, string(msg))
	if err == nil && eventSeq > 0 {
		_, err = tx.exec(ctx, `UPDATE fix_sessions SET last_event_seq = ? WHERE session_id = ? AND last_event_seq < ?`,
			eventSeq, id, eventSeq)
	}
	if err != nil {
		return fmt.Errorf("save fix message %s/%d: %w", id, seq, normalize(err))
	}
	return nil
}

// FIXMessages calls fn with the kept messages of a session numbered
// begin..end (end 0: to the last), in order.
func (tx *Tx) FIXMessages(ctx context.Context, id string, begin, end int, fn func(seq int, msg []byte) error) error {
	if end <= 0 {
		end = 1<<62 - 1
	}
	rows, err := tx.query(ctx, `SELECT seq, body FROM fix_messages WHERE session_id = ? AND seq >= ? AND seq <= ?
		ORDER BY seq`, id, begin, end)
	if err != nil {
		return fmt.Errorf("fix messages %s: %w", id, normalize(err))
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var body string
		if err := rows.Scan(&seq, &body); err != nil {
			return fmt.Errorf("fix messages %s: %w", id, normalize(err))
		}
		if err := fn(seq, []byte(body)); err != nil {
			return err
		}
	}
	return normalize(rows.Err())
}

// ResetFIXSession starts a session anew: sequence numbers 1, no kept
// messages, created at t.
func (tx *Tx) ResetFIXSession(ctx context.Context, id string, t time.Time) error {
	if _, err := tx.exec(ctx, `DELETE FROM fix_messages WHERE session_id = ?`, id); err != nil {
		return fmt.Errorf("reset fix session %s: %w", id, normalize(err))
	}
	// last_event_seq stays: a reset renumbers messages, it loses no event.
	return tx.SaveFIXSession(ctx, FIXSession{ID: id, NextSender: 1, NextTarget: 1, CreatedAt: t})
}

// BindFIXCompID binds senderCompID to clientID unless it is bound already;
// it returns the client id the CompID is bound to.
func (tx *Tx) BindFIXCompID(ctx context.Context, senderCompID, clientID string, t time.Time) (string, error) {
	_, err := tx.exec(ctx, `INSERT INTO fix_comp_ids (sender_comp_id, client_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT (sender_comp_id) DO NOTHING`, senderCompID, clientID, ms(t))
	if err != nil {
		return "", fmt.Errorf("bind fix comp id %s: %w", senderCompID, normalize(err))
	}
	var bound string
	err = tx.queryRow(ctx, `SELECT client_id FROM fix_comp_ids WHERE sender_comp_id = ?`, senderCompID).Scan(&bound)
	if err != nil {
		return "", fmt.Errorf("fix comp id %s: %w", senderCompID, normalize(err))
	}
	return bound, nil
}

// SetFIXCancelOnDisconnect turns cancel-on-disconnect on or off for a
// credential's FIX sessions.
func (tx *Tx) SetFIXCancelOnDisconnect(ctx context.Context, clientID string, on bool, t time.Time) error {
	var err error
	if on {
		_, err = tx.exec(ctx, `INSERT INTO fix_cancel_on_disconnect (client_id, updated_at) VALUES (?, ?)
			ON CONFLICT (client_id) DO UPDATE SET updated_at = excluded.updated_at`, clientID, ms(t))
	} else {
		_, err = tx.exec(ctx, `DELETE FROM fix_cancel_on_disconnect WHERE client_id = ?`, clientID)
	}
	if err != nil {
		return fmt.Errorf("fix cancel on disconnect for %s: %w", clientID, normalize(err))
	}
	return nil
}

// FIXCancelOnDisconnect reports whether a credential's FIX sessions cancel
// their open orders when they end.
func (tx *Tx) FIXCancelOnDisconnect(ctx context.Context, clientID string) (bool, error) {
	var n int
	err := tx.queryRow(ctx, `SELECT COUNT(*) FROM fix_cancel_on_disconnect WHERE client_id = ?`, clientID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("fix cancel on disconnect for %s: %w", clientID, normalize(err))
	}
	return n > 0, nil
}
