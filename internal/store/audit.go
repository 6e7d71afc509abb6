package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// This file holds the operator's audit trail (internal/audit): its entries
// are appended in the transaction of the change they record, numbered 1..n
// without a gap and chained by hash as they are written, and never updated
// or deleted.

// auditLockKey is the trail's append lock on PostgreSQL (the event log's
// is 7242001). A transaction that appends to both takes the event log's
// first: every write path appends its events before its audit entries.
const auditLockKey = 7242019

// AppendAudit writes e as the next entry of the audit trail in tx: numbered
// after the last entry and chained to its hash, read under the trail's
// lock, so the entry commits or rolls back with the change it records.
// e.Seq, e.PrevHash and e.Hash are the store's to set; a zero e.At is the
// transaction's time. Call it after the transaction's AppendEvents, if any.
func (tx *Tx) AppendAudit(ctx context.Context, e audit.Entry) error {
	e = auditEntryAt(e, tx.now)
	if tx.engine == Postgres {
		st := auditAppend(e)
		if _, err := tx.exec(ctx, st.query, st.args...); err != nil {
			return fmt.Errorf("%s: %w", st.what, normalize(err))
		}
		return nil
	}
	// SQLite has one writer: the last entry cannot change under this one.
	err := tx.queryRow(ctx, "SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1").Scan(&e.Seq, &e.PrevHash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("last audit entry: %w", normalize(err))
	}
	e.Seq++
	e.Hash = audit.Hash(e)
	if _, err := tx.exec(ctx, `INSERT INTO audit_log (seq, at_us, user_id, role, channel, action, entity_type, entity_id,
		before_state, after_state, reason, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Seq, e.At.UnixMicro(), e.UserID, e.Role, e.Channel, e.Action, e.EntityType, e.EntityID,
		stateArg(e.Before), stateArg(e.After), e.Reason, e.PrevHash, e.Hash); err != nil {
		return fmt.Errorf("append audit entry: %w", normalize(err))
	}
	return nil
}

// auditEntryAt is e with its time as the trail keeps it, now when it has
// none.
func auditEntryAt(e audit.Entry, now time.Time) audit.Entry {
	if e.At.IsZero() {
		e.At = now
	}
	e.At = audit.Truncate(e.At)
	return e
}

// auditAppend is PostgreSQL's AppendAudit of e as one statement, which a
// sequencer batch sends with its other writes without waiting for an
// answer: it takes the trail's lock, numbers the entry after the last one,
// and computes its hash in the database from that entry's hash, its own
// number (audit.Head, written out in SQL) and the rest of its canonical
// form (audit.Body, computed here). As for the event log, the number comes
// from the SERIALIZABLE transaction's snapshot: an append that committed
// meanwhile makes the insert collide with its row, which PostgreSQL
// reports as a serialization failure, and the transaction runs again.
func auditAppend(e audit.Entry) statement {
	return statement{query: `WITH last AS (
			SELECT pg_advisory_xact_lock(` + fmt.Sprint(auditLockKey) + `) AS locked,
				COALESCE((SELECT seq FROM audit_log ORDER BY seq DESC LIMIT 1), 0) + 1 AS seq,
				COALESCE((SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), '') AS prev
		)
		INSERT INTO audit_log (seq, at_us, user_id, role, channel, action, entity_type, entity_id,
			before_state, after_state, reason, prev_hash, hash)
		SELECT seq, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, prev,
			encode(sha256(convert_to('prev=' || length(prev) || ':' || prev || chr(10) ||
				'seq=' || length(seq::text) || ':' || seq::text || chr(10), 'UTF8') || ?::bytea), 'hex')
		FROM last`,
		args: []any{e.At.UnixMicro(), e.UserID, e.Role, e.Channel, e.Action, e.EntityType, e.EntityID,
			stateArg(e.Before), stateArg(e.After), e.Reason, audit.Body(e)},
		what: "append audit entry"}
}

// auditAppends are the statements of a sequencer batch's entries, at the
// batch's time when they have none.
func auditAppends(entries []audit.Entry, now time.Time) []statement {
	out := make([]statement, len(entries))
	for i, e := range entries {
		out[i] = auditAppend(auditEntryAt(e, now))
	}
	return out
}

func stateArg(s []byte) any {
	if s == nil {
		return nil
	}
	return string(s)
}

// AuditFilter selects entries of the trail. Zero fields do not filter.
type AuditFilter struct {
	// From and To bound the entries' time: From ≤ at < To.
	From, To *time.Time
	// EntityType keeps one type of entity's entries; with EntityID, one
	// entity's.
	EntityType, EntityID string
	// After keeps the entries numbered after it.
	After int64
	// Limit bounds the entries answered (none when 0).
	Limit int
}

const auditColumns = `seq, at_us, user_id, role, channel, action, entity_type, entity_id, before_state, after_state,
	reason, prev_hash, hash`

// AuditEntries returns the entries f selects, in sequence order.
func (tx *Tx) AuditEntries(ctx context.Context, f AuditFilter) ([]audit.Entry, error) {
	q, args := "SELECT "+auditColumns+" FROM audit_log WHERE seq > ?", []any{f.After}
	if f.From != nil {
		q, args = q+" AND at_us >= ?", append(args, f.From.UnixMicro())
	}
	if f.To != nil {
		q, args = q+" AND at_us < ?", append(args, f.To.UnixMicro())
	}
	if f.EntityType != "" {
		q, args = q+" AND entity_type = ?", append(args, f.EntityType)
	}
	if f.EntityID != "" {
		q, args = q+" AND entity_id = ?", append(args, f.EntityID)
	}
	q += " ORDER BY seq"
	if f.Limit > 0 {
		q, args = q+" LIMIT ?", append(args, f.Limit)
	}
	out, err := selectAll(ctx, tx, scanAudit, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list audit entries: %w", normalize(err))
	}
	return out, nil
}

// LastAuditOf returns the newest entry of one entity (not found when the
// trail has none).
func (tx *Tx) LastAuditOf(ctx context.Context, entityType, entityID string) (audit.Entry, error) {
	es, err := selectAll(ctx, tx, scanAudit, "SELECT "+auditColumns+` FROM audit_log
		WHERE entity_type = ? AND entity_id = ? ORDER BY seq DESC LIMIT 1`, entityType, entityID)
	if err != nil {
		return audit.Entry{}, fmt.Errorf("last audit entry of %s %s: %w", entityType, entityID, normalize(err))
	}
	if len(es) == 0 {
		return audit.Entry{}, venue.NotFound("audit entry")
	}
	return es[0], nil
}

// EachAudit calls fn with every entry of the trail in sequence order, one
// row at a time, so that a trail of any length is read in constant memory;
// it stops at the first error fn returns, and returns it.
func (tx *Tx) EachAudit(ctx context.Context, fn func(audit.Entry) error) error {
	rows, err := tx.query(ctx, "SELECT "+auditColumns+" FROM audit_log ORDER BY seq")
	if err != nil {
		return fmt.Errorf("read audit trail: %w", normalize(err))
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return fmt.Errorf("read audit trail: %w", normalize(err))
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read audit trail: %w", normalize(err))
	}
	return nil
}

func scanAudit(r *sql.Rows) (audit.Entry, error) {
	var e audit.Entry
	var at int64
	var before, after sql.NullString
	err := r.Scan(&e.Seq, &at, &e.UserID, &e.Role, &e.Channel, &e.Action, &e.EntityType, &e.EntityID, &before, &after,
		&e.Reason, &e.PrevHash, &e.Hash)
	e.At = time.UnixMicro(at).UTC()
	if before.Valid {
		e.Before = []byte(before.String)
	}
	if after.Valid {
		e.After = []byte(after.String)
	}
	return e, err
}
