package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// IdempotencyRecord is the first answer to a request carrying an
// Idempotency-Key. StatusCode 0 means the request is still in flight.
type IdempotencyRecord struct {
	UserID, Key, RequestHash string
	StatusCode               int
	Response                 []byte
	CreatedAt                time.Time
}

// ClaimIdempotencyKey records a new request under (user, key) unless a
// live record exists, which it returns instead (claimed = false). Records
// created before staleBefore are replaced.
func (tx *Tx) ClaimIdempotencyKey(ctx context.Context, rec IdempotencyRecord, staleBefore time.Time) (IdempotencyRecord, bool, error) {
	var cur IdempotencyRecord
	var resp string
	var created int64
	err := tx.queryRow(ctx, `SELECT user_id, key, request_hash, status_code, response, created_at FROM idempotency_keys
		WHERE user_id = ? AND key = ?`, rec.UserID, rec.Key).Scan(&cur.UserID, &cur.Key, &cur.RequestHash, &cur.StatusCode, &resp, &created)
	switch {
	case err == nil && fromMS(created).After(staleBefore):
		cur.Response, cur.CreatedAt = []byte(resp), fromMS(created)
		return cur, false, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return cur, false, fmt.Errorf("idempotency key: %w", normalize(err))
	}
	_, err = tx.exec(ctx, `INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response, created_at)
		VALUES (?, ?, ?, 0, '', ?) ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash,
		status_code = 0, response = '', created_at = excluded.created_at`, rec.UserID, rec.Key, rec.RequestHash, ms(rec.CreatedAt))
	if err != nil {
		return cur, false, fmt.Errorf("claim idempotency key: %w", normalize(err))
	}
	return rec, true, nil
}

// FinishIdempotencyKey stores the answer of a claimed request.
func (tx *Tx) FinishIdempotencyKey(ctx context.Context, userID, key string, status int, response []byte) error {
	_, err := tx.exec(ctx, "UPDATE idempotency_keys SET status_code = ?, response = ? WHERE user_id = ? AND key = ?",
		status, string(response), userID, key)
	if err != nil {
		return fmt.Errorf("finish idempotency key: %w", normalize(err))
	}
	return nil
}

// ReleaseIdempotencyKey forgets a claim, so a retry runs the request again.
func (tx *Tx) ReleaseIdempotencyKey(ctx context.Context, userID, key string) error {
	if _, err := tx.exec(ctx, "DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?", userID, key); err != nil {
		return fmt.Errorf("release idempotency key: %w", normalize(err))
	}
	return nil
}

// PruneIdempotencyKeys deletes records created before t.
func (tx *Tx) PruneIdempotencyKeys(ctx context.Context, t time.Time) error {
	if _, err := tx.exec(ctx, "DELETE FROM idempotency_keys WHERE created_at < ?", ms(t)); err != nil {
		return fmt.Errorf("prune idempotency keys: %w", normalize(err))
	}
	return nil
}
