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
	Data     []byte // the record as the log keeps it
	// Record is the writer's typed value of Data, handed to the commit hook
	// as it is so the feed need not decode what it was just given; it is
	// not stored, and nil on events read back.
	Record any
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
		events, err := numbered(events, first, n)
		if err == nil {
			tx.appended = append(tx.appended, events...)
		}
		return events, err
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
	tx.appended = append(tx.appended, events...)
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

// EventQuery selects events of the log.
type EventQuery struct {
	After int64 // events with a greater sequence number
	// Participant keeps the events it may read (all when empty).
	Participant string
	Limit       int
}

// Events returns up to q.Limit events after q.After, in order, that q
// selects.
func (tx *Tx) Events(ctx context.Context, q EventQuery) ([]Event, error) {
	query, args := "SELECT seq, type, occurred_at, participant_id, data FROM events WHERE seq > ?", []any{q.After}
	if q.Participant != "" {
		query += " AND (participant_id IS NULL OR participant_id = ? OR seq IN (SELECT seq FROM event_audience WHERE participant_id = ?))"
		args = append(args, q.Participant, q.Participant)
	}
	query += " ORDER BY seq LIMIT ?"
	args = append(args, q.Limit)
	out, err := selectAll(ctx, tx, func(r *sql.Rows) (Event, error) {
		var e Event
		var at int64
		var pid sql.NullString
		var data string
		err := r.Scan(&e.Seq, &e.Type, &at, &pid, &data)
		e.OccurredAt, e.ParticipantID, e.Data = fromMS(at), pid.String, []byte(data)
		return e, err
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", normalize(err))
	}
	return out, nil
}

// EventsWithAudience returns up to limit events after seq, in order, each
// with its whole audience: what the committed-event feed needs to decide,
// in memory, who may read each one.
func (tx *Tx) EventsWithAudience(ctx context.Context, after int64, limit int) ([]Event, error) {
	out, err := tx.Events(ctx, EventQuery{After: after, Limit: limit})
	if err != nil || len(out) == 0 {
		return out, err
	}
	last := out[len(out)-1].Seq
	type member struct {
		seq int64
		p   string
	}
	ms, err := selectAll(ctx, tx, func(r *sql.Rows) (member, error) {
		var m member
		return m, r.Scan(&m.seq, &m.p)
	}, "SELECT seq, participant_id FROM event_audience WHERE seq > ? AND seq <= ? ORDER BY seq", after, last)
	if err != nil {
		return nil, fmt.Errorf("list event audience: %w", normalize(err))
	}
	i := 0
	for _, m := range ms {
		for out[i].Seq < m.seq {
			i++
		}
		out[i].Audience = append(out[i].Audience, m.p)
	}
	return out, nil
}

// LastEventSeq returns the sequence number of the newest event (0 when the
// log is empty).
func (tx *Tx) LastEventSeq(ctx context.Context) (int64, error) {
	var last int64
	if err := tx.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&last); err != nil {
		return 0, fmt.Errorf("last event: %w", normalize(err))
	}
	return last, nil
}
