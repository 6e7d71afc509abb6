package store

import (
	"context"
	"strconv"
	"strings"
	"sync"
)

// This file holds every difference between SQLite and PostgreSQL that is
// not in the per-dialect migration files.

// rebinder turns ? placeholders into the engine's form, caching the result.
type rebinder struct {
	engine Engine
	cache  sync.Map // string → string
}

func newRebinder(e Engine) *rebinder { return &rebinder{engine: e} }

func (r *rebinder) bind(q string) string {
	if r.engine != Postgres {
		return q
	}
	if v, ok := r.cache.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	out := b.String()
	r.cache.Store(q, out)
	return out
}

// EventsChannel is the PostgreSQL notification channel every append to the
// event log notifies when it commits (ListenEvents).
const EventsChannel = "bondvenue_events"

// eventAppend returns PostgreSQL's statement of AppendEvents for events
// (at least one, each with its time): one statement that takes the event
// log's append lock, numbers the events after the last sequence number,
// writes them and their audience, notifies EventsChannel with the last
// number (delivered at commit: other processes' feeds wake up), and returns the first number
// and the count. The numbers are taken in the database rather than read first, so
// that SequencerBatch can send the statement with the rest of its batch
// without waiting for an answer. Appends are serialised by the lock, so
// the sequence stays gap free; SQLite needs no lock, having a single
// writer. (PostgreSQL's write transactions are SERIALIZABLE: the number
// comes from the transaction's snapshot, which may predate an append that
// committed while this one waited for the lock; the insert then collides
// with that append's rows, which PostgreSQL reports as a serialization
// failure, and the transaction is run again.)
func eventAppend(events []Event) statement {
	types, times, owners, data := make([]string, len(events)), make([]int64, len(events)),
		make([]string, len(events)), make([]string, len(events))
	var audienceOf []int64 // the event's ordinal, from 1
	var audience []string
	for i, e := range events {
		types[i], times[i], owners[i], data[i] = e.Type, ms(e.OccurredAt), e.ParticipantID, string(e.Data)
		for _, p := range e.Audience {
			if p != "" && p != e.ParticipantID {
				audienceOf, audience = append(audienceOf, int64(i+1)), append(audience, p)
			}
		}
	}
	return statement{query: `WITH last AS (
			SELECT pg_advisory_xact_lock(7242001) AS locked, (SELECT COALESCE(MAX(seq), 0) FROM events) AS seq
		), appended AS (
			INSERT INTO events (seq, type, occurred_at, participant_id, data)
			SELECT last.seq + e.n, e.type, e.occurred_at, NULLIF(e.participant_id, ''), e.data
			FROM last, unnest(?::text[], ?::bigint[], ?::text[], ?::text[]) WITH ORDINALITY AS e(type, occurred_at, participant_id, data, n)
			RETURNING seq
		), audience AS (
			INSERT INTO event_audience (seq, participant_id)
			SELECT last.seq + a.n, a.participant_id FROM last, unnest(?::bigint[], ?::text[]) AS a(n, participant_id)
			ON CONFLICT DO NOTHING
		)
		SELECT COALESCE(MIN(seq), 0), COUNT(*) FROM appended, (SELECT pg_notify('` + EventsChannel + `', '')) AS wake`,
		args: []any{types, times, owners, data, audienceOf, audience}, what: "append event"}
}

// hasMigrationsTable reports whether schema_migrations exists, so an
// unmigrated database reads as schema version 0.
func (tx *Tx) hasMigrationsTable(ctx context.Context) (bool, error) {
	q := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
	if tx.engine == Postgres {
		q = "SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0 ELSE 1 END"
	}
	var n int
	err := tx.queryRow(ctx, q).Scan(&n)
	return n > 0, err
}

// migrationLock serialises concurrent migrators on PostgreSQL.
const migrationLockKey = 7242000
