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
	for i := range events {
		if events[i].OccurredAt.IsZero() {
			events[i].OccurredAt = tx.now
		}
	}
	if tx.engine == Postgres {
		st := eventAppend(events)
		var first, n int64
		if err := tx.queryRow(ctx, st.query, st.args...).Scan(&first, &n); err != nil {
			return nil, fmt.Errorf("%s: %w", st.what, normalize(err))
		}
		return numbered(events, first, n)
	}
	var last int64
	if err := tx.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&last); err != nil {
		return nil, fmt.Errorf("last event: %w", normalize(err))
	}
	for i := range events {
		last++
		events[i].Seq = last
	}
	// Multi-row statements: a sequencer batch appends hundreds of events.
	var stmts []statement
	inChunks(tx.engine, len(events), func(from, n int) {
		args := make([]any, 0, n*5)
		for _, e := range events[from : from+n] {
			args = append(args, e.Seq, e.Type, ms(e.OccurredAt), nullStr(e.ParticipantID), string(e.Data))
		}
		stmts = append(stmts, statement{query: "INSERT INTO events (seq, type, occurred_at, participant_id, data) VALUES " + valueRows(n, 5),
			args: args, what: "append event"})
	})
	for _, e := range events {
		for _, p := range e.Audience {
			if p == "" || p == e.ParticipantID {
				continue
			}
			stmts = append(stmts, statement{query: "INSERT INTO event_audience (seq, participant_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
				args: []any{e.Seq, p}, what: "append event audience"})
		}
	}
	if err := tx.execAll(ctx, stmts); err != nil {
		return nil, err
	}
	return events, nil
}

// numbered returns events numbered from first on, once the statement of
// eventAppend has reported the first number it took and how many events it
// wrote.
func numbered(events []Event, first, n int64) ([]Event, error) {
	if n != int64(len(events)) || first < 1 {
		return nil, fmt.Errorf("append event: %d of %d events written, from %d", n, len(events), first)
	}
	for i := range events {
		events[i].Seq = first + int64(i)
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
