package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Event is one entry of the venue's append-only event log.
type Event struct {
	Seq           int64
	Type          string
	OccurredAt    time.Time
	ParticipantID string // empty: visible to every authenticated caller
	// Audience lists further participants who may read the event (RFQ
	// recipients, a trade's counterparty).
	Audience []string
	Data     []byte // the record as JSON
}

// AppendEvents adds events to the log in order, assigning each the next
// sequence number, in the caller's transaction. The sequence has no gaps:
// numbers are taken under the event lock, never from a database sequence.
func (tx *Tx) AppendEvents(ctx context.Context, events []Event) ([]Event, error) {
	if len(events) == 0 {
		return events, nil
	}
	last, err := tx.lastEventSeq(ctx)
	if err != nil {
		return nil, fmt.Errorf("last event: %w", normalize(err))
	}
	for i := range events {
		last++
		events[i].Seq = last
		if events[i].OccurredAt.IsZero() {
			events[i].OccurredAt = tx.now
		}
	}
	// Multi-row statements: a sequencer batch appends hundreds of events.
	err = tx.inChunks(len(events), func(from, n int) error {
		args := make([]any, 0, n*5)
		for _, e := range events[from : from+n] {
			args = append(args, e.Seq, e.Type, ms(e.OccurredAt), nullStr(e.ParticipantID), string(e.Data))
		}
		_, err := tx.exec(ctx, "INSERT INTO events (seq, type, occurred_at, participant_id, data) VALUES "+valueRows(n, 5), args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("append event: %w", normalize(err))
	}
	for _, e := range events {
		for _, p := range e.Audience {
			if p == "" || p == e.ParticipantID {
				continue
			}
			if _, err := tx.exec(ctx, "INSERT INTO event_audience (seq, participant_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
				e.Seq, p); err != nil {
				return nil, fmt.Errorf("append event audience: %w", normalize(err))
			}
		}
	}
	return events, nil
}

// Events returns up to limit events after seq, in order, visible to
// participantID (all events when participantID is empty).
func (tx *Tx) Events(ctx context.Context, after int64, participantID string, limit int) ([]Event, error) {
	q, args := "SELECT seq, type, occurred_at, participant_id, data FROM events WHERE seq > ?", []any{after}
	if participantID != "" {
		q += " AND (participant_id IS NULL OR participant_id = ? OR seq IN (SELECT seq FROM event_audience WHERE participant_id = ?))"
		args = append(args, participantID, participantID)
	}
	q += " ORDER BY seq LIMIT ?"
	args = append(args, limit)
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (Event, error) {
		var e Event
		var at int64
		var pid sql.NullString
		var data string
		err := r.Scan(&e.Seq, &e.Type, &at, &pid, &data)
		e.OccurredAt, e.ParticipantID, e.Data = fromMS(at), pid.String, []byte(data)
		return e, err
	}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", normalize(err))
	}
	return out, nil
}
