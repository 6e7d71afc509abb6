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

// lastEventSeq takes the event log's append lock and returns the last
// sequence number. Appends are serialised so the sequence stays gap free:
// SQLite already has a single writer; PostgreSQL takes a transaction
// advisory lock, in the same statement as the read to save the sequencer
// a round trip per batch. (Its transactions are SERIALIZABLE: the read
// sees the transaction's snapshot whichever runs first, and an append
// racing another one fails and is retried, as with separate statements.)
func (tx *Tx) lastEventSeq(ctx context.Context) (last int64, err error) {
	if tx.engine != Postgres {
		err = tx.queryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&last)
		return last, err
	}
	var locked string
	err = tx.queryRow(ctx, "SELECT pg_advisory_xact_lock(7242001)::text, (SELECT COALESCE(MAX(seq), 0) FROM events)").
		Scan(&locked, &last)
	return last, err
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
